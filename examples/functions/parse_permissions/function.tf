output "mode" {
  # { owner = 7, group = 5, other = 0, directory = true, mode = 16872, octal = "0750", string = "drwxr-x---" }
  value = provider::sandbox::parse_permissions("drwxr-x---")
}
