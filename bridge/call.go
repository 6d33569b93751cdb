package bridge

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// The call API: code in the bridge's process (the MCP face) sends canonical
// envelopes to the agents and gets canonical envelopes back, with the same
// routing, correlation, retries, breakers, dedupe, time limits and metrics
// as any agent's message (package route).

// Progress is one step of a call on its way.
type Progress = route.Progress

// The stages of Progress.
const (
	StageDelivered = route.StageDelivered
	StageAccepted  = route.StageAccepted
	StageEvent     = route.StageEvent
)

// CallOption configures one Call.
type CallOption = route.CallOption

// Pending is a call on its way (Bridge.Go).
type Pending = route.Pending

// WithProgress has fn told of the call's progress (route.WithProgress).
func WithProgress(fn func(Progress)) CallOption { return route.WithProgress(fn) }

// WithInputs has fn asked for what an agent needs before it can go on
// (route.WithInputs).
func WithInputs(fn func(ctx context.Context, ask *canonical.Envelope) (canonical.JSON, error)) CallOption {
	return route.WithInputs(fn)
}

// Call sends the request req to the agent its receiver names and waits for
// the answer (route.Router.Call says what comes back).
func (b *Bridge) Call(ctx context.Context, req canonical.Envelope, opts ...CallOption) (canonical.Envelope, error) {
	return b.r.Call(ctx, req, opts...)
}

// Go sends req as Call does and returns at once (route.Router.Go).
func (b *Bridge) Go(ctx context.Context, req canonical.Envelope, opts ...CallOption) *Pending {
	return b.r.Go(ctx, req, opts...)
}

// Send routes a message that expects no answer and returns once it is
// queued for its receivers (route.Router.Send).
func (b *Bridge) Send(ctx context.Context, msg canonical.Envelope) error { return b.r.Send(ctx, msg) }
