package a2a_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/a2a"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// This test binary imports dialects/a2a beside the built-in dialects, so
// their registry holds a2a as it will once dialects/builtin imports it.

// TestDetectAmongBuiltins checks that --from auto knows every sample of
// every dialect, a2a's among them, for what it is: a2a takes no other
// dialect's frames.
func TestDetectAmongBuiltins(t *testing.T) {
	reg := builtin.Default()
	if _, ok := reg.Lookup(a2a.Name); !ok {
		t.Fatal("a2a is not registered")
	}
	tr := &translate.Translator{Registry: reg}
	for _, d := range dialects.Names() {
		for _, s := range dialecttest.Samples(t, filepath.Join("..", d, dialecttest.SamplesDir)) {
			got, err := tr.Source(translate.Auto, s.Data)
			if err != nil || got.Name() != d {
				t.Errorf("%s/%s: detected as %v (%v)", d, s.Name, got, err)
			}
		}
	}
}

// TestTranslateAmongBuiltins translates every a2a sample, detected, into
// every built-in dialect, and every sample of theirs into a2a: each comes
// out valid in the target, or is refused for an act the target has no
// message for, naming the target.
func TestTranslateAmongBuiltins(t *testing.T) {
	reg := builtin.Default()
	tr := &translate.Translator{Registry: reg, Mappings: dialects.DefaultMappings()}
	check := func(t *testing.T, from, to string, data []byte) {
		src := translate.Auto
		if from != a2a.Name {
			src = from
		}
		res, err := tr.Translate(nil, src, to, append([]byte(nil), data...), translate.Options{Context: dialecttest.EncodeContext()})
		if err != nil {
			var de *dialects.Error
			if !errors.As(err, &de) || de.Dialect != to || !strings.Contains(de.Problem, "cannot express act") {
				t.Errorf("%s -> %s: %v", from, to, err)
			}
			return
		}
		if res.From != from {
			t.Errorf("detected as %s, want %s", res.From, from)
		}
		dst, _ := reg.Lookup(to)
		if p := dst.Validate(res.Output); len(p) != 0 {
			t.Errorf("%s -> %s: invalid output: %v\n%s", from, to, p, res.Output)
		}
	}
	for _, d := range dialects.Names() {
		if d == a2a.Name {
			continue
		}
		for _, s := range dialecttest.Samples(t, filepath.Join("..", a2a.Name, dialecttest.SamplesDir)) {
			t.Run("a2a/"+s.Name+"/to_"+d, func(t *testing.T) { check(t, a2a.Name, d, s.Data) })
		}
		for _, s := range dialecttest.Samples(t, filepath.Join("..", d, dialecttest.SamplesDir)) {
			t.Run(d+"/"+s.Name+"/to_a2a", func(t *testing.T) { check(t, d, a2a.Name, s.Data) })
		}
	}
}
