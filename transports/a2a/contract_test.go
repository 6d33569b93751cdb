package a2a

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/transports/linktest"
)

// TestLinkContract runs the link contract on the link of a real A2A agent
// on loopback, streaming and not: its skill record reports the arguments
// of each call, and hang works until its task is cancelled. Each link is
// attached to a bridge and carried as Run carries it.
func TestLinkContract(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			linktest.Run(t, func(t *testing.T) *linktest.Conn { return contractConn(t, streaming) })
		})
	}
}

// contractConn opens a test agent's link on a bridge, as the agent
// planner, and carries it as Run does.
func contractConn(t *testing.T, streaming bool) *linktest.Conn {
	ta := startAgent(t, a2a.TransportProtocolJSONRPC, streaming)
	b := newBridge(t, 0)
	lost := linktest.AwaitLost(t, b, "planner")
	ag := New(b, Spec{ID: "planner", Card: ta.cardURL(), PollEvery: 20 * time.Millisecond, Logger: quiet()})
	ctx, cancel := context.WithCancel(context.Background())
	c, err := ag.open(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-ctx.Done():
			c.sess.Detach()
		case err := <-c.lost:
			c.sess.Lost(err)
		}
		c.l.close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	var seq atomic.Int64
	request := func(skill string, args []byte) (bridge.Outbound, string) {
		token := fmt.Sprintf("req-%d", seq.Add(1))
		return bridge.Outbound{Env: &canonical.Envelope{Act: canonical.ActRequest, ID: token,
			Sender: canonical.Party{ID: "tester"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "planner"},
			Operation: canonical.Operation{Name: skill}, Arguments: canonical.JSON(args)}}, token
	}
	conn := &linktest.Conn{
		Link:  c.l,
		Async: true,
		Out: func(p []byte) bridge.Outbound {
			out, _ := request("record", p)
			return out
		},
		Next: func(ctx context.Context) ([]byte, error) {
			select {
			case args := <-ta.exec.got:
				return args, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		Kill: func() {
			ta.srv.CloseClientConnections()
			ta.srv.Close()
		},
		Lost: lost,
	}
	conn.Slow = func() (bridge.Outbound, string) { return request("hang", []byte(`{}`)) }
	conn.Working = func(ctx context.Context) error {
		select {
		case <-ta.exec.working:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	conn.Cancelled = func(ctx context.Context) error {
		select {
		case <-ta.exec.cancelled:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return conn
}
