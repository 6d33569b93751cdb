package linktest

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// AwaitLost returns a Conn.Lost for an agent attached to b: it waits
// until b lists the agent id as disconnected and UNAVAILABLE, as a lost
// connection leaves it (a detached one is stopped).
func AwaitLost(b *bridge.Bridge, id string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			a, ok := b.Agent(id)
			if ok && !a.Connected && a.Status == bridge.StatusUnavailable {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("agent %s is %s (connected %v): %w", id, a.Status, a.Connected, ctx.Err())
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}
