package ws

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// Remote is where the bridge dials an agent that listens for WebSocket
// connections: its settings as a way to reach it (the agent key url).
type Remote struct {
	URL string
}

func init() {
	reach.Register(&reach.Way{
		Name: "url", Kind: "websocket", Rank: 10,
		Key: spec.String("url", "The bridge dials the agent's WebSocket here, and redials with backoff when the connection drops.").
			Named("a WebSocket URL (ws:// or wss://)").Typed("URL (`ws://`, `wss://`)").
			Check(func(s string) string { return reach.CheckURL(s, "ws", "wss") }),
		Again:    &reach.Again{Doc: "redialling a `url` agent", Rank: 20},
		Starting: true,
		Bind:     func(v *spec.Value) any { return Remote{URL: v.Str("url")} },
		Start: func(ctx context.Context, h reach.Host, a reach.Agent) (func(), error) {
			b, err := transports.Core(h)
			if err != nil {
				return nil, err
			}
			d := &Dialer{Bridge: b, URL: a.Settings.(Remote).URL, AgentID: a.ID, Dialect: a.Dialect, Token: a.Token,
				BackoffMin: a.BackoffMin, BackoffMax: a.BackoffMax, TLS: h.TLS, Logger: h.Logger}
			return func() { d.Run(ctx) }, nil
		},
		Same: reach.SameSettingsAndToken,
	})
}
