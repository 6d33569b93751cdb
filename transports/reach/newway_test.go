package reach_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/server/servertest"
	"github.com/mcp-bridge/mcp-bridge/transports"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// loft is the settings of the way pigeon, which this test registers as a
// transport's package does: nothing else in the program knows it.
type loft struct{ Loft string }

// started has the agents the way pigeon was started for.
var started = make(chan reach.Agent, 4)

func init() {
	reach.Register(&reach.Way{
		Name: "pigeon", Kind: "pigeon", Rank: 90,
		Key: spec.Object("pigeon", "The bridge sends the agent's messages by pigeon.",
			spec.String("loft", "Where the pigeons live.").Named("a loft").Required("every pigeon has a loft")),
		Starting: true,
		Bind:     func(v *spec.Value) any { return loft{Loft: v.Get("pigeon").Str("loft")} },
		Start: func(ctx context.Context, h reach.Host, a reach.Agent) (func(), error) {
			if _, err := transports.Core(h); err != nil {
				return nil, err
			}
			started <- a
			return func() { <-ctx.Done() }, nil
		},
		Same: reach.SameSettings,
	})
}

// TestNewWay: a way registered by a package of its own is a key of the
// config's agents, checked, bound, in the schema, and started by the
// server, with no change to the config or the server.
func TestNewWay(t *testing.T) {
	cfg, err := config.Parse("serve.yaml", []byte("listen: 127.0.0.1:0\nagents:\n  - {id: P, dialect: swarm, pigeon: {loft: roof}}\n"), dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agents[0]
	if a.Reach != "pigeon" || a.Reach.String() != "pigeon" || a.Settings != (loft{Loft: "roof"}) {
		t.Errorf("bound as %q (%s), %#v", string(a.Reach), a.Reach, a.Settings)
	}
	for _, tc := range []struct{ text, want string }{
		{"agents:\n  - {id: P, dialect: swarm, url: 'ws://h/', pigeon: {loft: roof}}\n",
			"bad.yaml:2: agents[0].pigeon: two ways to reach one agent: url (line 2) and pigeon; give at most one"},
		{"agents:\n  - id: P\n    dialect: swarm\n    pigeon: {}\n", "bad.yaml:4: agents[0].pigeon.loft: missing: every pigeon has a loft"},
	} {
		if _, err := config.Parse("bad.yaml", []byte(tc.text), dialects.Names()); err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
	if !strings.Contains(string(config.Schema()), `"pigeon"`) {
		t.Error("the schema has no pigeon")
	}
	servertest.Start(t, cfg, servertest.Options{})
	select {
	case got := <-started:
		if got.ID != "P" || got.Dialect != "swarm" || got.Settings != (loft{Loft: "roof"}) {
			t.Errorf("started %+v", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not start the way")
	}
}
