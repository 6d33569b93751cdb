package tap_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/bridgetest"
	. "github.com/mcp-bridge/mcp-bridge/bridge/tap"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// tapInto taps b into a channel the test reads; the tap stops when the
// test ends.
func tapInto(t *testing.T, b *bridge.Bridge, o Options) *tapLog {
	t.Helper()
	ch := make(chan Traffic, 64)
	tap := Start(b, func(tr Traffic) { ch <- tr }, o)
	t.Cleanup(tap.Stop)
	return &tapLog{ch: ch}
}

// tapLog is what a tap saw, in order.
type tapLog struct {
	ch   chan Traffic
	list []Traffic
}

// find returns the first message the tap saw that keep accepts, waiting
// for it if need be.
func (s *tapLog) find(t *testing.T, keep func(Traffic) bool) Traffic {
	t.Helper()
	for _, tr := range s.list {
		if keep(tr) {
			return tr
		}
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case tr := <-s.ch:
			s.list = append(s.list, tr)
			if keep(tr) {
				return tr
			}
		case <-deadline:
			t.Fatalf("the tap saw no such message; it saw %+v", s.list)
		}
	}
}

// next returns the next message the tap sees.
func (s *tapLog) next(t *testing.T) Traffic {
	t.Helper()
	n := len(s.list)
	return s.find(t, func(Traffic) bool { return len(s.list) > n })
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// TestTapDelivered follows the spec's Eddy -> Jules request (elizaacl to
// swarm) and its answer through the tap: each is seen once delivered, with
// the frame as received and as delivered, and the losses of its
// translation.
func TestTapDelivered(t *testing.T) {
	b, _ := bridgetest.New(t, bridge.Options{})
	ch := tapInto(t, b, Options{})
	bridgetest.Attach(t, b, "swarm", "Jules", bridgetest.Echo)
	eddy := bridgetest.Attach(t, b, "elizaacl", "Eddy", nil)
	frame, err := os.ReadFile("../../examples/eddy-task-request.json")
	if err != nil {
		t.Fatal(err)
	}
	if r := eddy.Session.Receive(bytes.Clone(frame)); r.Err != nil {
		t.Fatal(r.Err)
	}

	req := ch.find(t, func(tr Traffic) bool { return tr.Act == canonical.ActRequest })
	if req.Kind != Delivered || req.From != "Eddy" || req.FromDialect != "elizaacl" || req.To != "Jules" ||
		req.ToDialect != "swarm" || req.Operation != "debug_code" || req.ByBridge {
		t.Errorf("request: %+v", req)
	}
	if !sameJSON(t, req.Received, frame) || req.ReceivedSize != len(frame) {
		t.Errorf("request received as\n%s\nwant\n%s", req.Received, frame)
	}
	if !strings.Contains(string(req.Delivered), `"tool_name":"debug_code"`) || req.DeliveredSize < len(req.Delivered) {
		t.Errorf("request delivered as %s", req.Delivered)
	}
	var lost []string
	for _, l := range req.Losses {
		lost = append(lost, l.Kind+" "+l.Field)
	}
	for _, want := range []string{"dropped reply_with", "dropped language", "dropped ontology"} {
		if !strings.Contains(strings.Join(lost, ", "), want) {
			t.Errorf("losses %v, want %q among them", lost, want)
		}
	}
	if req.Latency <= 0 || req.Time.IsZero() {
		t.Errorf("request: latency %v at %v, want both set", req.Latency, req.Time)
	}

	answer := ch.find(t, func(tr Traffic) bool { return tr.Act == canonical.ActResult })
	if answer.From != "Jules" || answer.FromDialect != "swarm" || answer.To != "Eddy" || answer.ToDialect != "elizaacl" ||
		answer.Outcome != canonical.OutcomeSuccess {
		t.Errorf("answer: %+v", answer)
	}
	if !strings.Contains(string(answer.Received), `"message_type":"response"`) ||
		!strings.Contains(string(answer.Delivered), `"performative":"INFORM_RESULT"`) {
		t.Errorf("answer received as %s, delivered as %s", answer.Received, answer.Delivered)
	}
}

// TestTapByBridge: the timeout the bridge answers a request with, on its
// receiver's behalf, is seen as the bridge's, with no frame received.
func TestTapByBridge(t *testing.T) {
	b, _ := bridgetest.New(t, bridge.Options{RequestTimeout: 50 * time.Millisecond, Retry: &bridge.RetryPolicy{}})
	ch := tapInto(t, b, Options{})
	bridgetest.Attach(t, b, "collab", "silent", nil)
	asker := bridgetest.Attach(t, b, "swarm", "asker", nil)
	asker.Session.Receive([]byte(`{"message_id":"m-1","message_type":"request","sender_id":"asker","receiver_id":"silent","timestamp":"2026-01-10T14:30:00Z","payload":{"tool_name":"echo","arguments":{}}}`))
	timeout := ch.find(t, func(tr Traffic) bool { return tr.To == "asker" })
	if timeout.Kind != Delivered || !timeout.ByBridge || timeout.FromDialect != "bridge" || timeout.Received != nil ||
		timeout.Error == nil || timeout.Error.Code != canonical.ErrTimeout || !strings.Contains(string(timeout.Delivered), `"message_type":"error"`) {
		t.Errorf("timeout: %+v\ndelivered %s", timeout, timeout.Delivered)
	}
}

// TestTapRefused: a frame that is not JSON and a request for an agent the
// bridge does not know are seen refused, each with the frame as it came
// and the error sent back.
func TestTapRefused(t *testing.T) {
	b, _ := bridgetest.New(t, bridge.Options{})
	ch := tapInto(t, b, Options{})
	sender := bridgetest.Attach(t, b, "swarm", "asker", nil)

	sender.Session.Receive([]byte("not json"))
	bad := ch.next(t)
	if bad.Kind != Refused || bad.From != "asker" || bad.FromDialect != "swarm" || string(bad.Received) != "not json" ||
		bad.Error == nil || bad.Error.Code != canonical.ErrInvalidMessage || !strings.Contains(string(bad.Delivered), `"message_type":"error"`) {
		t.Errorf("malformed frame: %+v\nreceived %s\ndelivered %s", bad, bad.Received, bad.Delivered)
	}

	frame := []byte(`{"message_id":"m-1","message_type":"request","sender_id":"asker","receiver_id":"nobody","timestamp":"2026-01-10T14:30:00Z","payload":{"tool_name":"echo","arguments":{}}}`)
	sender.Session.Receive(bytes.Clone(frame))
	unknown := ch.next(t)
	if unknown.Kind != Refused || unknown.To != "nobody" || unknown.Act != canonical.ActRequest || unknown.Operation != "echo" ||
		unknown.Error == nil || unknown.Error.Code != canonical.ErrNotFound || !sameJSON(t, unknown.Received, frame) {
		t.Errorf("unknown receiver: %+v\nreceived %s", unknown, unknown.Received)
	}
}

// TestTapRedacts: a credential in a message never reaches a tap, neither
// as received nor as delivered; a frame over the tap's limit is clipped,
// and redacted all the same.
func TestTapRedacts(t *testing.T) {
	b, _ := bridgetest.New(t, bridge.Options{})
	ch := tapInto(t, b, Options{FrameLimit: 300})
	bridgetest.Attach(t, b, "collab", "keeper", nil)
	sender := bridgetest.Attach(t, b, "swarm", "asker", nil)
	for _, text := range []string{"short", strings.Repeat("long ", 100)} {
		frame := []byte(`{"message_id":"m-` + text[:4] + `","message_type":"notification","sender_id":"asker","receiver_id":"keeper","timestamp":"2026-01-10T14:30:00Z",` +
			`"payload":{"event_type":"login","data":{"token":"s3cret-value","text":"` + text + `"}}}`)
		if r := sender.Session.Receive(bytes.Clone(frame)); r.Err != nil {
			t.Fatal(r.Err)
		}
		tr := ch.next(t)
		for name, f := range map[string][]byte{"received": tr.Received, "delivered": tr.Delivered} {
			if bytes.Contains(f, []byte("s3cret")) || !bytes.Contains(f, []byte("[REDACTED]")) {
				t.Errorf("%s frame (%d bytes) shows its token: %s", name, len(f), f)
			}
			if len(f) > 300 {
				t.Errorf("%s frame of %d bytes, over the limit of 300", name, len(f))
			}
		}
		if tr.ReceivedSize != len(frame) {
			t.Errorf("received size %d, want %d", tr.ReceivedSize, len(frame))
		}
	}
	// A frame that is not JSON is shown as it came, unless it may hold a
	// secret.
	sender.Session.Receive([]byte(`{"payload": {"token": "s3cret-value",`))
	if tr := ch.next(t); bytes.Contains(tr.Received, []byte("s3cret")) || !bytes.Contains(tr.Received, []byte("[REDACTED]")) {
		t.Errorf("a malformed frame with a token shows as %s", tr.Received)
	}
}

// TestTapSlow: a tap that does not keep up loses messages, counted, and
// never holds up the bridge; once stopped, it costs the bridge nothing.
func TestTapSlow(t *testing.T) {
	b, _ := bridgetest.New(t, bridge.Options{})
	release := make(chan struct{})
	got := make(chan Traffic, 64)
	var started atomic.Int64
	tap := Start(b, func(tr Traffic) { started.Add(1); <-release; got <- tr }, Options{Buffer: 1})
	keeper := bridgetest.Attach(t, b, "collab", "keeper", nil)
	sender := bridgetest.Attach(t, b, "swarm", "asker", nil)
	const n = 20
	for i := range n {
		frame := []byte(`{"message_id":"m-` + string(rune('a'+i)) + `","message_type":"notification","sender_id":"asker","receiver_id":"keeper","timestamp":"2026-01-10T14:30:00Z","payload":{"event_type":"tick","data":{}}}`)
		if r := sender.Session.Receive(frame); r.Err != nil {
			t.Fatal(r.Err)
		}
		<-keeper.Got // delivered, while the tap is stuck
	}
	// Every message is told to the tap once its link took it: it is in
	// the tap's function, in its buffer, or dropped.
	deadline := time.Now().Add(5 * time.Second)
	for started.Load()+int64(tap.Waiting())+int64(tap.Dropped()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the tap was told of %d, holds %d and dropped %d of %d messages", started.Load(), tap.Waiting(), tap.Dropped(), n)
		}
		time.Sleep(time.Millisecond)
	}
	dropped := tap.Dropped()
	if dropped < n-2 {
		t.Errorf("%d of %d messages dropped by a tap that holds one and is stuck on another", dropped, n)
	}
	close(release)
	for range n - int(dropped) {
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			t.Fatalf("the tap dropped %d of %d messages, and never showed the others", dropped, n)
		}
	}
	tap.Stop()
	before := tap.Dropped()
	frame := []byte(`{"message_id":"m-after","message_type":"notification","sender_id":"asker","receiver_id":"keeper","timestamp":"2026-01-10T14:30:00Z","payload":{"event_type":"tick","data":{}}}`)
	if r := sender.Session.Receive(frame); r.Err != nil {
		t.Fatal(r.Err)
	}
	<-keeper.Got
	if tap.Waiting() != 0 || tap.Dropped() != before {
		t.Errorf("a stopped tap was still told of a message: %d waiting, %d dropped (%d before)", tap.Waiting(), tap.Dropped(), before)
	}
}
