# <namespace>/<name>
terraform import sandbox_kubernetes_template.python agents/python
