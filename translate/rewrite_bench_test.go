package translate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// BenchmarkApplyMappings is the mapping stage alone: the five rules of
// bench-rewrites.yaml on the nested swarm bench message's arguments.
func BenchmarkApplyMappings(b *testing.B) {
	rules, _ := os.ReadFile(filepath.Join("testdata", "mapping", "bench-rewrites.yaml"))
	m := mappings.MustDefaults()
	if err := m.Add("r.yaml", rules); err != nil {
		b.Fatal(err)
	}
	msg, _ := os.ReadFile(filepath.Join("testdata", "bench", "swarm.json"))
	args := gjson.GetBytes(msg, "payload.arguments").Raw
	ctx := &dialects.EncodeContext{}
	b.ReportAllocs()
	for b.Loop() {
		env := canonical.Envelope{Act: canonical.ActRequest, Operation: canonical.Operation{Name: "build_report"}, Arguments: canonical.JSON(args)}
		ctx.Losses = ctx.Losses[:0]
		if _, err := applyMappings(m, &env, "swarm", "elizaacl", ctx); err != nil {
			b.Fatal(err)
		}
	}
}
