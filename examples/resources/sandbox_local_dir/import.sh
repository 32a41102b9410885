# <workspace_id>/<path>; then set source in configuration.
terraform import sandbox_local_dir.skills docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11/skills
