# A SandboxTemplate for agent-sandbox (kubernetes-sigs/agent-sandbox): every
# Sandbox made from it runs a workspace pod of this image.
resource "sandbox_kubernetes_template" "python" {
  name      = "python"
  namespace = "agents"
  image     = "python:3.12-slim"
  labels    = { team = "evals" }
  resources = {
    requests = { cpu = "250m", memory = "256Mi" }
    limits   = { memory = "1Gi" }
  }
  root        = "/workspace"
  environment = { LANG = "C.UTF-8" }

  # The root on a claim of its own per Sandbox: files survive a suspend.
  volume_claim_template = {
    size = "10Gi"
  }
}
