package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/cluster"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// body GETs path from h and returns the status and body.
func body(h http.Handler, path string) (int, string) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// TestReadiness: /healthz answers as soon as the server is built; /readyz
// only while it runs, and says so when its cluster's NATS is unreachable
// (still ready: it serves its own agents).
func TestReadiness(t *testing.T) {
	n, err := cluster.StartEmbedded("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Shutdown)
	cfg := config.Default()
	cfg.Cluster = config.Cluster{NATS: n.URL(), Name: "a", Heartbeat: 100 * time.Millisecond}
	cfg.Listen = "127.0.0.1:0"
	s, err := New(cfg, nil, quiet)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	if code, b := body(h, "/healthz"); code != http.StatusOK || strings.TrimSpace(b) != "ok" {
		t.Errorf("/healthz before Run: %d %q", code, b)
	}
	if code, _ := body(h, "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before Run: %d, want 503", code)
	}
	if s.Cluster() == nil || s.Cluster().Name() != "a" || s.EmbeddedNATS() != "" {
		t.Errorf("cluster %v, embedded NATS %q", s.Cluster(), s.EmbeddedNATS())
	}
	ln, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	eventually(t, "/readyz says ready", func() bool {
		code, b := body(h, "/readyz")
		return code == http.StatusOK && strings.TrimSpace(b) == "ready"
	})
	n.Shutdown()
	eventually(t, "/readyz says the cluster is degraded", func() bool {
		code, b := body(h, "/readyz")
		return code == http.StatusOK && strings.Contains(b, "cluster degraded")
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop")
	}
	if code, _ := body(h, "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz after Run: %d, want 503", code)
	}
}

// TestPProf: Go's profiles are served only when pprof is on.
func TestPProf(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := config.Default()
		cfg.PProf = on
		code, b := body(newServer(t, cfg).Handler(), "/debug/pprof/")
		if (code == http.StatusOK && strings.Contains(b, "goroutine")) != on {
			t.Errorf("pprof %v: %d", on, code)
		}
	}
}

// TestMetricsEndpoint: /metrics serves the registry the server's parts
// registered in.
func TestMetricsEndpoint(t *testing.T) {
	code, b := body(newServer(t, config.Default()).Handler(), "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{"bridge_listener_connections", "mcp_sessions_open", "mcp_tools_list_changed_total", "go_goroutines"} {
		if !strings.Contains(b, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
