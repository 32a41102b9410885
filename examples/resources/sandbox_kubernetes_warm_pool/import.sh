# <namespace>/<name>
terraform import sandbox_kubernetes_warm_pool.python agents/python
