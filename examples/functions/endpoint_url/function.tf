output "url" {
  # "wss://preview.example.com/?token=abc"
  value = provider::sandbox::endpoint_url("preview.example.com", 443, true, "ws", "token=abc")
}
