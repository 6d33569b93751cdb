package bridge

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/resilience"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
)

// refusing is a link that takes nothing: every send fails; it counts
// them.
type refusing struct{ sends atomic.Int32 }

func (*refusing) Transport() string { return "test" }
func (r *refusing) Send(context.Context, Outbound) error {
	r.sends.Add(1)
	return errors.New("link down")
}

// TestQueuedFailures: what is told when a message queued for a session
// is not delivered: a request is delivered again by the retry policy, then
// its requester gets an error in place of the answer; an answer the
// requester's link does not take is logged.
func TestQueuedFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		// down is the agent whose link takes nothing.
		down string
		// want is the error the requester gets, "" for an answer; log is
		// what the bridge logs; sends is how often the link was tried.
		want, log string
		sends     int32
	}{
		{name: "request", down: "receiver", want: "not delivered to receiver: link down", sends: 4},
		{name: "answer", down: "requester", log: `"msg":"answer not delivered","receiver":"requester","act":"result","error":"link down"`, sends: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncbuf.Buffer
			retry := resilience.DefaultRetryPolicy // 3 retries
			retry.InitialDelay, retry.MaxDelay = time.Millisecond, 4*time.Millisecond
			b, _ := newTestBridge(t, Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Retry: &retry})
			link := &refusing{}
			attach := func(id string, script func(*canonical.Envelope) []*canonical.Envelope) *scripted {
				if id != tc.down {
					return attachScripted(t, b, "swarm", id, script)
				}
				c, _ := b.Registry().Lookup("swarm")
				a := &scripted{t: t, codec: c, script: script, got: make(chan *canonical.Envelope, 64)}
				s, err := b.Attach(link, AttachOptions{Dialect: "swarm", AgentID: id})
				if err != nil {
					t.Fatal(err)
				}
				a.s = s
				t.Cleanup(s.Detach)
				return a
			}
			answers := make(chan *canonical.Envelope, 4)
			attach("receiver", echo)
			requester := attach("requester", func(env *canonical.Envelope) []*canonical.Envelope {
				answers <- env
				return nil
			})
			req := request("receiver", "echo", `{"text":"hi"}`)
			req.ID, req.Sender = "q-1", canonical.Party{ID: "requester"}
			requester.say(&req)
			switch {
			case tc.want != "":
				select {
				case got := <-answers:
					if got.Error == nil || !strings.Contains(got.Error.Message, tc.want) || got.InReplyTo != "q-1" {
						t.Errorf("the requester got %s %+v in reply to %q, want an error %q", got.Act, got.Error, got.InReplyTo, tc.want)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the requester got nothing")
				}
			default:
				deadline := time.Now().Add(10 * time.Second)
				for !strings.Contains(logs.String(), tc.log) {
					if time.Now().After(deadline) {
						t.Fatalf("no %s in the log:\n%s", tc.log, logs.String())
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			if n := link.sends.Load(); n != tc.sends {
				t.Errorf("the link was tried %d times, want %d", n, tc.sends)
			}
			if n := b.pending.Count(); n != 0 {
				t.Errorf("%d requests still open", n)
			}
		})
	}
}
