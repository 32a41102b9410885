# A warm pool of agent-sandbox Sandboxes and 20 workspaces claimed from it:
# each claim takes a pod that was started (with its file helper) before the
# apply asked for it. Needs agent-sandbox with its extensions on the cluster.
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

variable "namespace" {
  type    = string
  default = "agents"
}

variable "tasks" {
  type    = number
  default = 20
}

provider "sandbox" {
  kubernetes {
    # Default: $KUBECONFIG or ~/.kube/config, its current context.
  }
}

resource "sandbox_kubernetes_template" "python" {
  name      = "python-eval"
  namespace = var.namespace
  image     = "python:3.12-slim"
  root      = "/workspace"
  resources = {
    requests = { cpu = "250m", memory = "256Mi" }
    limits   = { cpu = "1", memory = "1Gi" }
  }
}

resource "sandbox_kubernetes_warm_pool" "python" {
  name      = "python-eval"
  namespace = var.namespace
  template  = sandbox_kubernetes_template.python.name
  replicas  = var.tasks
}

resource "sandbox_workspace" "task" {
  count = var.tasks
  agent_sandbox {
    namespace = var.namespace
    warm_pool = sandbox_kubernetes_warm_pool.python.name
  }
  lifetime  = "2h"
  on_expiry = "remove"
}

resource "sandbox_file" "prompt" {
  count        = var.tasks
  workspace_id = sandbox_workspace.task[count.index].id
  path         = "task.md"
  content      = "Task ${count.index}: make the tests in tests/ pass.\n"
}

output "sandboxes" {
  description = "The Sandbox (and pod) serving each task."
  value       = sandbox_workspace.task[*].agent_sandbox.sandbox_name
}
