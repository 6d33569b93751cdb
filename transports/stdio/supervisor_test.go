package stdio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

func TestRequestRoundTrip(t *testing.T) {
	b := newBridge(t)
	rec := newRecorder()
	spec := childSpec(t, "worker", "echo", rec)
	supervise(t, New(b, spec))
	waitReady(t, b, "worker")
	tr := newTester(t, b)

	for i := range 3 {
		a := tr.call("worker", "process_data", map[string]any{"n": i})
		if a.out.Code != "" || a.frame.MessageType != "response" {
			t.Fatalf("call %d: got %s (code %q), want a response", i, a.out.Frame, a.out.Code)
		}
		if a.frame.SenderID != "worker" {
			t.Errorf("call %d: sender_id %q, want worker", i, a.frame.SenderID)
		}
		echoed, _ := a.frame.Payload.Result["echo"].(map[string]any)
		if n, _ := echoed["n"].(float64); int(n) != i {
			t.Errorf("call %d: echoed %v", i, a.frame.Payload.Result)
		}
	}

	// The child's standard error is logged, with the agent's id; its first
	// line says which process it is and where it runs.
	started := rec.await(t, "agent started", msg("agent started"))
	line := rec.await(t, "the child's first stderr line", func(r record) bool {
		return r.msg == "agent stderr" && strings.HasPrefix(r.attrs["line"], "child pid=")
	})
	if line.attrs["agent"] != "worker" {
		t.Errorf("stderr logged with agent %q, want worker", line.attrs["agent"])
	}
	dir, err := filepath.EvalSymlinks(spec.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "child pid=" + started.attrs["pid"] + " dir=" + dir; line.attrs["line"] != want {
		t.Errorf("stderr line %q, want %q", line.attrs["line"], want)
	}
}

func TestCrashRestarts(t *testing.T) {
	b := newBridge(t)
	rec := newRecorder()
	sup := New(b, childSpec(t, "worker", "echo", rec))
	supervise(t, sup)
	waitReady(t, b, "worker")
	tr := newTester(t, b)

	if a := tr.call("worker", "process_data", nil); a.out.Code != "" {
		t.Fatalf("before the crash: %s", a.out.Frame)
	}
	for round := 1; round <= 2; round++ {
		// The child exits without answering: the request waiting on it is
		// answered unavailable, and a new child serves the next one.
		a := tr.call("worker", "crash", nil)
		if a.out.Code != canonical.ErrUnavailable || a.frame.MessageType != "error" {
			t.Fatalf("round %d: request pending at the crash answered %s (code %q), want an unavailable error", round, a.out.Frame, a.out.Code)
		}
		eventually(t, "the restart", func() bool { return sup.Restarts() >= round })
		if a := tr.call("worker", "process_data", map[string]any{"round": round}); a.out.Code != "" || a.frame.MessageType != "response" {
			t.Fatalf("round %d: after the restart: %s (code %q)", round, a.out.Frame, a.out.Code)
		}
	}
	if got := sup.Restarts(); got != 2 {
		t.Errorf("Restarts() = %d after two crashes, want 2", got)
	}
	exit := rec.await(t, "the crash to be logged", msg("agent exited"))
	if exit.attrs["status"] != "exit status 1" {
		t.Errorf("exit logged with status %q, want exit status 1", exit.attrs["status"])
	}
}

func TestOversizeLine(t *testing.T) {
	b := newBridge(t)
	rec := newRecorder()
	sup := New(b, childSpec(t, "worker", "echo", rec))
	supervise(t, sup)
	waitReady(t, b, "worker")
	tr := newTester(t, b)

	// The child writes a line of size bytes, then its answer.
	const size = 40*chunkSize + 17
	a := tr.call("worker", "big", map[string]any{"size": size})
	if a.out.Code != "" || a.frame.MessageType != "response" {
		t.Fatalf("the line after the oversize one: %s (code %q), want the response", a.out.Frame, a.out.Code)
	}
	over := rec.await(t, "the oversize line to be logged", msg("agent line over the size limit"))
	if over.attrs["size"] != strconv.Itoa(size) {
		t.Errorf("oversize line logged with size %s, want %d", over.attrs["size"], size)
	}
	// The child was told, in swarm, and kept going.
	told := rec.await(t, "the child to report the bridge's error", func(r record) bool {
		return r.msg == "agent stderr" && strings.HasPrefix(r.attrs["line"], "got ")
	})
	if l := told.attrs["line"]; !strings.Contains(l, `"message_type":"error"`) || !strings.Contains(l, strconv.Itoa(size)) {
		t.Errorf("the child was sent %s, want a swarm error naming the size", l)
	}
	if a := tr.call("worker", "process_data", nil); a.out.Code != "" {
		t.Fatalf("next request: %s", a.out.Frame)
	}
	if n := len(rec.find(msg("agent started"))); n != 1 || sup.Restarts() != 0 {
		t.Errorf("%d children started, %d restarts; want the first child to keep going", n, sup.Restarts())
	}
}

func TestShutdown(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		grace time.Duration
		// status is how the child must have ended; empty: either way.
		status string
	}{
		{mode: "echo", grace: patience},
		{mode: "stubborn", grace: 100 * time.Millisecond, status: "signal: killed"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			b := newBridge(t)
			rec := newRecorder()
			spec := childSpec(t, "worker", tc.mode, rec)
			spec.StopGrace = tc.grace
			stop := supervise(t, New(b, spec))
			waitReady(t, b, "worker")
			started := rec.await(t, "agent started", msg("agent started"))
			pid, err := strconv.Atoi(started.attrs["pid"])
			if err != nil {
				t.Fatalf("pid %q: %v", started.attrs["pid"], err)
			}
			// Once the child has set itself up, it is running.
			rec.await(t, "the child's first stderr line", msg("agent stderr"))
			if gone(t, pid) {
				t.Fatalf("child %d not running before the shutdown", pid)
			}
			if err := stop(); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !gone(t, pid) {
				t.Errorf("child %d still running after Run returned", pid)
			}
			for _, a := range b.Agents("") {
				if a.ID == "worker" && a.Status != bridge.StatusStopped {
					t.Errorf("worker is %s after the shutdown, want %s", a.Status, bridge.StatusStopped)
				}
			}
			exited := rec.find(msg("agent exited"))
			if len(exited) != 1 {
				t.Fatalf("%d exits logged, want 1", len(exited))
			}
			if tc.status != "" && exited[0].attrs["status"] != tc.status {
				t.Errorf("exit status %q, want %q", exited[0].attrs["status"], tc.status)
			}
			if n := len(rec.find(msg("agent restarting"))); n != 0 {
				t.Errorf("a stopped agent was restarted %d times", n)
			}
		})
	}
}

func TestRunRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		// declare registers the agent with token "right" first.
		declare bool
		want    string
		// started: a child ran before the bridge refused it.
		started bool
	}{
		{name: "no id", edit: func(s *Spec) { s.ID = "" }, want: "no id"},
		{name: "no command", edit: func(s *Spec) { s.Command = nil }, want: "no command"},
		{name: "missing program", edit: func(s *Spec) { s.Command = []string{filepath.Join(t.TempDir(), "absent")} }, want: "absent"},
		{name: "unknown dialect", edit: func(s *Spec) { s.Dialect = "klingon" }, want: "klingon", started: true},
		{name: "wrong token", edit: func(s *Spec) { s.Token = "wrong" }, declare: true, want: "token", started: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBridge(t)
			rec := newRecorder()
			spec := childSpec(t, "worker", "echo", rec)
			tc.edit(&spec)
			if tc.declare {
				b.Declare(bridge.AgentSpec{ID: "worker", Dialect: "swarm", Token: "right"})
			}
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			err := New(b, spec).Run(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run: %v, want an error naming %q", err, tc.want)
			}
			if ctx.Err() != nil {
				t.Fatal("Run waited for its context instead of refusing")
			}
			if started, exited := len(rec.find(msg("agent started"))), len(rec.find(msg("agent exited"))); started != 0 || exited != 0 {
				t.Errorf("%d children served, %d exited; want none", started, exited)
			}
			// A child started before the bridge refused it is gone.
			refused := rec.find(msg("agent refused by the bridge and stopped"))
			want := 0
			if tc.started {
				want = 1
			}
			if len(refused) != want {
				t.Fatalf("%d children refused, want %d", len(refused), want)
			}
			for _, r := range refused {
				pid, err := strconv.Atoi(r.attrs["pid"])
				if err != nil {
					t.Fatalf("pid %q: %v", r.attrs["pid"], err)
				}
				if !gone(t, pid) {
					t.Errorf("refused child %d still running", pid)
				}
			}
			for _, a := range b.Agents("") {
				if a.Status == bridge.StatusReady {
					t.Errorf("%s is ready after Run refused", a.ID)
				}
			}
		})
	}
}

// gone reports whether process pid has exited and been waited for.
func gone(t *testing.T, pid int) bool {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		return errors.Is(err, os.ErrProcessDone)
	}
	defer p.Release()
	err = p.Signal(syscall.Signal(0))
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("signal 0 to %d: %v", pid, err)
	}
	return err != nil
}

// A child that exits leaving a process of its own on its pipes is
// restarted all the same once StopGrace has passed.
func TestOrphanHoldingPipes(t *testing.T) {
	b := newBridge(t)
	rec := newRecorder()
	spec := childSpec(t, "worker", "orphan", rec)
	spec.StopGrace = 100 * time.Millisecond
	sup := New(b, spec)
	t.Cleanup(func() { // after the supervisor's own cleanup
		for _, r := range rec.find(func(r record) bool { return strings.HasPrefix(r.attrs["line"], "spawned pid=") }) {
			pid, err := strconv.Atoi(strings.TrimPrefix(r.attrs["line"], "spawned pid="))
			if err != nil {
				t.Errorf("%q: %v", r.attrs["line"], err)
				continue
			}
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
				_ = p.Release()
			}
		}
	})
	supervise(t, sup)
	eventually(t, "a restart", func() bool { return sup.Restarts() >= 1 })
	cut := rec.await(t, "the held pipes to be given up", msg("agent output still open after the agent exited; no longer read"))
	if cut.attrs["agent"] != "worker" {
		t.Errorf("logged for agent %q", cut.attrs["agent"])
	}
}
