package httpapi

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// Hook is where the bridge POSTs an agent's messages: its settings as a
// way to reach it (the agent key webhook).
type Hook struct {
	URL string
}

func init() {
	reach.Register(&reach.Way{
		Name: "webhook", Kind: "webhook", Rank: 20,
		Key: spec.String("webhook", "The bridge POSTs each message to the agent here.").
			Named("an HTTP URL (http:// or https://)").Typed("URL (`http://`, `https://`)").Check(reach.CheckHTTPURL),
		Bind:  func(v *spec.Value) any { return Hook{URL: v.Str("webhook")} },
		Start: startHook,
		Same:  reach.SameSettingsAndToken,
	})
}

// startHook attaches the agent's webhook to the bridge, until ctx ends.
func startHook(ctx context.Context, h reach.Host, a reach.Agent) (func(), error) {
	b, err := transports.Core(h)
	if err != nil {
		return nil, err
	}
	url := a.Settings.(Hook).URL
	sess, err := b.Attach(&Webhook{URL: url, Token: a.Token, Client: h.HTTP},
		bridge.AttachOptions{Dialect: a.Dialect, AgentID: a.ID, Token: a.Token, Remote: url, Reached: true})
	if err != nil {
		return nil, err
	}
	return func() { <-ctx.Done(); sess.Detach() }, nil
}
