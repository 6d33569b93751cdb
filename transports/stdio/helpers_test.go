package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// patience bounds every wait of the tests; nothing is expected to take
// nearly as long.
const patience = 30 * time.Second

// testMaxFrame is the bridge's frame limit in the tests.
const testMaxFrame = 8 << 10

func newBridge(t *testing.T) *bridge.Bridge {
	t.Helper()
	b, err := bridge.New(bridge.Options{
		Registry: builtin.Default(),
		Mappings: dialects.DefaultMappings(),
		MaxFrame: testMaxFrame,
		Logger:   slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// childSpec runs the test binary as the agent id in mode, logging to rec.
func childSpec(t *testing.T, id, mode string, rec *recorder) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{
		ID: id, Dialect: "swarm",
		Command:    []string{exe, "-test.run=^$"},
		Env:        map[string]string{childEnv: mode, idEnv: id},
		Dir:        t.TempDir(),
		BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond,
		StopGrace: patience,
		Logger:    slog.New(rec),
	}
}

// supervise runs sup until the test ends; stop cancels it and returns Run's
// error once Run has returned.
func supervise(t *testing.T, sup *Supervisor) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(patience):
				err = fmt.Errorf("Run did not return within %s of its context's end", patience)
			}
		})
		return err
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	return stop
}

// eventually polls cond until it holds, failing the test after patience.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitReady waits until the bridge lists agent id as connected over stdio.
func waitReady(t *testing.T, b *bridge.Bridge, id string) {
	t.Helper()
	eventually(t, id+" to connect", func() bool {
		for _, a := range b.Agents("") {
			if a.ID == id && a.Status == bridge.StatusReady && a.Transport == "stdio" {
				return true
			}
		}
		return false
	})
}

// testLink is the other party: it collects what the bridge sends it.
type testLink struct{ out chan bridge.Outbound }

func (l *testLink) Send(ctx context.Context, o bridge.Outbound) error {
	select {
	case l.out <- o:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *testLink) Transport() string { return "test" }

// tester is a swarm agent attached to the bridge in process.
type tester struct {
	t    *testing.T
	link *testLink
	sess *bridge.Session
	seq  atomic.Int64
}

func newTester(t *testing.T, b *bridge.Bridge) *tester {
	t.Helper()
	l := &testLink{out: make(chan bridge.Outbound, 64)}
	s, err := b.Attach(l, bridge.AttachOptions{Dialect: "swarm", AgentID: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Detach)
	return &tester{t: t, link: l, sess: s}
}

// answer is a final answer the tester received.
type answer struct {
	out   bridge.Outbound
	frame struct {
		MessageType   string `json:"message_type"`
		SenderID      string `json:"sender_id"`
		CorrelationID string `json:"correlation_id"`
		Payload       struct {
			Result    map[string]any `json:"result"`
			ErrorCode string         `json:"error_code"`
		} `json:"payload"`
	}
}

// call sends a swarm request for tool to agent and returns its final answer.
func (tr *tester) call(agent, tool string, args map[string]any) answer {
	tr.t.Helper()
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", tr.seq.Add(1))
	if args == nil {
		args = map[string]any{}
	}
	req, err := json.Marshal(map[string]any{
		"message_id":     id,
		"message_type":   "request",
		"sender_id":      "tester",
		"receiver_id":    agent,
		"timestamp":      time.Now().UTC().Format("2006-01-02T15:04:05.000000"),
		"correlation_id": nil,
		"priority":       "normal",
		"payload":        map[string]any{"tool_name": tool, "arguments": args, "timeout": 30},
	})
	if err != nil {
		tr.t.Fatal(err)
	}
	if r := tr.sess.Receive(req); !r.Awaiting {
		tr.t.Fatalf("request %s for %s: not awaiting an answer (error %+v)", tool, agent, r.Err)
	}
	timeout := time.After(patience)
	for {
		select {
		case o := <-tr.link.out:
			if !o.Final {
				continue
			}
			var a answer
			a.out = o
			if err := json.Unmarshal(o.Frame, &a.frame); err != nil {
				tr.t.Fatalf("answer to %s: %v in %s", tool, err, o.Frame)
			}
			if a.frame.CorrelationID != id {
				tr.t.Fatalf("answer to %s (%s) has correlation_id %q: %s", tool, id, a.frame.CorrelationID, o.Frame)
			}
			return a
		case <-timeout:
			tr.t.Fatalf("no answer to %s within %s", tool, patience)
		}
	}
}

// recorder is a slog handler keeping every record, for tests to look at.
type recorder struct {
	attrs []slog.Attr
	log   *records
}

type records struct {
	mu   sync.Mutex
	list []record
}

// record is one log record: its message and attributes as text.
type record struct {
	msg   string
	attrs map[string]string
}

func newRecorder() *recorder { return &recorder{log: &records{}} }

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	m := map[string]string{}
	for _, a := range r.attrs {
		m[a.Key] = a.Value.String()
	}
	rec.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.list = append(r.log.list, record{msg: rec.Message, attrs: m})
	return nil
}

func (r *recorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &recorder{attrs: append(r.attrs[:len(r.attrs):len(r.attrs)], as...), log: r.log}
}

func (r *recorder) WithGroup(string) slog.Handler { return r }

// find returns the records matching keep.
func (r *recorder) find(keep func(record) bool) []record {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	var out []record
	for _, rec := range r.log.list {
		if keep(rec) {
			out = append(out, rec)
		}
	}
	return out
}

// await waits for a record matching keep and returns the first.
func (r *recorder) await(t *testing.T, what string, keep func(record) bool) record {
	t.Helper()
	var found []record
	eventually(t, what, func() bool {
		found = r.find(keep)
		return len(found) > 0
	})
	return found[0]
}

// msg matches records with message m.
func msg(m string) func(record) bool {
	return func(r record) bool { return r.msg == m }
}
