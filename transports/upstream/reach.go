package upstream

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// Server is how the bridge reaches an MCP server that is an agent: its
// settings as a way to reach it (the agent key mcp). A command run as a
// child on stdio (with Env and Dir), or a streamable HTTP URL (with
// Headers).
type Server struct {
	Command []string
	Env     map[string]string
	Dir     string
	URL     string
	Headers map[string]string
}

func init() {
	reach.Register(&reach.Way{
		Name: "mcp", Kind: "mcp", Rank: 40,
		Key:     serverKey(),
		Dialect: Dialect, Speaker: "an MCP server", Protocol: "MCP",
		Again:    &reach.Again{Doc: "reaching an `mcp` agent again", Rank: 30},
		Starting: true,
		Bind: func(v *spec.Value) any {
			s := v.Get("mcp")
			return Server{Command: s.Strs("command"), Env: s.StrMap("env"), Dir: s.Str("dir"), URL: s.Str("url"), Headers: s.StrMap("headers")}
		},
		Start: func(ctx context.Context, h reach.Host, a reach.Agent) (func(), error) {
			b, err := transports.Core(h)
			if err != nil {
				return nil, err
			}
			s := a.Settings.(Server)
			u := New(b, Spec{ID: a.ID, Command: s.Command, Env: s.Env, Dir: s.Dir,
				URL: s.URL, Headers: s.Headers, BackoffMin: a.BackoffMin, BackoffMax: a.BackoffMax, Logger: h.Logger})
			return func() {
				if err := u.Run(ctx); err != nil {
					h.Logger.Error("MCP server agent stopped", "agent", a.ID, "error", err)
				}
			}, nil
		},
		Same: reach.SameSettings,
	})
}

// serverKey is the key mcp: how to reach an agent that is an MCP server.
func serverKey() *spec.Node {
	headerValue := spec.String("", "").Named(`a value (write "" for an empty one)`).Secret().EmptyOK()
	headers := spec.Map("headers", "HTTP headers sent with every request.", headerValue).
		Named("a mapping (header names to values)").Only("a server over HTTP", "url")
	headers.CheckKey(checkHeaderName)
	f := spec.Object("mcp", "The agent is an MCP server, and the bridge its client: a `command` run on stdio, or a `url` of streamable HTTP. Its tools are the agent's.",
		reach.Command("The server to run, as a child on stdio: the program, then its arguments."),
		reach.Env().Only("a server the bridge runs", "command"),
		reach.Dir().Only("a server the bridge runs", "command"),
		spec.String("url", "The server's streamable HTTP endpoint.").
			Named("an HTTP URL of a streamable HTTP MCP endpoint (http:// or https://)").Typed("URL (`http://`, `https://`)").Check(reach.CheckHTTPURL),
		headers,
	).DefaultIs("none")
	return f.Choice("two ways to reach one MCP server: %s (line %d) and %s; give one",
		"says neither command (a server on stdio) nor url (streamable HTTP)",
		"command", "url")
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
