package translate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// BenchRewriteRules returns the default mappings with the five rewrite
// rules of testdata/mapping/bench-rewrites.yaml, which all apply to the
// nested swarm bench message translated to elizaacl.
func BenchRewriteRules(tb testing.TB) *mappings.Set {
	rules, err := os.ReadFile(filepath.Join("testdata", "mapping", "bench-rewrites.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	m := dialects.DefaultMappings()
	if err := m.Add("bench-rewrites.yaml", rules); err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkApplyMappings is the mapping stage alone: the five rules of
// bench-rewrites.yaml on the nested swarm bench message's arguments.
func BenchmarkApplyMappings(b *testing.B) {
	m := BenchRewriteRules(b)
	msg, _ := os.ReadFile(filepath.Join("testdata", "bench", "swarm.json"))
	args := gjson.GetBytes(msg, "payload.arguments").Raw
	tr := &Translator{Registry: builtin.Default(), Mappings: m}
	ctx := &dialects.EncodeContext{}
	b.ReportAllocs()
	for b.Loop() {
		env := canonical.Envelope{Act: canonical.ActRequest, Operation: canonical.Operation{Name: "build_report"}, Arguments: canonical.JSON(args)}
		ctx.Losses = ctx.Losses[:0]
		if _, err := tr.applyMappings(&env, "swarm", "elizaacl", false, ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRewriteNodes is the same edits as BenchmarkApplyMappings by the
// node engine alone, which applies the edits a plan cannot take.
func BenchmarkRewriteNodes(b *testing.B) {
	m := BenchRewriteRules(b)
	msg, _ := os.ReadFile(filepath.Join("testdata", "bench", "swarm.json"))
	args := gjson.GetBytes(msg, "payload.arguments").Raw
	var edits []mappings.Edit
	for _, r := range m.Rewrites() {
		if r.When.Matches("swarm", "elizaacl", canonical.ActRequest, "build_report") {
			edits = append(edits, r.Do...)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		env := canonical.Envelope{Arguments: canonical.JSON(args)}
		p := payload{env: &env}
		for _, e := range edits {
			if err := p.apply(e); err != nil {
				b.Fatal(err)
			}
		}
		p.commit()
	}
}
