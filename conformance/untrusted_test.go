package conformance

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestUntrustedAgents checks that what an agent does wrong fails
// requirements and never stops or hangs the suite: an agent that never
// answers, one that floods, one whose frames are over the hard limit, and
// the targets that cannot be started or reached (an error, exit 2).
func TestUntrustedAgents(t *testing.T) {
	t.Run("an agent that never answers", func(t *testing.T) {
		t.Parallel()
		o := testOptions("swarm", 200*time.Millisecond)
		o.Grace = 200 * time.Millisecond
		rep := runTest(t, Command("cat >/dev/null"), o)
		res := byID(rep)
		if r := res["swarm.handshake.response"]; r.Status != Fail || !strings.Contains(r.Detail, "no answer within 200ms") {
			t.Errorf("%s", describe(r))
		}
		for _, r := range rep.Results {
			if r.Level == Must && needsOperation(requirementOf(t, r.ID)) && (r.Status != Skip || !strings.Contains(r.Detail, "declared no operation")) {
				t.Errorf("with no operation to call: %s", describe(r))
			}
		}
		if res["swarm.unknown.answered"].Status != Fail || res["swarm.frames.valid"].Status != Pass {
			t.Errorf("%s\n%s", describe(res["swarm.unknown.answered"]), describe(res["swarm.frames.valid"]))
		}
		if v := rep.Verdict(); v.Code != 1 {
			t.Errorf("verdict %+v", v)
		}
	})

	t.Run("a flood", func(t *testing.T) {
		t.Parallel()
		o := testOptions("swarm", time.Second)
		o.MaxFrames = 500
		rep := runTest(t, testAgent("swarm:flood"), o)
		res := byID(rep)
		if r := res["swarm.frames.valid"]; r.Status != Fail || r.Rule != "a run takes at most 500 frames" {
			t.Errorf("%s", describe(r))
		}
		if !strings.Contains(rep.Stopped, "more than 500 frames") {
			t.Errorf("stopped: %q", rep.Stopped)
		}
		for _, r := range rep.Results {
			if r.ID != "swarm.frames.valid" && r.Status == Fail {
				t.Errorf("a flood fails only the frames: %s", describe(r))
			}
		}
	})

	t.Run("a WebSocket message over the hard limit", func(t *testing.T) {
		t.Parallel()
		big := `{"message_type":"notification","payload":{"blob":"` + strings.Repeat("x", 20<<10) + `"}}`
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			ctx, cancel := context.WithTimeout(context.Background(), testWait)
			defer cancel()
			if c.Write(ctx, websocket.MessageText, []byte(big)) == nil {
				c.Read(ctx) // until the suite hangs up
			}
		}))
		defer srv.Close()
		o := testOptions("swarm", 200*time.Millisecond)
		o.MaxFrame = 1 << 10
		o.Only = []string{"swarm.handshake.response", "swarm.frames.valid"}
		rep := runTest(t, Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/"), o)
		res := byID(rep)
		if r := res["swarm.frames.valid"]; r.Status != Fail || !strings.Contains(r.Rule, "a frame is at most 1024 bytes") {
			t.Errorf("%s", describe(r))
		}
		if r := res["swarm.handshake.response"]; r.Status != Fail {
			t.Errorf("%s", describe(r))
		}
	})

	unreachableCases := []struct {
		name   string
		target func(t *testing.T) Target
		says   string
	}{
		{"a command that exits at once", func(*testing.T) Target { return Command("echo oops >&2; exit 3") }, "the agent exited (exit status 3); its standard error ends: oops"},
		{"a command that does not exist", func(*testing.T) Target { return Command("/nonexistent/agent") }, "exit status 127"},
		{"an empty command", func(*testing.T) Target { return Command(" ") }, "the command is empty"},
		{"nothing at the URL", func(*testing.T) Target { return Dial("ws://127.0.0.1:1/") }, "dialing ws://127.0.0.1:1/"},
		{"no agent connects", func(t *testing.T) Target {
			l, err := Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}, "no agent connected to ws://127.0.0.1:"},
	}
	for _, tc := range unreachableCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := testOptions("swarm", time.Second)
			o.ConnectWait = 300 * time.Millisecond
			_, err := Run(context.Background(), tc.target(t), o)
			if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Run: %v, want ErrUnreachable saying %q", err, tc.says)
			}
		})
	}
}

// TestOptionErrors checks the options Run refuses before it starts
// anything.
func TestOptionErrors(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		says string
	}{
		{"unknown dialect", Options{Dialect: "klingon"}, `no requirements for dialect "klingon"`},
		{"unknown requirement", Options{Dialect: "swarm", Only: []string{"swarm.nope"}}, `swarm has no requirement "swarm.nope"`},
		{"unknown level", Options{Dialect: "swarm", Level: "MAY"}, `level "MAY"`},
		{"args without op", Options{Dialect: "swarm", Arguments: "{}"}, "--args needs --op"},
		{"args not JSON", Options{Dialect: "swarm", Operation: "echo", Arguments: "{"}, "--args is not JSON"},
		{"bluelabel without op", Options{Dialect: "bluelabel"}, "bluelabel agents do not declare their operations: give --op"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), Command("exit 0"), tc.o)
			if err == nil || errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Run: %v, want %q", err, tc.says)
			}
		})
	}
}

// requirementOf returns a requirement by id.
func requirementOf(t *testing.T, id string) Requirement {
	t.Helper()
	s, err := SuiteFor(strings.SplitN(id, ".", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Requirements {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no requirement %s", id)
	return Requirement{}
}
