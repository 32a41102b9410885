# By workspace id (a docker workspace is also found by its container's
# sandbox.workspace_id label when this machine has no record of it):
terraform import sandbox_workspace.agent 0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11

# Or adopt an existing local workspace directory by its absolute root:
terraform import sandbox_workspace.agent /srv/sandboxes/agent-1
