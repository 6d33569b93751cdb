package conformance

import (
	"context"
	"net"
	"sort"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// referenceSkips are the requirements the reference agents skip, and why:
// they hold only when the agent does something it may leave out.
var referenceSkips = map[string]string{
	"bluelabel.needs_input.resumed": "the reference agent never asks for input",
}

// referenceWarnings are the SHOULDs each reference agent does not meet.
var referenceWarnings = map[string][]string{
	"elizaacl":  nil,
	"collab":    nil,
	"bluelabel": nil,
	"fuse":      nil,
	"swarm":     nil,
	"a2a":       nil,
}

// TestReferenceAgents runs every dialect's suite against the reference
// agent of that dialect over each transport: a child process on stdio, a
// WebSocket server the suite dials (refagent.Listen), and a WebSocket client
// that dials the suite (refagent.Connect). Every requirement passes or is
// skipped for the reason referenceSkips gives, but for the SHOULDs in
// referenceWarnings, which warn.
func TestReferenceAgents(t *testing.T) {
	suites, err := Suites()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Dialects(suites) {
		for _, transport := range []string{"stdio", "dial", "listen"} {
			t.Run(d+"/"+transport, func(t *testing.T) {
				t.Parallel()
				rep := runTest(t, referenceTarget(t, d, transport), testOptions(d, 3*time.Second))
				if len(rep.Results) != len(suites[d].Requirements) {
					t.Errorf("%d results, want one per requirement (%d)", len(rep.Results), len(suites[d].Requirements))
				}
				var warned []string
				for _, res := range rep.Results {
					switch {
					case res.Status == Warn:
						warned = append(warned, res.ID)
					case res.Status == Skip && referenceSkips[res.ID] != "":
					case res.Status != Pass:
						t.Errorf("%s", describe(res))
					}
				}
				sort.Strings(warned)
				if !equalLists(warned, referenceWarnings[d]) {
					t.Errorf("warned on %v, want %v", warned, referenceWarnings[d])
				}
				if v := rep.Verdict(); v.Code != 0 {
					t.Errorf("verdict %+v, want 0", v)
				}
				if rep.OperationsSource != "declared" && suites[d].Introduces() {
					t.Errorf("operations from %q, want declared: %v", rep.OperationsSource, rep.Operations)
				}
			})
		}
	}
}

// referenceTarget starts the reference agent of dialect on a transport.
func referenceTarget(t *testing.T, dialect, transport string) Target {
	t.Helper()
	if transport == "stdio" {
		return testAgent(dialect)
	}
	a, err := refagent.New(refagent.Options{Dialect: dialect})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the agent: %v", err)
		}
	})
	if transport == "dial" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { done <- a.Listen(ctx, ln) }()
		return Dial("ws://" + ln.Addr().String() + "/")
	}
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		_ = a.Connect(ctx, l.URL(), "") // it ends when the suite hangs up
		done <- nil
	}()
	return l
}

func equalLists(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
