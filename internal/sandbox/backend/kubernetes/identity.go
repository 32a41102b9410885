package kubernetes

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterID returns the cluster's identity: the UID of its kube-system
// namespace, which the API server creates once and which no other
// cluster shares. It is read once. A client the cluster does not let read
// that namespace gets "" and no error: the check it serves is then skipped.
func (c *Cluster) ClusterID(ctx context.Context) (string, error) {
	c.idMu.Lock()
	defer c.idMu.Unlock()
	if c.id != "" {
		return c.id, nil
	}
	cs, _, err := c.client()
	if err != nil {
		return "", err
	}
	err = call(ctx, func() error {
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{})
		if err == nil {
			c.id = string(ns.UID)
		}
		return err
	})
	switch {
	case apierrors.IsForbidden(err) || apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading the cluster's identity (namespace kube-system): %w", err)
	}
	return c.id, nil
}
