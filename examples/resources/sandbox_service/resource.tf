resource "sandbox_workspace" "ws" {
  docker {
    image = "python:3.12-slim"
  }
}

resource "sandbox_file" "index" {
  workspace_id = sandbox_workspace.ws.id
  path         = "site/index.html"
  content      = "<h1>app under test</h1>\n"
}

# The web app under test, beside the agent: create returns once it answers.
resource "sandbox_service" "web" {
  workspace_id = sandbox_file.index.workspace_id
  name         = "web"
  command      = ["python3", "-m", "http.server", "8080", "--directory", "site"]
  restart      = "on-failure"
  stop_timeout = "5s"

  readiness {
    http_get {
      port = 8080
      path = "/"
    }
    interval = "500ms"
    timeout  = "30s"
  }
}

# A grader that talks to the service, started again with it.
resource "sandbox_command" "smoke" {
  workspace_id = sandbox_service.web.workspace_id
  command      = ["python3", "-c", "import urllib.request as u; print(u.urlopen('http://127.0.0.1:8080/').status)"]
  triggers     = { service = sandbox_service.web.id }
}

# The service's stdout and stderr, from inside the workspace.
data "sandbox_file" "web_log" {
  workspace_id = sandbox_service.web.workspace_id
  path         = sandbox_service.web.log_path
  depends_on   = [sandbox_command.smoke]
}
