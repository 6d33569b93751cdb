package dialects_test

import (
	"fmt"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// named is a built-in codec under another name.
type named struct {
	dialects.Codec
	name string
}

func (n named) Name() string { return n.name }

// TestRegistryLookup checks Lookup, which scans a short list of names, for
// every name registered and a few that are not, with few codecs and with
// more than the list holds.
func TestRegistryLookup(t *testing.T) {
	base := builtin.Default().Codecs()
	for _, n := range []int{1, len(base), 16, 17, 40} {
		r := dialects.NewRegistry()
		want := map[string]dialects.Codec{}
		for i := range n {
			var c dialects.Codec = base[i%len(base)]
			if i >= len(base) {
				c = named{c, fmt.Sprintf("%s%d", c.Name(), i)}
			}
			if err := r.Register(c); err != nil {
				t.Fatal(err)
			}
			want[c.Name()] = c
		}
		for name, c := range want {
			if got, ok := r.Lookup(name); !ok || got != c {
				t.Errorf("%d codecs: Lookup(%q) = %v, %v", n, name, got, ok)
			}
		}
		for _, name := range []string{"", "nope", "swarm0", "swar", "swarmx"} {
			if _, ok := want[name]; ok {
				continue
			}
			if got, ok := r.Lookup(name); ok {
				t.Errorf("%d codecs: Lookup(%q) = %v, want none", n, name, got)
			}
		}
	}
}
