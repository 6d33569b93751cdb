package dialects_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// BenchmarkSchemaCheck validates the translate benchmark message of each
// built-in dialect against the dialect's schema.
func BenchmarkSchemaCheck(b *testing.B) { benchmarkCheck(b, (*dialects.Schema).Check) }

// BenchmarkSchemaCheckBefore is BenchmarkSchemaCheck with the oracle, Check
// as it was, to compare with on the same machine.
func BenchmarkSchemaCheckBefore(b *testing.B) { benchmarkCheck(b, dialects.CheckBefore) }

func benchmarkCheck(b *testing.B, check func(*dialects.Schema, []byte) []dialects.Problem) {
	files, err := filepath.Glob("../translate/testdata/bench/*.json")
	if err != nil || len(files) == 0 {
		b.Fatalf("no bench messages: %v", err)
	}
	reg := builtin.Default()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		c, ok := reg.Lookup(name)
		if !ok {
			b.Fatalf("%s: no codec", name)
		}
		msg, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		s := dialects.NewSchema(name, c.Schema())
		if p := check(s, msg); len(p) != 0 {
			b.Fatalf("%s: bench message does not validate: %v", name, p)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(s, msg)
			}
		})
	}
}
