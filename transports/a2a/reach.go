package a2a

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// Card is how the bridge reaches an A2A agent: its settings as a way to
// reach it (the agent key a2a). The URL of its agent card, and the HTTP
// headers sent with every request.
type Card struct {
	URL     string
	Headers map[string]string
}

func init() {
	reach.Register(&reach.Way{
		Name: "a2a", Kind: "a2a", Rank: 50,
		Key:     cardKey(),
		Dialect: Dialect, Speaker: "an A2A agent", Protocol: "A2A",
		Again:    &reach.Again{Doc: "resolving an `a2a` agent's card again", Rank: 40},
		Starting: true,
		Bind: func(v *spec.Value) any {
			s := v.Get("a2a")
			return Card{URL: s.Str("card"), Headers: s.StrMap("headers")}
		},
		Start: func(ctx context.Context, h reach.Host, a reach.Agent) (func(), error) {
			b, err := transports.Core(h)
			if err != nil {
				return nil, err
			}
			c := a.Settings.(Card)
			ag := New(b, Spec{ID: a.ID, Card: c.URL, Headers: c.Headers, BackoffMin: a.BackoffMin, BackoffMax: a.BackoffMax, Logger: h.Logger})
			return func() {
				if err := ag.Run(ctx); err != nil {
					h.Logger.Error("A2A agent stopped", "agent", a.ID, "error", err)
				}
			}, nil
		},
		Same: reach.SameSettings,
	})
}

// cardKey is the key a2a: how to reach an agent that is an A2A agent.
func cardKey() *spec.Node {
	headerValue := spec.String("", "").Named(`a value (write "" for an empty one)`).Secret().EmptyOK()
	headers := spec.Map("headers", "HTTP headers sent with every request (the card's and every call's).", headerValue).
		Named("a mapping (header names to values)")
	headers.CheckKey(checkHeaderName)
	return spec.Object("a2a", "The agent is an A2A agent, and the bridge its client: its agent card is at `card`. Its skills are the agent's tools.",
		spec.String("card", "The URL of the agent's card.").
			Named("an HTTP URL of an A2A agent card (http:// or https://)").Typed("URL (`http://`, `https://`)").
			Check(reach.CheckHTTPURL).Required("an A2A agent is found by its card"),
		headers,
	).DefaultIs("none")
}

// checkHeaderName checks an HTTP header's name (a token of RFC 9110).
func checkHeaderName(k string) string {
	if k == "" || strings.ContainsFunc(k, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) {
		return fmt.Sprintf("%q is not a header name", k)
	}
	return ""
}
