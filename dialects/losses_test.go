package dialects

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestExtraPath checks extraPath against Field.Path, for members whose
// hashes collide and for members seen again, and that a member seen again
// costs no allocation.
func TestExtraPath(t *testing.T) {
	fields := []canonical.Field{
		{Key: "top"}, {Parent: "payload", Key: "execution_time"}, {Parent: "payload", Key: "execution_tim_"},
		{Parent: "payloa", Key: "dexecution_time"}, {Parent: "payload.", Key: "xecution_time"}, {Parent: "a", Key: ""},
		{Parent: "a.b", Key: "c"}, {Parent: "a", Key: "b.c"}, {Parent: "header", Key: "x"}, {Parent: "body.error", Key: "x"},
	}
	for range 3 {
		for i := range fields {
			f := &fields[i]
			if got, want := extraPath(f), f.Path(); got != want {
				t.Errorf("extraPath(%q, %q) = %q, want %q", f.Parent, f.Key, got, want)
			}
		}
	}
	f := &canonical.Field{Parent: "payload", Key: "execution_time"}
	extraPath(f)
	if n := testing.AllocsPerRun(100, func() { extraPath(f) }); n != 0 {
		t.Errorf("extraPath allocates %v times for a member seen before", n)
	}
}
