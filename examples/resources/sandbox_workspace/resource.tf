# A workspace in a directory of your choosing, kept when destroyed.
resource "sandbox_workspace" "agent" {
  root            = "/srv/sandboxes/agent-1"
  keep_on_destroy = true
  environment     = { LANG = "C.UTF-8" }
  exposed_ports   = [8080]
  local {}
}

# A throwaway workspace under the provider's local_base_dir.
resource "sandbox_workspace" "scratch" {
  local {}
}

output "preview_url" {
  value = sandbox_workspace.agent.endpoints[0].url_http
}
