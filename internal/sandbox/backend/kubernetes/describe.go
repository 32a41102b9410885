package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// AnnotationAccounts records the users and groups a pod was created with
// (JSON), so that an import reads them back.
const AnnotationAccounts = "sandbox.accounts"

type accounts struct {
	Users  []sandbox.User  `json:"users,omitempty"`
	Groups []sandbox.Group `json:"groups,omitempty"`
}

func (s Spec) accountsAnnotation() string {
	if len(s.Users) == 0 && len(s.Groups) == 0 {
		return ""
	}
	b, _ := json.Marshal(accounts{Users: s.Users, Groups: s.Groups})
	return string(b)
}

// Describe reads back what the pod was created with: every field of Spec
// but WorkspaceID and StartTimeout, from the pod, its annotations and its
// Service. Labels leave out the provider's own.
func (b *Backend) Describe(ctx context.Context) (spec.Kubernetes, error) {
	cs, _, err := b.c.client()
	if err != nil {
		return spec.Kubernetes{}, err
	}
	var p *corev1.Pod
	if err := call(ctx, func() error {
		var gerr error
		p, gerr = cs.CoreV1().Pods(b.ns).Get(ctx, b.name, metav1.GetOptions{})
		return gerr
	}); err != nil {
		return spec.Kubernetes{}, fmt.Errorf("reading pod %s/%s: %w", b.ns, b.name, err)
	}
	return describePod(p).Kubernetes, nil
}

func describePod(p *corev1.Pod) Spec {
	s := Spec{WorkspaceID: p.Labels[LabelWorkspaceID], Kubernetes: spec.Kubernetes{Namespace: p.Namespace, Root: p.Annotations[AnnotationRoot], ServiceAccount: p.Spec.ServiceAccountName, NodeSelector: p.Spec.NodeSelector}}
	if s.ServiceAccount == "default" {
		s.ServiceAccount = ""
	}
	if p.Spec.RuntimeClassName != nil {
		s.RuntimeClassName = *p.Spec.RuntimeClassName
	}
	for k, v := range p.Labels {
		if k == LabelWorkspaceID || k == LabelManagedBy {
			continue
		}
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		s.Labels[k] = v
	}
	s.Egress = hasEgressContainer(p)
	var acc accounts
	if json.Unmarshal([]byte(p.Annotations[AnnotationAccounts]), &acc) == nil {
		s.Users, s.Groups = acc.Users, acc.Groups
	}
	for _, c := range p.Spec.Containers {
		if c.Name != containerName {
			continue
		}
		s.Image, s.ImagePullPolicy = c.Image, string(c.ImagePullPolicy)
		for _, e := range c.Env {
			if s.Environment == nil {
				s.Environment = map[string]string{}
			}
			s.Environment[e.Name] = e.Value
		}
		for _, port := range c.Ports {
			s.ExposedPorts = append(s.ExposedPorts, int(port.ContainerPort))
		}
		sort.Ints(s.ExposedPorts)
		s.Requests, s.Limits = quantities(c.Resources.Requests), quantities(c.Resources.Limits)
		s.Privileged = c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged
	}
	return s
}

func quantities(l corev1.ResourceList) map[string]string {
	if len(l) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, q := range l {
		out[string(k)] = q.String()
	}
	return out
}

// SameQuantity reports whether a and b parse as the same quantity.
func SameQuantity(a, b string) bool {
	qa, err := resource.ParseQuantity(a)
	if err != nil {
		return a == b
	}
	qb, err := resource.ParseQuantity(b)
	return err == nil && qa.Cmp(qb) == 0
}
