package kubernetes

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// FindPod returns the workspace UUID of the pod named name in namespace
// ns, or, when name is "", of the one workspace pod there carrying every
// label of want. It only reads.
func (c *Cluster) FindPod(ctx context.Context, ns, name string, want map[string]string) (string, error) {
	cs, _, err := c.client()
	if err != nil {
		return "", err
	}
	if name != "" {
		var uuid string
		err := call(ctx, func() error {
			p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				uuid = p.Labels[LabelWorkspaceID]
				for k, v := range want {
					if p.Labels[k] != v {
						return fmt.Errorf("pod %s/%s does not carry the label %s=%s", ns, name, k, v)
					}
				}
			}
			return err
		})
		switch {
		case apierrors.IsNotFound(err):
			return "", fmt.Errorf("namespace %s has no pod %q", ns, name)
		case err != nil:
			return "", err
		case uuid == "" || name != PodName(uuid):
			return "", fmt.Errorf("pod %s/%s is not a workspace of this provider (it has no %s label matching its name)", ns, name, LabelWorkspaceID)
		}
		return uuid, nil
	}
	if len(want) == 0 {
		return "", fmt.Errorf("give a pod name or labels to find a workspace pod by")
	}
	sel := labels.Set{LabelManagedBy: ManagedBy}
	keys := make([]string, 0, len(want))
	for k, v := range want {
		sel[k] = v
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	var uuids []string
	err = call(ctx, func() error {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return err
		}
		uuids = uuids[:0]
		for _, p := range list.Items {
			if u := p.Labels[LabelWorkspaceID]; u != "" && p.Name == PodName(u) && p.DeletionTimestamp == nil {
				uuids = append(uuids, u)
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("listing pods in %s: %w", ns, err)
	}
	switch len(uuids) {
	case 0:
		return "", fmt.Errorf("no workspace pod in namespace %s carries the labels %s", ns, strings.Join(keys, ", "))
	case 1:
		return uuids[0], nil
	}
	return "", fmt.Errorf("%d workspace pods in namespace %s carry the labels %s; add labels that single one out, or give its pod_name",
		len(uuids), ns, strings.Join(keys, ", "))
}
