# <workspace_id>/<path>; then set content, content_base64, source or content_wo in configuration.
terraform import sandbox_file.config docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11/config/agent.toml
