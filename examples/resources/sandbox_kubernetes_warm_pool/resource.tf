resource "sandbox_kubernetes_template" "python" {
  name      = "python"
  namespace = "agents"
  image     = "python:3.12-slim"
}

# Keeps 3 Sandboxes of the template running, ready to be claimed; the
# apply waits until the controller counts 3 ready.
resource "sandbox_kubernetes_warm_pool" "python" {
  name      = "python"
  namespace = "agents"
  template  = sandbox_kubernetes_template.python.name
  replicas  = 3

  timeouts {
    create = "15m"
  }
}

output "ready" {
  value = sandbox_kubernetes_warm_pool.python.ready_replicas
}
