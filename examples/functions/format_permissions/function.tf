output "string" {
  # "-rw-r-----"
  value = provider::sandbox::format_permissions(parseint("640", 8))
}
