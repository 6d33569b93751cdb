package translate_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	c "github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// sample is one message of a dialect's testdata.
type sample struct {
	dialect string
	dialecttest.Sample
}

// allSamples reads the samples of every built-in dialect.
func allSamples(t testing.TB) []sample {
	var out []sample
	for _, d := range dialects.Names() {
		for _, s := range dialecttest.Samples(t, filepath.Join("..", "dialects", d, dialecttest.SamplesDir)) {
			out = append(out, sample{d, s})
		}
	}
	return out
}

// TestPairs translates every sample into every dialect (all 25 ordered
// pairs) and checks, for each translation:
//   - the output passes the target's schema and rules;
//   - the concepts reported dropped are exactly those the sample holds and
//     the target cannot (per holds_test.go), plus one per foreign Extra;
//   - decoding the output gives back every concept the target holds that
//     was not reported approximated or filled;
//   - translating that back into the source keeps them too (X -> Y -> X).
func TestPairs(t *testing.T) {
	reg := builtin.Default()
	for _, s := range allSamples(t) {
		src, _ := reg.Lookup(s.dialect)
		env, err := src.Decode(s.Data)
		if err != nil {
			t.Fatalf("%s/%s: %v", s.dialect, s.Name, err)
		}
		for _, to := range dialects.Names() {
			t.Run(s.dialect+"/"+s.Name+"/to_"+to, func(t *testing.T) {
				checkPair(t, reg, s, env, to)
			})
		}
	}
}

func checkPair(t *testing.T, reg *dialects.Registry, s sample, env *c.Envelope, to string) {
	src, _ := reg.Lookup(s.dialect)
	dst, _ := reg.Lookup(to)
	ctx := dialecttest.EncodeContext()
	out, err := dst.Encode(nil, env, ctx)
	if slices.Contains(inexpressible[to], env.Act) {
		if err == nil {
			t.Fatalf("%s has no message for act %s, yet Encode wrote %s", to, env.Act, out)
		}
		return
	}
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	// A message is written back into its own dialect as it was, so only a
	// valid one must come out valid; into another dialect, always.
	if to != s.dialect || len(src.Validate(s.Data)) == 0 {
		if p := dst.Validate(out); len(p) != 0 {
			t.Fatalf("output does not pass %s's schema and rules: %v\n%s", to, p, out)
		}
	}

	// Warnings against the table.
	want := map[string]bool{}
	held := holds(to, env.Act)
	if to == "fuse" && env.Trace.Span() != "" {
		// fuse carries a W3C trace as metadata.traceparent.
		held = held.With(c.CTraceID, c.CSpanID)
	}
	if to == "bluelabel" && env.Act == c.ActRequest && env.Trace.Span() != "" && (env.Metadata == "" || dialects.IsObject(env.Metadata)) {
		// So does a bluelabel task assignment, beside its trace_id.
		held = held.With(c.CSpanID)
	}
	for _, cc := range env.Present() {
		if cc != c.CExtra && !held.Has(cc) {
			want[cc.String()] = true
		}
	}
	if to != s.dialect {
		for _, f := range env.Extra {
			want["extra:"+f.Path()] = true
		}
	}
	got := map[string]bool{}
	touched := map[c.Concept]bool{}
	for _, l := range ctx.Losses {
		touched[l.Concept] = true
		if l.Kind != dialects.Dropped {
			continue
		}
		key := l.Concept.String()
		if l.Concept == c.CExtra {
			key = "extra:" + l.Path
		}
		got[key] = true
	}
	if !equalSets(want, got) {
		t.Errorf("dropped-concept warnings differ from the table:\n got %v\nwant %v\nlosses: %v", keys(got), keys(want), ctx.Losses)
	}
	actApprox := slices.Contains(approximatedActs[to], env.Act)
	if actApprox != touched[c.CAct] {
		t.Errorf("act %s: act approximation reported %v, table says %v", env.Act, touched[c.CAct], actApprox)
	}

	// What the target holds comes back.
	back, err := dst.Decode(out)
	if err != nil {
		t.Fatalf("output does not decode: %v\n%s", err, out)
	}
	kept := holds(to, env.Act) & holds(to, back.Act)
	dialecttest.CompareConcepts(t, "->"+to, env, back, kept, touched)

	// And survives the way home.
	if src.Name() == to {
		return
	}
	home, err := src.Encode(nil, back, dialecttest.EncodeContext())
	if err != nil {
		if slices.Contains(inexpressible[s.dialect], back.Act) {
			return
		}
		t.Fatalf("back to %s: %v", s.dialect, err)
	}
	if p := src.Validate(home); len(p) != 0 {
		t.Errorf("back to %s: output does not validate: %v\n%s", s.dialect, p, home)
	}
	homeEnv, err := src.Decode(home)
	if err != nil {
		t.Fatalf("back to %s does not decode: %v", s.dialect, err)
	}
	dialecttest.CompareConcepts(t, "->"+to+"->"+s.dialect, env, homeEnv, kept&holds(s.dialect, back.Act)&holds(s.dialect, homeEnv.Act), touched)
}

func equalSets(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTranslateAuto checks detection and the strict mode through the
// Translator.
func TestTranslateAuto(t *testing.T) {
	tr := translate.Translator{Registry: builtin.Default()}
	for _, s := range allSamples(t) {
		res, err := tr.Translate(nil, translate.Auto, s.dialect, s.Data, translate.Options{Strict: true, Context: dialecttest.EncodeContext()})
		if err != nil {
			t.Errorf("%s/%s: %v", s.dialect, s.Name, err)
			continue
		}
		if res.From != s.dialect {
			t.Errorf("%s/%s: detected as %s", s.dialect, s.Name, res.From)
		}
		if !dialecttest.JSONEqual(res.Output, s.Data) {
			t.Errorf("%s/%s: auto round trip changed the message", s.dialect, s.Name)
		}
	}
	_, err := tr.Translate(nil, "nope", "swarm", []byte(`{}`), translate.Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown dialect "nope"`) {
		t.Errorf("unknown dialect: %v", err)
	}
}

func ExampleTranslator_Translate() {
	tr := translate.Translator{Registry: builtin.Default()}
	msg := []byte(`{"message_id":"m1","message_type":"request","sender_id":"agent-1","receiver_id":"agent-2",
		"timestamp":"2024-01-11T10:00:02Z","correlation_id":null,"priority":"urgent",
		"payload":{"tool_name":"debug_code","arguments":{"code":"x = [1][2]"},"timeout":30}}`)
	res, err := tr.Translate(nil, "swarm", "collab", msg, translate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var v map[string]any
	_ = json.Unmarshal(res.Output, &v)
	h := v["header"].(map[string]any)
	fmt.Println(h["type"], h["source"], h["destination"], h["priority"], h["ttl"])
	// Output: REQUEST agent-1 agent-2 4 30000
}
