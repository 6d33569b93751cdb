package declared_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/declared"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// sample is a message of a built-in dialect.
type sample struct {
	dialect string
	dialecttest.Sample
}

// builtinSamples reads the samples of every built-in dialect.
func builtinSamples(t *testing.T) []sample {
	var out []sample
	for _, d := range dialects.Names() {
		for _, s := range dialecttest.Samples(t, filepath.Join("..", d, dialecttest.SamplesDir)) {
			out = append(out, sample{d, s})
		}
	}
	return out
}

// builtinRegistry returns the built-in codecs and c.
func builtinRegistry(t *testing.T, c *declared.Codec) *dialects.Registry {
	r := builtin.Default()
	if err := r.Register(c); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTranslateFromHook translates every hook sample into every built-in
// dialect and back: the output validates in the target and decodes, and the
// concepts both dialects hold keep their values (hook -> X, and hook -> X ->
// hook), unless an encoder reported touching them.
func TestTranslateFromHook(t *testing.T) {
	hook := codec(t)
	reg := builtinRegistry(t, hook)
	for _, s := range dialecttest.Samples(t, dialecttest.SamplesDir) {
		env := dialecttest.MustDecode(t, hook, s.Data)
		for _, to := range dialects.Names() {
			t.Run(s.Name+"/to_"+to, func(t *testing.T) {
				dst, _ := reg.Lookup(to)
				ctx := dialecttest.EncodeContext()
				out, ok := encode(t, dst, env, ctx)
				if !ok {
					return
				}
				if p := dst.Validate(out); len(p) != 0 {
					t.Fatalf("output does not validate in %s: %v\n%s", to, p, out)
				}
				back := dialecttest.MustDecode(t, dst, out)
				kept := hook.Holds(env.Act) & dst.Holds(env.Act) & dst.Holds(back.Act)
				dialecttest.CompareConcepts(t, "hook->"+to, env, back, kept, touched(ctx))

				home := dialecttest.EncodeContext()
				msg, ok := encode(t, hook, back, home)
				if !ok {
					return
				}
				if p := hook.Validate(msg); len(p) != 0 {
					t.Fatalf("back in hook, output does not validate: %v\n%s", p, msg)
				}
				again := dialecttest.MustDecode(t, hook, msg)
				dialecttest.CompareConcepts(t, "hook->"+to+"->hook", env, again, kept&hook.Holds(back.Act), touched(ctx, home))
			})
		}
	}
}

// TestTranslateToHook translates every built-in sample into hook and back:
// the output validates in hook and decodes, and what hook holds keeps its
// value.
func TestTranslateToHook(t *testing.T) {
	hook := codec(t)
	reg := builtinRegistry(t, hook)
	for _, s := range builtinSamples(t) {
		t.Run(s.dialect+"/"+s.Name, func(t *testing.T) {
			src, _ := reg.Lookup(s.dialect)
			env := dialecttest.MustDecode(t, src, s.Data)
			ctx := dialecttest.EncodeContext()
			out, ok := encode(t, hook, env, ctx)
			if !ok {
				return
			}
			if p := hook.Validate(out); len(p) != 0 {
				t.Fatalf("output does not validate in hook: %v\n%s", p, out)
			}
			if got, err := reg.Detect(out); err != nil || got.Name() != "hook" {
				t.Errorf("output is auto-detected as %v (%v)", got, err)
			}
			back := dialecttest.MustDecode(t, hook, out)
			kept := hook.Holds(env.Act) & src.Holds(env.Act)
			dialecttest.CompareConcepts(t, s.dialect+"->hook", env, back, kept, touched(ctx))

			home := dialecttest.EncodeContext()
			msg, ok := encode(t, src, back, home)
			if !ok {
				return
			}
			if p := src.Validate(msg); len(p) != 0 {
				t.Fatalf("back in %s, output does not validate: %v\n%s", s.dialect, p, msg)
			}
			again := dialecttest.MustDecode(t, src, msg)
			dialecttest.CompareConcepts(t, s.dialect+"->hook->"+s.dialect, env, again, kept&src.Holds(back.Act)&src.Holds(again.Act), touched(ctx, home))
		})
	}
}

// encode encodes env with c; ok is false when c has no message for the act
// (a refusal that names the dialect).
func encode(t *testing.T, c dialects.Codec, env *canonical.Envelope, ctx *dialects.EncodeContext) (out []byte, ok bool) {
	t.Helper()
	out, err := c.Encode(nil, env, ctx)
	if err != nil {
		var de *dialects.Error
		if !errors.As(err, &de) || de.Dialect != c.Name() || !strings.Contains(de.Problem, "cannot express act") {
			t.Fatalf("Encode into %s: %v", c.Name(), err)
		}
		return nil, false
	}
	return out, true
}

// touched returns the concepts the encoders reported losing, approximating
// or filling.
func touched(ctxs ...*dialects.EncodeContext) map[canonical.Concept]bool {
	out := map[canonical.Concept]bool{}
	for _, ctx := range ctxs {
		for _, l := range ctx.Losses {
			out[l.Concept] = true
		}
	}
	return out
}
