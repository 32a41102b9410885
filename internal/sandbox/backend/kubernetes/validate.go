package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// validateMeta checks the pod's names and labels as the API server would,
// so that a plan refuses what the apply could not create: label and node
// selector keys and values, the reserved labels, the service account and
// RuntimeClass names.
func (s Spec) validateMeta() error {
	if err := checkLabels("labels", s.Labels, true); err != nil {
		return err
	}
	if err := checkLabels("node_selector", s.NodeSelector, false); err != nil {
		return err
	}
	for field, v := range map[string]string{"service_account": s.ServiceAccount, "runtime_class_name": s.RuntimeClassName} {
		if v == "" {
			continue
		}
		if errs := validation.IsDNS1123Subdomain(v); len(errs) > 0 {
			return fieldErr(field, fmt.Errorf("%s %q is not a Kubernetes object name: %s", field, v, strings.Join(errs, "; ")))
		}
	}
	return nil
}

// checkLabels checks a label map in key order; reserved refuses the
// labels the provider sets itself.
func checkLabels(field string, m map[string]string, reserved bool) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if reserved && (k == LabelWorkspaceID || k == LabelManagedBy) {
			return fieldErr(field, fmt.Errorf("%s: the label %q is set by the provider and cannot be given", field, k))
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fieldErr(field, fmt.Errorf("%s: %q is not a label key: %s", field, k, strings.Join(errs, "; ")))
		}
		if errs := validation.IsValidLabelValue(m[k]); len(errs) > 0 {
			return fieldErr(field, fmt.Errorf("%s: the value %q of %s is not a label value: %s", field, m[k], k, strings.Join(errs, "; ")))
		}
	}
	return nil
}

// checkResourceName accepts the resources a container may request: cpu,
// memory, ephemeral-storage, hugepages-<size>, and extended resources
// named with a domain prefix outside kubernetes.io.
func checkResourceName(k string) error {
	switch {
	case k == "cpu" || k == "memory" || k == "ephemeral-storage" || strings.HasPrefix(k, "hugepages-"):
		return nil
	case strings.Contains(k, "/") && len(validation.IsQualifiedName(k)) == 0 &&
		!strings.HasPrefix(k, "kubernetes.io/") && !strings.Contains(strings.SplitN(k, "/", 2)[0], ".kubernetes.io"):
		return nil
	}
	return fmt.Errorf("%q is not a container resource: use cpu, memory, ephemeral-storage, hugepages-<size> or an "+
		"extended resource with a domain prefix such as example.com/gpu", k)
}

// CheckLookup validates the keys a pod workspace is looked up by (a
// namespace, and a pod name or labels) as the API server would, so that a
// lookup that can match nothing fails naming its field.
func CheckLookup(ns, podName string, labels map[string]string) error {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fieldErr("namespace", fmt.Errorf("namespace %q is not a namespace name: %s", ns, strings.Join(errs, "; ")))
	}
	if podName != "" {
		if errs := validation.IsDNS1123Subdomain(podName); len(errs) > 0 {
			return fieldErr("pod_name", fmt.Errorf("pod_name %q is not a pod name: %s", podName, strings.Join(errs, "; ")))
		}
	}
	return checkLabels("labels", labels, false)
}

// Validate checks s without contacting the cluster.
func (s Spec) Validate() error {
	switch {
	case s.Image == "":
		return fieldErr("image", errors.New("image must be set"))
	case s.Namespace == "":
		return fieldErr("namespace", errors.New("namespace must be set"))
	case !path.IsAbs(s.Root) || path.Clean(s.Root) != s.Root:
		return fieldErr("root", fmt.Errorf("root %q must be an absolute, clean POSIX path", s.Root))
	}
	switch s.ImagePullPolicy {
	case "", string(corev1.PullAlways), string(corev1.PullIfNotPresent), string(corev1.PullNever):
	default:
		return fieldErr("image_pull_policy", fmt.Errorf("image_pull_policy %q must be Always, IfNotPresent or Never", s.ImagePullPolicy))
	}
	if s.Egress && s.Privileged {
		return fieldErr("privileged", errors.New("a privileged container has CAP_NET_ADMIN, with which the agent could remove "+
			"the egress rules: an egress policy cannot be used with privileged = true"))
	}
	if errs := validation.IsDNS1123Label(s.Namespace); len(errs) > 0 {
		return fieldErr("namespace", fmt.Errorf("namespace %q is not a namespace name: %s", s.Namespace, strings.Join(errs, "; ")))
	}
	if err := s.validateMeta(); err != nil {
		return err
	}
	req, err := resourceList(s.Requests)
	if err != nil {
		return fieldErr("resources", fmt.Errorf("requests: %w", err))
	}
	lim, err := resourceList(s.Limits)
	if err != nil {
		return fieldErr("resources", fmt.Errorf("limits: %w", err))
	}
	for name, q := range req {
		if l, ok := lim[name]; ok && q.Cmp(l) > 0 {
			return fieldErr("resources", fmt.Errorf("requests: %s = %q is more than its limit %q", name, s.Requests[string(name)], s.Limits[string(name)]))
		}
	}
	for _, p := range s.ExposedPorts {
		if p < 1 || p > 65535 {
			return fieldErr("exposed_ports", fmt.Errorf("exposed port %d is outside 1-65535", p))
		}
	}
	return nil
}

func fieldErr(field string, err error) error {
	return &spec.KubernetesFieldError{Field: field, Err: err}
}

func resourceList(m map[string]string) (corev1.ResourceList, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := corev1.ResourceList{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first bad one, the same on every run
	for _, k := range keys {
		v := m[k]
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("%s = %q is not a Kubernetes quantity (such as \"250m\" or \"1Gi\")", k, v)
		}
		if q.Sign() < 0 {
			return nil, fmt.Errorf("%s = %q is negative", k, v)
		}
		if err := checkResourceName(k); err != nil {
			return nil, err
		}
		out[corev1.ResourceName(k)] = q
	}
	return out, nil
}
