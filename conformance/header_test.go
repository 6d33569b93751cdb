package conformance

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// TestHeaders: an agent that asks for a bearer token is reached with the
// headers given (DialWith, A2AWith: --token, --header) and passes; without
// them it is unreachable, and the error says why.
func TestHeaders(t *testing.T) {
	const token = "s3cret"
	header := http.Header{"Authorization": {"Bearer " + token}}
	wsAt := guardedReferenceAgent(t, "swarm", token)
	a2aAt := a2aServer{token: token}.start(t)
	cases := []struct {
		name    string
		target  Target
		o       Options
		refused string // "": the run passes
	}{
		{"WebSocket with the token", DialWith(wsAt, header), testOptions("swarm", 2*time.Second), ""},
		{"WebSocket without it", Dial(wsAt), testOptions("swarm", 2*time.Second), "401"},
		{"A2A with the token", A2AWith(a2aAt, header), a2aOptions(), ""},
		{"A2A without it", A2A(a2aAt), a2aOptions(), "HTTP 401"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.ConnectWait = time.Second
			ctx, cancel := context.WithTimeout(context.Background(), testWait)
			defer cancel()
			rep, err := Run(ctx, tc.target, o)
			if tc.refused != "" {
				if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), tc.refused) {
					t.Errorf("Run: %v, want the agent unreachable, saying %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if v := rep.Verdict(); v.Code != 0 {
				for _, res := range rep.Results {
					if res.Status != Pass {
						t.Log(describe(res))
					}
				}
				t.Errorf("verdict %+v, want exit 0", v)
			}
		})
	}
}

// guardedReferenceAgent serves the reference agent of dialect on a
// WebSocket behind a proxy that lets through only requests carrying token
// as a bearer token, and returns its ws:// URL.
func guardedReferenceAgent(t *testing.T, dialect, token string) string {
	t.Helper()
	a, err := refagent.New(refagent.Options{Dialect: dialect})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Listen(ctx, ln) }()
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: ln.Addr().String()})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the agent: %v", err)
		}
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/"
}
