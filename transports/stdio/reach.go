package stdio

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// Program is the child the bridge runs as an agent: its settings as a way
// to reach it (the agent keys command, env and dir).
type Program struct {
	Command []string
	Env     map[string]string
	Dir     string
}

func init() {
	reach.Register(&reach.Way{
		Name: "command", Kind: "stdio", Rank: 30,
		Key: reach.Command("The bridge runs the agent as a child and talks to it on standard input and output, restarting it with backoff when it exits: the program, then its arguments, each one word; no shell."),
		With: []*spec.Node{
			reach.Env().Only("the environment of an agent the bridge runs", "command"),
			reach.Dir().Only("the working directory of an agent the bridge runs", "command"),
		},
		Again:    &reach.Again{Doc: "restarting a `command` agent", Rank: 10},
		Starting: true,
		Bind: func(v *spec.Value) any {
			return Program{Command: v.Strs("command"), Env: v.StrMap("env"), Dir: v.Str("dir")}
		},
		Start: func(ctx context.Context, h reach.Host, a reach.Agent) (func(), error) {
			b, err := transports.Core(h)
			if err != nil {
				return nil, err
			}
			p := a.Settings.(Program)
			sup := New(b, Spec{ID: a.ID, Dialect: a.Dialect, Token: a.Token, Command: p.Command,
				Env: p.Env, Dir: p.Dir, BackoffMin: a.BackoffMin, BackoffMax: a.BackoffMax, Logger: h.Logger})
			return func() {
				if err := sup.Run(ctx); err != nil {
					h.Logger.Error("stdio agent stopped", "agent", a.ID, "error", err)
				}
			}, nil
		},
		Same: reach.SameSettingsAndToken,
	})
}
