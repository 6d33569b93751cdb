package mcpface

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLogStatus: a session that set a log level hears of agents coming
// and going, from the logger mcp-bridge: a warning when one becomes
// UNAVAILABLE.
func TestLogStatus(t *testing.T) {
	l := serve(t, Options{})
	var mu sync.Mutex
	var heard []string
	opts := &sdk.ClientOptions{}
	//lint:ignore SA1019 logging is what the face offers sessions of 2025-11-25; deprecated only from 2026-07-28
	opts.LoggingMessageHandler = func(_ context.Context, r *sdk.LoggingMessageRequest) {
		data, _ := json.Marshal(r.Params.Data)
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, string(r.Params.Level)+" "+r.Params.Logger+" "+string(data))
	}
	c := l.connectWith("", "2025-11-25", opts)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	//lint:ignore SA1019 as above
	if err := c.s.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	calc := l.attach("swarm", "calc", "add")
	calc.stop()
	saw := func(level, status string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(heard, func(h string) bool {
			return strings.HasPrefix(h, level+" mcp-bridge ") && strings.Contains(h, `"agent":"calc"`) && strings.Contains(h, `"status":"`+status+`"`)
		})
	}
	eventually(t, "an info line: calc READY", func() bool { return saw("info", "READY") })
	eventually(t, "a line of calc's disconnection", func() bool {
		return saw("warning", "UNAVAILABLE") || saw("info", "STOPPED")
	})
}

// TestCompletion: the id of the agents resource template completes from
// the agents the bridge knows that the request's token may see; other
// arguments and templates complete to nothing.
func TestCompletion(t *testing.T) {
	l := serve(t, Options{})
	l.attach("swarm", "calc", "add")
	l.attach("swarm", "cart", "add")
	l.attach("fuse", "other", "add")
	for _, tc := range []struct {
		name  string
		s     *scope
		uri   string
		arg   string
		value string
		want  []string
	}{
		{"by prefix", nil, agentsTemplate, "id", "ca", []string{"calc", "cart"}},
		{"all", nil, agentsTemplate, "id", "", []string{"calc", "cart", "other"}},
		{"scoped", &scope{agents: []string{"cart", "other"}}, agentsTemplate, "id", "ca", []string{"cart"}},
		{"another argument", nil, agentsTemplate, "name", "ca", []string{}},
		{"another template", nil, "mcp-bridge://other/{id}", "id", "ca", []string{}},
	} {
		ctx := context.Background()
		if tc.s != nil {
			ctx = context.WithValue(ctx, scopeKey{}, tc.s)
		}
		got, err := l.f.CompleteResourceArgument(ctx, tc.uri, mcp.CompleteArgument{Name: tc.arg, Value: tc.value}, mcp.CompleteContext{})
		if err != nil || !slices.Equal(got.Values, tc.want) || got.Total != len(tc.want) {
			t.Errorf("%s: %+v, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
