# A workspace in a pod on an existing cluster: a checkout-like tree, a file
# and a command, with a port other pods of the cluster can reach.
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

variable "namespace" {
  type    = string
  default = "agents"
}

provider "sandbox" {
  kubernetes {
    # Default: $KUBECONFIG or ~/.kube/config, its current context.
    # config_context = "eval-cluster"
  }
}

resource "sandbox_workspace" "ws" {
  kubernetes {
    namespace = var.namespace
    image     = "python:3.12-slim"
    resources = {
      requests = { cpu = "250m", memory = "256Mi" }
      limits   = { cpu = "1", memory = "1Gi" }
    }
  }
  users         = [{ name = "agent" }]
  exposed_ports = [8080]
}

resource "sandbox_file" "task" {
  workspace_id = sandbox_workspace.ws.id
  path         = "task.md"
  content      = "Write a web server that answers on port 8080.\n"
  owner        = "agent"
}

resource "sandbox_command" "check" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "python3 --version && ls -l"
  user         = "agent"
  depends_on   = [sandbox_file.task]
}

output "endpoint" {
  description = "Reachable from pods of the cluster; use kubectl port-forward from outside."
  value       = sandbox_workspace.ws.endpoints[0].url_http
}
