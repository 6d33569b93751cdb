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

// BenchmarkValidate is a codec's whole Validate (its rules and its
// schema), as the bridge runs it on every message it receives, on the same
// messages.
func BenchmarkValidate(b *testing.B) {
	forBenchMessages(b, func(b *testing.B, c dialects.Codec, msg []byte) {
		if err := c.(interface{ Prepare() error }).Prepare(); err != nil {
			b.Fatal(err)
		}
		if p := c.Validate(msg); len(p) != 0 {
			b.Fatalf("bench message does not validate: %v", p)
		}
		b.ReportAllocs()
		for b.Loop() {
			c.Validate(msg)
		}
	})
}

// BenchmarkRead is what the bridge does with every frame it receives, on
// the same messages: Validate then DecodeValid, each parsing the message
// again ("twice"), against ValidateDecode, the rules and the decoder
// reading it from the schema fast path's tokens ("once").
func BenchmarkRead(b *testing.B) {
	forBenchMessages(b, func(b *testing.B, c dialects.Codec, msg []byte) {
		if err := c.(interface{ Prepare() error }).Prepare(); err != nil {
			b.Fatal(err)
		}
		b.Run("twice", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(c.Validate(msg)) != 0 {
					b.Fatal("bench message does not validate")
				}
				if _, err := dialects.DecodeValid(c, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("once", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if p, _, err := dialects.ValidateDecode(c, msg); len(p) != 0 || err != nil {
					b.Fatal(p, err)
				}
			}
		})
	})
}

func benchmarkCheck(b *testing.B, check func(*dialects.Schema, []byte) []dialects.Problem) {
	forBenchMessages(b, func(b *testing.B, c dialects.Codec, msg []byte) {
		s := dialects.NewSchema(c.Name(), c.Schema())
		if p := check(s, msg); len(p) != 0 {
			b.Fatalf("bench message does not validate: %v", p)
		}
		b.ReportAllocs()
		for b.Loop() {
			check(s, msg)
		}
	})
}

// forBenchMessages runs bench for the translate benchmark message of each
// built-in dialect, with its codec.
func forBenchMessages(b *testing.B, bench func(b *testing.B, c dialects.Codec, msg []byte)) {
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
		b.Run(name, func(b *testing.B) { bench(b, c, msg) })
	}
}
