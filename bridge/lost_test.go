package bridge

import (
	"errors"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestLateFrameAfterLost: a frame read from a connection after it was
// lost (the transport's reader had it already) is no news of its agent,
// which stays UNAVAILABLE.
func TestLateFrameAfterLost(t *testing.T) {
	b, _ := newTestBridge(t, Options{})
	a := attachScripted(t, b, "swarm", "gone", nil)
	attachScripted(t, b, "swarm", "other", nil)
	a.s.Lost(errors.New("reset by peer"))
	if info, _ := b.Agent("gone"); info.Status != StatusUnavailable {
		t.Fatalf("after the loss: %s", info.Status)
	}
	a.say(&canonical.Envelope{ID: "late-1", Act: canonical.ActEvent, Sender: canonical.Party{ID: "gone"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "other"}, Operation: canonical.Operation{Name: "tick"}, Arguments: `{}`})
	if info, _ := b.Agent("gone"); info.Status != StatusUnavailable {
		t.Errorf("a late frame made the lost agent %s", info.Status)
	}
}
