package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/singleflight"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// MaxConcurrentExecs bounds the exec streams one provider process keeps
// open to one cluster at a time.
const MaxConcurrentExecs = 16

// Cluster is a connection to one cluster, made on first use.
type Cluster struct {
	cfg  spec.KubernetesConfig
	once sync.Once
	rest *rest.Config
	cs   kubernetes.Interface
	err  error

	helpers incontainer.HelperCache
	// dyn is the dynamic client of the agent-sandbox objects.
	dynOnce sync.Once
	dyn     dynamic.Interface
	dynErr  error
	// bound maps "<namespace>/<claim>" to the Sandbox the claim got,
	// which never changes once set.
	bound sync.Map
	// installs are the ephemeral helper installs in flight, by pod.
	installs singleflight.Group
	execs    chan struct{}
	reads    backend.SharedReads // pod lookups in flight

	idMu sync.Mutex
	id   string // ClusterID, once read
}

// quietOnce silences client-go's own logging (klog), which would print
// to the provider's stderr about streams the provider closes on purpose
// (a command's timeout); errors reach the caller as errors.
var quietOnce sync.Once

// NewCluster returns a Cluster for cfg; nothing is contacted until used.
func NewCluster(cfg spec.KubernetesConfig) *Cluster {
	quietOnce.Do(func() { klog.SetLogger(logr.Discard()) })
	return &Cluster{cfg: cfg, execs: make(chan struct{}, MaxConcurrentExecs)}
}

// CheckConfig validates c without contacting the cluster.
func CheckConfig(c spec.KubernetesConfig) error {
	if c.Host == "" {
		if c.ClusterCACertificate != "" || c.Token != "" || c.ClientCertificate != "" || c.ClientKey != "" {
			return errors.New("cluster_ca_certificate, token, client_certificate and client_key need host")
		}
		return nil
	}
	if c.ConfigPath != "" || c.ConfigContext != "" {
		return errors.New("give either host (with its credentials) or config_path/config_context, not both")
	}
	if (c.ClientCertificate == "") != (c.ClientKey == "") {
		return errors.New("client_certificate and client_key go together")
	}
	if c.Token == "" && c.ClientCertificate == "" {
		return errors.New("host needs credentials: token, or client_certificate and client_key")
	}
	return nil
}

// Configured reports whether the configuration gives a cluster to talk
// to: the kubeconfig is read and its context chosen, the cluster is not
// contacted.
func (c *Cluster) Configured() error {
	_, _, err := c.client()
	return err
}

func (c *Cluster) client() (kubernetes.Interface, *rest.Config, error) {
	c.once.Do(func() {
		c.rest, c.err = restConfig(c.cfg)
		if c.err != nil {
			return
		}
		c.rest.QPS, c.rest.Burst = 50, 100
		c.rest.UserAgent = "terraform-provider-sandbox"
		c.cs, c.err = kubernetes.NewForConfig(c.rest)
	})
	return c.cs, c.rest, c.err
}

func restConfig(cfg spec.KubernetesConfig) (*rest.Config, error) {
	if err := CheckConfig(cfg); err != nil {
		return nil, err
	}
	if cfg.Host != "" {
		rc := &rest.Config{Host: cfg.Host, BearerToken: cfg.Token}
		rc.CAData = []byte(cfg.ClusterCACertificate)
		rc.CertData, rc.KeyData = []byte(cfg.ClientCertificate), []byte(cfg.ClientKey)
		return rc, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if cfg.ConfigPath != "" {
		p := cfg.ConfigPath
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		rules.ExplicitPath = p
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: cfg.ConfigContext})
	rc, err := loader.ClientConfig()
	if err == nil {
		return rc, nil
	}
	if cfg.ConfigPath == "" && cfg.ConfigContext == "" && clientcmd.IsEmptyConfig(err) {
		if in, ierr := rest.InClusterConfig(); ierr == nil {
			return in, nil
		}
		if kc := os.Getenv("KUBECONFIG"); kc != "" {
			return nil, fmt.Errorf("KUBECONFIG is %q, and no file it names holds a kubeconfig (missing or empty)", kc)
		}
		return nil, errors.New("no Kubernetes cluster configured: no kubeconfig at ~/.kube/config, and the provider is " +
			"not running in a pod")
	}
	return nil, fmt.Errorf("reading the kubeconfig: %w", err)
}

// backoff is how API calls are retried on 429 and 5xx answers.
var backoff = wait.Backoff{Steps: 6, Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.2, Cap: 5 * time.Second}

// retriable reports an API answer worth retrying: too many requests, a
// server error or timeout, or the connection dropped.
func retriable(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err) ||
		isStatus5xx(err)
}

func isStatus5xx(err error) bool {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		code := s.Status().Code
		return code >= 500 && code <= 599
	}
	return false
}

// call runs fn, retrying with backoff while it fails retriably and ctx
// lives.
func call(ctx context.Context, fn func() error) error {
	return retry.OnError(backoff, func(err error) bool { return ctx.Err() == nil && retriable(err) }, fn)
}
