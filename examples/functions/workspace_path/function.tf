output "path" {
  # "/workspace/tasks/a/out.txt"
  value = provider::sandbox::workspace_path("/workspace", "tasks/a/out.txt")
}
