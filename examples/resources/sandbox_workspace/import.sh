# By workspace id, as in state: local:<uuid>:<root> or docker:<uuid>.
terraform import sandbox_workspace.agent docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11

# A docker workspace by the UUID its container carries in the
# sandbox.workspace_id label:
terraform import sandbox_workspace.agent 0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11

# A local workspace by its absolute root; only a directory carrying the
# workspace marker (extended attribute user.sandbox.workspace) is accepted:
terraform import sandbox_workspace.agent /srv/sandboxes/agent-1
