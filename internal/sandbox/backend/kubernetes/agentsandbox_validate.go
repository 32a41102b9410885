package kubernetes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Checks of what agent-sandbox objects are declared with, without a
// cluster, so that a plan refuses what the API server or the controller
// would refuse.

// ValidateName checks the name of an agent-sandbox object of kind as the
// API server and the controller need it. A Sandbox names its pod (and its
// Service, when it has one), and a SandboxClaim names the Sandbox made
// for it when its pool is empty, so both must be DNS-1123 labels (at most
// 63 characters); templates and pools are DNS-1123 subdomains.
func ValidateName(kind, name string) error {
	var errs []string
	switch kind {
	case KindSandbox, KindSandboxClaim:
		errs = validation.IsDNS1123Label(name)
	case KindSandboxTemplate, KindSandboxWarmPool:
		errs = validation.IsDNS1123Subdomain(name)
	default:
		return fmt.Errorf("%q is not an agent-sandbox kind", kind)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%q is not a %s name: %s", name, kind, strings.Join(errs, "; "))
	}
	return nil
}

// ValidateShutdownPolicy checks a shutdown policy of kind: Delete or
// Retain for a Sandbox, also DeleteForeground for a SandboxClaim; ""
// leaves the controller's default (Retain).
func ValidateShutdownPolicy(kind, policy string) error {
	switch {
	case policy == "" || policy == ShutdownDelete || policy == ShutdownRetain:
		return nil
	case policy == ShutdownDeleteForeground && kind == KindSandboxClaim:
		return nil
	case kind == KindSandboxClaim:
		return fmt.Errorf("shutdown policy %q must be Delete, DeleteForeground or Retain", policy)
	}
	return fmt.Errorf("shutdown policy %q of a %s must be Delete or Retain", policy, kind)
}

// ParseVolumeSize parses a volume size: a quantity above zero.
func ParseVolumeSize(s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("volume size %q is not a Kubernetes quantity (such as \"10Gi\")", s)
	}
	if q.Sign() <= 0 {
		return resource.Quantity{}, fmt.Errorf("volume size %q must be more than zero", s)
	}
	return q, nil
}

// DefaultAllowedLabelDomain is the only label domain the controller
// accepts in a claim's pod metadata unless configured otherwise.
const DefaultAllowedLabelDomain = "sandbox.users.io"

// ValidateClaimPodMetadata checks a claim's pod labels and annotations as
// the controller does before it merges them (a claim it refuses is not
// Ready, reason InvalidMetadata): a label key needs a domain prefix among
// allowed (or a subdomain of one; DefaultAllowedLabelDomain when none is
// given) and a valid value; an annotation key must not be in the domains
// kubernetes.io, k8s.io and agents.x-k8s.io.
func ValidateClaimPodMetadata(labels, annotations map[string]string, allowed []string) error {
	if len(allowed) == 0 {
		allowed = []string{DefaultAllowedLabelDomain}
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("pod label %q is not a label key: %s", k, strings.Join(errs, "; "))
		}
		domain, _, ok := strings.Cut(k, "/")
		if !ok || !inDomains(strings.ToLower(domain), allowed) {
			return fmt.Errorf("pod label %q needs a domain prefix among %s", k, strings.Join(allowed, ", "))
		}
		if strings.EqualFold(k, "app") && strings.EqualFold(labels[k], "sandbox-router") {
			return fmt.Errorf("pod label %s=%s is reserved", k, labels[k])
		}
		if errs := validation.IsValidLabelValue(labels[k]); len(errs) > 0 {
			return fmt.Errorf("the value %q of pod label %s is not a label value: %s", labels[k], k, strings.Join(errs, "; "))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("pod annotation %q is not an annotation key: %s", k, strings.Join(errs, "; "))
		}
		if domain, _, ok := strings.Cut(k, "/"); ok && inDomains(strings.ToLower(domain), []string{"kubernetes.io", "k8s.io", AgentsGroup}) &&
			k != "cluster-autoscaler.kubernetes.io/safe-to-evict" {
			return fmt.Errorf("pod annotation %q is in a domain reserved to the cluster", k)
		}
	}
	return nil
}

func inDomains(domain string, domains []string) bool {
	for _, d := range domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}
