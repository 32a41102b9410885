# <workspace_id>/<path>; then set repo and ref in configuration (the next
# apply fetches and re-copies).
terraform import sandbox_git_repo.docs docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11/reference
