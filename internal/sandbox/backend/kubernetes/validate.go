package kubernetes

import (
	"fmt"
	"sort"
	"strings"

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
