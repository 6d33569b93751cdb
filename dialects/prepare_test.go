package dialects_test

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestPrepare: every built-in dialect's schema compiles when prepared; a
// codec whose schema does not compile says so, naming its dialect.
func TestPrepare(t *testing.T) {
	if err := builtin.Default().Prepare(); err != nil {
		t.Fatalf("the built-in dialects: %v", err)
	}
	b := dialects.NewBase("broken", []byte(`{"type": 5}`), nil)
	err := b.Prepare()
	if err == nil || !strings.Contains(err.Error(), "broken: schema") {
		t.Fatalf("a schema that does not compile: %v", err)
	}
}
