# <workspace_id>/<path>
terraform import sandbox_dir.outputs docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11/tasks/outputs
