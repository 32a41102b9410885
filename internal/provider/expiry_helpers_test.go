package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// warningLog records the warnings the provider sends the CLI from plans and
// refreshes, as the CLI prints them.
type warningLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *warningLog) add(diags []*tfprotov6.Diagnostic) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			l.seen = append(l.seen, d.Summary+": "+d.Detail)
		}
	}
}

func (l *warningLog) reset() {
	l.mu.Lock()
	l.seen = nil
	l.mu.Unlock()
}

// find returns the first warning holding every part.
func (l *warningLog) find(parts ...string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, w := range l.seen {
		for _, p := range parts {
			if !strings.Contains(w, p) {
				continue next
			}
		}
		return w, true
	}
	return "", false
}

// recordingServer is the provider server with its plan and read warnings
// recorded.
type recordingServer struct {
	tfprotov6.ProviderServer
	log *warningLog
}

func (s recordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.log.add(resp.Diagnostics)
	}
	return resp, err
}

func (s recordingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	if resp != nil {
		s.log.add(resp.Diagnostics)
	}
	return resp, err
}

// recordingFactories serve the provider with its warnings recorded in log.
func recordingFactories(log *warningLog) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"sandbox": func() (tfprotov6.ProviderServer, error) {
			s, err := providerserver.NewProtocol6WithError(New("test")())()
			return recordingServer{ProviderServer: s, log: log}, err
		},
	}
}

// expectWarning is a plan check: the plan (or its refresh) warned with a
// message holding every part, computed when the check runs.
type expectWarning struct {
	log   *warningLog
	parts func() []string
}

func (c expectWarning) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	parts := c.parts()
	if _, ok := c.log.find(parts...); !ok {
		c.log.mu.Lock()
		defer c.log.mu.Unlock()
		resp.Error = fmt.Errorf("no warning holding %q; warnings: %q", parts, c.log.seen)
	}
}

// expiresAtOf reads expires_at from state and checks it is lifetime after
// the apply that just created the workspace (a few seconds allowed).
func expiresAtOf(t *testing.T, s *terraform.State, addr string, lifetime time.Duration, out *time.Time) error {
	t.Helper()
	v := s.RootModule().Resources[addr].Primary.Attributes["expires_at"]
	at, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return fmt.Errorf("expires_at %q: %w", v, err)
	}
	if !strings.HasSuffix(v, "Z") {
		return fmt.Errorf("expires_at %q is not UTC", v)
	}
	if left := time.Until(at); left > lifetime+time.Second || left < lifetime-30*time.Second {
		return fmt.Errorf("expires_at %s is %s away, want about %s", v, left.Round(time.Second), lifetime)
	}
	*out = at
	return nil
}

// sleepUntil waits until t.
func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}
