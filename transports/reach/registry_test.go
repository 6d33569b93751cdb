package reach_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"

	_ "github.com/mcp-bridge/mcp-bridge/transports/builtin"
)

// TestWays: the built-in ways and this test's pigeon (newway_test.go), in
// the order of their keys, each found by its name.
func TestWays(t *testing.T) {
	var names, kinds []string
	for _, w := range reach.Ways() {
		names, kinds = append(names, w.Name), append(kinds, w.Kind)
		if got, ok := reach.Lookup(w.Name); !ok || got != w {
			t.Errorf("Lookup(%q) = %v, %v", w.Name, got, ok)
		}
	}
	if got, want := strings.Join(names, " "), "url webhook command mcp a2a pigeon"; got != want {
		t.Errorf("ways %s, want %s", got, want)
	}
	if got, want := strings.Join(kinds, " "), "websocket webhook stdio mcp a2a pigeon"; got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
	if _, ok := reach.Lookup("carrier-pigeon"); ok {
		t.Error("found a way no one registered")
	}
}

// TestRegisterRefuses: an incomplete way, one whose key is taken, and one
// registered once the ways were read are refused with a panic naming why.
func TestRegisterRefuses(t *testing.T) {
	whole := func() *reach.Way {
		return &reach.Way{Name: "kite", Kind: "kite", Key: spec.String("kite", "A string."),
			Bind:  func(*spec.Value) any { return nil },
			Start: func(context.Context, reach.Host, reach.Agent) (func(), error) { return func() {}, nil },
			Same:  reach.SameSettings}
	}
	for _, tc := range []struct {
		name   string
		change func(w *reach.Way)
		want   string
	}{
		{"a name that is no key", func(w *reach.Way) { w.Name = "Kite" }, "lower-case"},
		{"no kind", func(w *reach.Way) { w.Kind = "" }, "no Kind"},
		{"a key of another name", func(w *reach.Way) { w.Key = spec.String("tail", "A tail.") }, "the spec of the key kite"},
		{"no start", func(w *reach.Way) { w.Start = nil }, "no Bind, Start or Same"},
		{"a dialect without its speaker", func(w *reach.Way) { w.Dialect = "coo" }, "Speaker and Protocol"},
		{"again without its doc", func(w *reach.Way) { w.Again = &reach.Again{} }, "Again needs its Doc"},
		{"a key with no name", func(w *reach.Way) { w.With = []*spec.Node{spec.String("", "")} }, "no name"},
		{"a key another way has", func(w *reach.Way) { w.With = []*spec.Node{spec.String("env", "Its air.")} }, "the key env is command's already"},
		{"a name another way has", func(w *reach.Way) { w.Name, w.Key = "pigeon", spec.String("pigeon", "A loft.") }, "the key pigeon is pigeon's already"},
		{"after the ways were read", func(*reach.Way) { reach.Ways() }, "the ways were read already"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := whole()
			tc.change(w)
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("panicked with %v, want %q", r, tc.want)
				}
			}()
			reach.Register(w)
		})
	}
}
