// Package linktest is the contract every link (bridge.Link) keeps, as a
// suite each transport runs from its own tests, over real connections: a
// send delivers its message intact; a prompt link's SendNow delivers
// without waiting, and answers bridge.ErrBusy behind a write the queue did
// not make; Close tells the peer why; Abort ends a send in progress; Ping
// succeeds on a live peer and fails on a dead one; Cancel stops the
// peer's work; and a dead peer fails sends and has its session told it
// was lost. A capability a link lacks, or a peer cannot show, is skipped,
// naming why.
package linktest

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// Patience bounds every wait of the suite; nothing should take nearly as
// long.
const Patience = 20 * time.Second

// Conn is one link under test, connected to a live peer, and what the
// suite needs of the peer. Link, Out, Next and Kill are required; a nil
// optional field skips the tests that need it.
type Conn struct {
	// Link is the link the bridge sends on.
	Link bridge.Link
	// Out makes the message that carries payload, a compact JSON object,
	// to the peer: a frame, or an envelope for a link that takes them.
	Out func(payload []byte) bridge.Outbound
	// Next returns the next payload the peer received.
	Next func(ctx context.Context) ([]byte, error)
	// Kill makes the peer dead at once: its process killed, or its
	// connection dropped without a word.
	Kill func()
	// Async marks a link whose Send hands the message on and returns (an
	// MCP server's calls run on their own): a dead peer does not fail the
	// send, and the session must be told the connection was lost instead.
	Async bool

	// Stall makes the peer stop reading until Resume.
	Stall, Resume func()
	// CloseReason waits for the peer to see its connection closed, and
	// returns the reason it was given.
	CloseReason func(ctx context.Context) (string, error)
	// Lost waits until the bridge was told the connection was lost
	// (Session.Lost), after Kill.
	Lost func(ctx context.Context) error
	// Slow makes a message the peer works on until it is cancelled, and
	// the token it goes out under; Working waits until the peer works on
	// it, Cancelled until the peer saw it cancelled.
	Slow               func() (out bridge.Outbound, token string)
	Working, Cancelled func(ctx context.Context) error
	// NoPing, when set, says why the link's Ping cannot tell a dead peer
	// from a live one: the suite skips Ping, naming it.
	NoPing string
}

// Factory connects a fresh link to a live peer, for one test; it cleans
// up with t.Cleanup.
type Factory func(t *testing.T) *Conn

// Run runs the contract against the links f makes, each test on a fresh
// one.
func Run(t *testing.T, f Factory) {
	for _, tc := range []struct {
		name string
		test func(t *testing.T, c *Conn)
	}{
		{"Send", testSend},
		{"SendNow", testSendNow},
		{"Busy", testBusy},
		{"Close", testClose},
		{"Abort", testAbort},
		{"Ping", testPing},
		{"Cancel", testCancel},
		{"DeadPeer", testDeadPeer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := f(t)
			if c.Link == nil || c.Out == nil || c.Next == nil || c.Kill == nil {
				t.Fatal("the factory's Conn lacks Link, Out, Next or Kill")
			}
			tc.test(t, c)
		})
	}
}

// patient returns a context that ends after Patience, or with the test.
func patient(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), Patience)
	t.Cleanup(cancel)
	return ctx
}
