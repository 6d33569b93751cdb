package console

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/tap"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestRecorder: the console taps the traffic only once someone has it
// open, goes on while a stream is open, and stops recordIdle after the
// last request.
func TestRecorder(t *testing.T) {
	m := dialects.DefaultMappings()
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{Registry: reg, Mappings: m, Heartbeat: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{b: b, fn: func(tap.Traffic) {}}
	recording := func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.tap != nil }
	if recording() {
		t.Fatal("recording before anyone looked")
	}
	r.touch()
	if !recording() {
		t.Fatal("not recording after a request")
	}
	release := r.hold()
	r.idle(time.Now().Add(2 * recordIdle))
	if !recording() {
		t.Error("stopped while a stream is open")
	}
	release()
	r.idle(time.Now().Add(recordIdle / 2))
	if !recording() {
		t.Error("stopped before recordIdle passed")
	}
	r.idle(time.Now().Add(2 * recordIdle))
	if recording() {
		t.Error("still recording recordIdle after the last request")
	}
	r.stop()
	r.touch()
	if recording() {
		t.Error("recording again after the console closed")
	}
}
