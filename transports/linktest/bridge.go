package linktest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
)

// AwaitLost returns a Conn.Lost for the agent id attached to b: it waits
// until b made the agent UNAVAILABLE, as a lost connection does (a
// detached one is stopped). It watches b's events from the call on, until
// the test ends.
func AwaitLost(t *testing.T, b *bridge.Bridge, id string) func(ctx context.Context) error {
	lost := make(chan struct{})
	var once sync.Once
	stop := b.Subscribe(event.Func(func(e event.Event) {
		if e.Kind == event.Status && e.Agent == id && e.Change.Status == string(bridge.StatusUnavailable) {
			once.Do(func() { close(lost) })
		}
	}))
	t.Cleanup(stop)
	return func(ctx context.Context) error {
		select {
		case <-lost:
			return nil
		case <-ctx.Done():
			a, _ := b.Agent(id)
			return fmt.Errorf("agent %s is %s (connected %v): %w", id, a.Status, a.Connected, ctx.Err())
		}
	}
}
