//go:build bench

package workspace_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// fleetSize and fleetParallelism: 50 workspaces of 3 files each, created
// and destroyed 10 at a time, as `terraform apply` does with its default
// -parallelism=10.
const (
	fleetSize        = 50
	fleetFiles       = 3
	fleetParallelism = 10
)

// runFleet creates fleetSize workspaces with create, writes fleetFiles
// files into each, then destroys them all, fleetParallelism at a time, and
// returns the two wall times.
func runFleet(t *testing.T, eng *workspace.Engine, create func(context.Context) (*workspace.Workspace, error)) (apply, destroy time.Duration) {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, fleetSize)
	each := func(fn func(i int) error) time.Duration {
		start := time.Now()
		sem := make(chan struct{}, fleetParallelism)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []string
		for i := range fleetSize {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				if err := fn(i); err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("%d of %d failed, first: %s", len(errs), fleetSize, errs[0])
		}
		return time.Since(start)
	}
	apply = each(func(i int) error {
		w, err := create(ctx)
		if err != nil {
			return err
		}
		ids[i] = w.ID
		for f := range fleetFiles {
			body := strings.Repeat(fmt.Sprintf("workspace %d file %d\n", i, f), 64)
			if _, err := w.WriteFile(ctx, fmt.Sprintf("task/file%d.txt", f), strings.NewReader(body), workspace.Meta{Perm: 0o644}, ""); err != nil {
				return err
			}
		}
		return nil
	})
	destroy = each(func(i int) error { return eng.Destroy(ctx, ids[i], false) })
	return apply, destroy
}

// TestFleetBenchmark applies 50 pod workspaces of 3 files each on the test
// cluster, and 50 Docker workspaces on the same machine, and prints the
// wall times side by side. Built only with the `bench` tag.
func TestFleetBenchmark(t *testing.T) {
	cs, _ := kubetest.Cluster(t)
	dockertest.Require(t)
	ns := kubetest.Namespace(t, cs, "sandbox-fleet")
	eng := workspace.New(workspace.Config{Kubernetes: spec.KubernetesConfig{ConfigPath: os.Getenv("KUBECONFIG")}})
	kApply, kDestroy := runFleet(t, eng, func(ctx context.Context) (*workspace.Workspace, error) {
		return eng.CreateKubernetes(ctx, spec.Kubernetes{Namespace: ns, Image: kubetest.WorkspaceImage, ImagePullPolicy: "Never"})
	})
	dApply, dDestroy := runFleet(t, eng, func(ctx context.Context) (*workspace.Workspace, error) {
		return eng.CreateDocker(ctx, spec.Docker{Image: dockertest.Image, PullPolicy: "never"})
	})
	fmt.Printf("fleet of %d workspaces x %d files, %d at a time:\n", fleetSize, fleetFiles, fleetParallelism)
	fmt.Printf("  kubernetes pods:    apply %6.1f s, destroy %6.1f s\n", kApply.Seconds(), kDestroy.Seconds())
	fmt.Printf("  docker containers:  apply %6.1f s, destroy %6.1f s\n", dApply.Seconds(), dDestroy.Seconds())
	fmt.Printf("  pods / containers:  apply %6.2fx, destroy %6.2fx\n", kApply.Seconds()/dApply.Seconds(), kDestroy.Seconds()/dDestroy.Seconds())
}
