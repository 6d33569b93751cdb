// Package dialecttest is the contract every dialect codec must pass, run by
// each codec's own tests (the way one pub/sub suite runs against every
// backend), and the fuzz target every decoder shares.
package dialecttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// SamplesDir is where a codec package keeps its sample messages: copies of
// the spec's whole-message examples, the realworld messages, and messages
// made to cover every kind the dialect has.
const SamplesDir = "testdata/samples"

// Sample is one message file.
type Sample struct {
	Name string
	Data []byte
}

// Samples reads every *.json file in dir, sorted by name.
func Samples(tb testing.TB, dir string) []Sample {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no samples in %s", dir)
	}
	sort.Strings(files)
	out := make([]Sample, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, Sample{Name: strings.TrimSuffix(filepath.Base(f), ".json"), Data: b})
	}
	return out
}

// ReadSample returns the sample called name (without ".json") from
// SamplesDir.
func ReadSample(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(SamplesDir, name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// MustDecode decodes msg with c, failing the test when it cannot.
func MustDecode(tb testing.TB, c dialects.Decoder, msg []byte) *canonical.Envelope {
	tb.Helper()
	env, err := c.Decode(msg)
	if err != nil {
		tb.Fatalf("Decode: %v", err)
	}
	return env
}

// EncodeContext returns a context with a fixed clock and counted ids, so
// that encoded output is reproducible.
func EncodeContext() *dialects.EncodeContext {
	n := 0
	return &dialects.EncodeContext{
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		NewID: func() string {
			n++
			return "00000000-0000-4000-8000-" + strings.Repeat("0", 11) + string(rune('a'+n%26))
		},
	}
}

// JSONEqual reports whether a and b hold the same JSON value: member order
// aside, numbers compared by value (30 and 30.0 are one number).
func JSONEqual(a, b []byte) bool {
	va, ea := decodeAny(a)
	vb, eb := decodeAny(b)
	return ea == nil && eb == nil && sameValue(va, vb)
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, ex := strconv.ParseFloat(string(x), 64)
		fy, ey := strconv.ParseFloat(string(y), 64)
		return ex == nil && ey == nil && fx == fy
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func decodeAny(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Options adjust Run for a codec.
type Options struct {
	// Invalid names samples that decode and round-trip but are not valid
	// messages of the dialect (fragments found in the wild), each with the
	// reason. Their validation must fail, so the list stays honest.
	Invalid map[string]string
}

// Run runs the contract against codec c with the samples in SamplesDir.
func Run(t *testing.T, c dialects.Codec, opts ...Options) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	samples := Samples(t, SamplesDir)
	t.Run("schema", func(t *testing.T) { testSchema(t, c) })
	for _, s := range samples {
		_, invalid := o.Invalid[s.Name]
		t.Run("sample/"+s.Name, func(t *testing.T) { testSample(t, c, s, invalid) })
		t.Run("types/"+s.Name, func(t *testing.T) { testWrongTypes(t, c, s) })
		t.Run("utf8/"+s.Name, func(t *testing.T) { testBadUTF8(t, c, s) })
	}
	t.Run("malformed", func(t *testing.T) { testMalformed(t, c, samples[0]) })
	t.Run("acts", func(t *testing.T) { testActs(t, c) })
	t.Run("holds", func(t *testing.T) { testHolds(t, c) })
}

func testSchema(t *testing.T, c dialects.Codec) {
	var doc map[string]any
	if err := json.Unmarshal(c.Schema(), &doc); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema $schema = %v, want draft 2020-12", doc["$schema"])
	}
	if p := c.Validate([]byte(`[]`)); len(p) == 0 {
		t.Error("Validate accepted an array")
	}
}

func testSample(t *testing.T, c dialects.Codec, s Sample, invalid bool) {
	if p := c.Validate(s.Data); len(p) != 0 && !invalid {
		t.Errorf("sample does not validate: %v", p)
	} else if len(p) == 0 && invalid {
		t.Errorf("sample is listed as invalid but validates")
	}
	if c.Detect(s.Data) <= 0 {
		t.Errorf("Detect does not recognise the sample")
	}
	checkDecodeValid(t, c, s.Data)
	env, err := c.Decode(s.Data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if env.Origin.Dialect != c.Name() {
		t.Errorf("Origin.Dialect = %q, want %q", env.Origin.Dialect, c.Name())
	}
	if !env.Act.Valid() {
		t.Errorf("Act = %q, not a canonical act", env.Act)
	}
	ctx := EncodeContext()
	prefix := []byte("prefix:")
	out, err := c.Encode(append([]byte(nil), prefix...), env, ctx)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !bytes.HasPrefix(out, prefix) {
		t.Fatalf("Encode did not append to dst")
	}
	out = out[len(prefix):]
	if !JSONEqual(s.Data, out) {
		t.Errorf("round trip changed the message:\n got %s\nwant %s", out, s.Data)
	}
	if len(ctx.Losses) != 0 {
		t.Errorf("round trip into its own dialect reported losses: %v", ctx.Losses)
	}
	if p := c.Validate(out); len(p) != 0 && !invalid {
		t.Errorf("encoded sample does not validate: %v", p)
	}
	again, _ := c.Encode(nil, env, EncodeContext())
	if !bytes.Equal(again, out) {
		t.Errorf("Encode is not deterministic")
	}
}

// testWrongTypes gives every string-valued member (top level and one level
// down) a number instead: Decode must refuse it, naming that path, unless the
// codec keeps the member as an Extra it does not interpret.
func testWrongTypes(t *testing.T, c dialects.Codec, s Sample) {
	env, err := c.Decode(s.Data)
	if err != nil {
		t.Skip("sample does not decode")
	}
	extra := map[string]bool{}
	for _, f := range env.Extra {
		extra[f.Path()] = true
	}
	root := gjson.ParseBytes(s.Data)
	var paths []string
	root.ForEach(func(k, v gjson.Result) bool {
		if v.Type == gjson.String {
			paths = append(paths, k.Str)
		}
		if v.IsObject() && !extra[k.Str] {
			v.ForEach(func(k2, v2 gjson.Result) bool {
				if v2.Type == gjson.String {
					paths = append(paths, k.Str+"."+k2.Str)
				}
				return true
			})
		}
		return true
	})
	for _, p := range paths {
		if extra[p] || strings.ContainsAny(p, "@*?#|") {
			continue
		}
		if parent, _, ok := strings.Cut(p, "."); ok && extra[parent] {
			continue
		}
		bad, err := sjson.SetBytes(s.Data, p, 12345)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Decode(bad)
		if err == nil {
			// Raw members (arguments, results, context) may hold anything.
			continue
		}
		var de *dialects.Error
		if !errors.As(err, &de) {
			t.Errorf("%s as a number: error %T is not a *dialects.Error: %v", p, err, err)
			continue
		}
		if de.Dialect != c.Name() {
			t.Errorf("%s as a number: error names dialect %q, want %q", p, de.Dialect, c.Name())
		}
		if de.Path != p {
			t.Errorf("%s as a number: error names path %q: %v", p, de.Path, err)
		}
		// The decoder and the schema both see it: reported once.
		n := 0
		for _, pr := range dialects.Check(c, bad) {
			if pr.Path == p {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s as a number: Check reports it %d times: %v", p, n, dialects.Check(c, bad))
		}
	}
}

// testBadUTF8 puts a byte that is not UTF-8 into the sample's last string
// value: Decode and Validate must each refuse it once, naming its path
// (JSON readers would otherwise pass it on as U+FFFD).
func testBadUTF8(t *testing.T, c dialects.Codec, s Sample) {
	path, at := lastString(gjson.ParseBytes(s.Data), "")
	if at < 0 {
		t.Skip("the sample has no string value")
	}
	bad := append(append(append([]byte(nil), s.Data[:at+1]...), 0xff), s.Data[at+1:]...)
	_, err := c.Decode(bad)
	var de *dialects.Error
	if !errors.As(err, &de) || de.Dialect != c.Name() || de.Path != path || !strings.Contains(de.Problem, "not valid UTF-8") {
		t.Errorf("Decode: %v; want a %s error at %s saying not valid UTF-8", err, c.Name(), path)
	}
	if p := c.Validate(bad); len(p) != 1 || p[0].Path != path {
		t.Errorf("Validate: %v; want one problem, at %s", p, path)
	}
}

// lastString returns the dotted path of the last string value in v and the
// offset of its opening quote in the message (-1 when v has none).
func lastString(v gjson.Result, path string) (string, int) {
	switch {
	case v.Type == gjson.String:
		return path, v.Index
	case !v.IsObject() && !v.IsArray():
		return "", -1
	}
	p, at := "", -1
	i := 0
	v.ForEach(func(k, m gjson.Result) bool {
		key := strconv.Itoa(i)
		if k.Type == gjson.String {
			key = dialects.Key(k)
		}
		i++
		if sp, sa := lastString(m, dialects.Join(path, key)); sa >= 0 {
			p, at = sp, sa
		}
		return true
	})
	return p, at
}

func testMalformed(t *testing.T, c dialects.Codec, s Sample) {
	cases := map[string][]byte{
		"not JSON":   []byte(`{"a":`),
		"array":      []byte(`[1,2]`),
		"string":     []byte(`"hello"`),
		"empty":      nil,
		"empty obj":  []byte(`{}`),
		"truncated":  s.Data[:len(s.Data)/2],
		"trailing":   append(append([]byte(nil), s.Data...), []byte(`}`)...),
		"bad utf8":   []byte("{\"x\":\"\xff\"}"),
		"deep array": []byte(`{"a":[[[[[[[[[[]]]]]]]]]]}`),
	}
	for name, msg := range cases {
		_, err := c.Decode(msg)
		if err == nil {
			t.Errorf("%s: Decode accepted %q", name, msg)
			continue
		}
		var de *dialects.Error
		if !errors.As(err, &de) || de.Dialect != c.Name() {
			t.Errorf("%s: error does not name the dialect: %v", name, err)
		}
	}
}

// testActs encodes a small envelope of every canonical act: the codec either
// refuses the act or writes a message that validates and decodes back.
func testActs(t *testing.T, c dialects.Codec) {
	for _, act := range canonical.Acts {
		env := &canonical.Envelope{
			ID:        "m-1",
			Act:       act,
			Sender:    canonical.Party{ID: "AGENT-A"},
			Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: "AGENT-B"},
			Time:      "2026-01-02T03:04:05Z",
			TaskID:    "TASK-1",
			Operation: canonical.Operation{Name: "echo"},
			Arguments: `{"text":"hi"}`,
		}
		if act.IsReply() {
			env.InReplyTo = "m-0"
			env.Result = `{"text":"hi"}`
			env.Outcome = canonical.OutcomeSuccess
		}
		if act.IsError() {
			env.Error = &canonical.Error{Code: canonical.ErrRejected, Message: "no"}
		}
		if act == canonical.ActNeedsInput {
			env.Inputs = `[{"id":"x","type":"string","description":"the x"}]`
		}
		if act == canonical.ActInformCapabilities || act == canonical.ActQueryCapabilities {
			env.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{{Name: "echo", Description: "echoes", InputSchema: `{"type":"object"}`}}}
		}
		ctx := EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			var de *dialects.Error
			if !errors.As(err, &de) || de.Dialect != c.Name() {
				t.Errorf("%s: refusal does not name the dialect: %v", act, err)
			}
			continue
		}
		if p := c.Validate(out); len(p) != 0 {
			t.Errorf("%s: output does not validate: %v\n%s", act, p, out)
		}
		back, err := c.Decode(out)
		if err != nil {
			t.Errorf("%s: output does not decode: %v\n%s", act, err, out)
			continue
		}
		if back.Act != act && !lost(ctx, canonical.CAct) {
			t.Errorf("%s: decodes back as %s and no act loss was reported", act, back.Act)
		}
	}
}

// FullEnvelope returns an envelope from another dialect that holds every
// concept, for act.
func FullEnvelope(act canonical.Act) *canonical.Envelope {
	yes := true
	env := &canonical.Envelope{
		Origin:         canonical.Origin{Dialect: "other"},
		ID:             "m-1",
		Act:            act,
		Sender:         canonical.Party{ID: "A", Name: "Agent A"},
		Receiver:       canonical.Address{Kind: canonical.AddressAgent, ID: "B", Name: "Agent B"},
		InReplyTo:      "m-0",
		ReplyWith:      "r-1",
		CorrelationID:  "c-1",
		ConversationID: "conv-1",
		SessionID:      "s-1",
		TaskID:         "T-1",
		Time:           "2026-01-02T03:04:05Z",
		Priority:       canonical.PriorityHigh,
		Deadline:       "2026-01-03T00:00:00Z",
		TTL:            canonical.Dur(time.Minute),
		Trace:          canonical.Trace{TraceID: "tr", SpanID: "sp", ParentSpanID: "pa"},
		Language:       "en",
		Ontology:       "o",
		Operation:      canonical.Operation{Capability: "cap", Name: "op"},
		Description:    "d",
		Arguments:      `{"x":1}`,
		Result:         `{"y":2}`,
		Outcome:        canonical.OutcomeSuccess,
		Error: &canonical.Error{Code: canonical.ErrTimeout, Message: "m", Retryable: &yes,
			RetryAfter: canonical.Dur(time.Second), Details: `{"d":1}`, SuggestedActions: `["retry"]`},
		Capabilities:   &canonical.Capabilities{Tools: []canonical.Tool{{Name: "op", Capability: "cap", Description: "does op", InputSchema: `{"type":"object"}`}}},
		Inputs:         `[{"id":"k","type":"string","description":"a key"}]`,
		Context:        `{"c":1}`,
		Metadata:       `{"m":1}`,
		Authentication: `{"type":"jwt","token":"t"}`,
		Extensions:     `[{"name":"e"}]`,
		Extra:          []canonical.Field{{Dialect: "other", Key: "x", Value: "1"}},
	}
	if act.IsError() {
		env.Outcome = canonical.OutcomeFailure
	}
	return env
}

// testHolds encodes an envelope holding every concept, for each act: every
// concept Holds lists comes back on decode, and every other is reported
// dropped.
func testHolds(t *testing.T, c dialects.Codec) {
	for _, act := range canonical.Acts {
		env := FullEnvelope(act)
		ctx := EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			continue // testActs checks refusals
		}
		back, err := c.Decode(out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", act, err, out)
		}
		h := c.Holds(act)
		dropped := map[canonical.Concept]bool{}
		for _, l := range ctx.Losses {
			if l.Kind == dialects.Dropped {
				dropped[l.Concept] = true
			}
		}
		if !dropped[canonical.CExtra] {
			t.Errorf("%s: the other dialect's extra member is not reported dropped", act)
		}
		for _, cn := range canonical.Concepts {
			switch {
			case cn == canonical.CExtra:
			case h.Has(cn) && !back.Has(cn):
				t.Errorf("%s: holds %s but it does not come back\n%s", act, cn, out)
			case !h.Has(cn) && !dropped[cn]:
				t.Errorf("%s: %s is not held and not reported dropped", act, cn)
			case h.Has(cn) && dropped[cn]:
				t.Errorf("%s: %s is held but reported dropped", act, cn)
			}
		}
	}
}

func lost(ctx *dialects.EncodeContext, c canonical.Concept) bool {
	for _, l := range ctx.Losses {
		if l.Concept == c {
			return true
		}
	}
	return false
}

// Fuzz runs the decoder fuzz target for c, seeded with its samples: Decode
// never panics; what it accepts encodes to JSON that decodes again; and a
// valid message encodes back into the same JSON value, still valid.
func Fuzz(f *testing.F, c dialects.Codec) {
	for _, s := range Samples(f, SamplesDir) {
		f.Add(s.Data)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		checkDecodeValid(t, c, msg)
		env, err := c.Decode(msg)
		if err != nil {
			var de *dialects.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *dialects.Error: %v", err, err)
			}
			return
		}
		out, err := c.Encode(nil, env, EncodeContext())
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("encoded output is not JSON: %s", out)
		}
		if _, err := c.Decode(out); err != nil {
			t.Fatalf("encoded output does not decode: %v\n%s", err, out)
		}
		if len(c.Validate(msg)) == 0 {
			if p := c.Validate(out); len(p) != 0 {
				t.Fatalf("valid input encoded to invalid output: %v\nin:  %s\nout: %s", p, msg, out)
			}
			if !JSONEqual(msg, out) {
				t.Fatalf("round trip changed a valid message:\nin:  %s\nout: %s", msg, out)
			}
		}
	})
}

// checkDecodeValid checks, for a msg that Validate finds nothing wrong
// with, that it is JSON in UTF-8 (so that dialects.DecodeValid may skip that
// check) and that DecodeValid and ValidateDecode (which reads it once for
// the codec's rules and decoder, where the codec can) read it as Decode
// does; for any other msg, that ValidateDecode finds what Validate finds.
func checkDecodeValid(t *testing.T, c dialects.Codec, msg []byte) {
	t.Helper()
	problems := c.Validate(msg)
	both, env, err := dialects.ValidateDecode(c, msg)
	if !reflect.DeepEqual(Normalised(both), Normalised(problems)) {
		t.Fatalf("ValidateDecode finds %v, Validate %v\n%q", both, problems, msg)
	}
	if len(problems) != 0 {
		return
	}
	if e := dialects.CheckInput(c.Name(), msg); e != nil {
		t.Fatalf("Validate found nothing wrong with a message CheckInput refuses: %v\n%q", e, msg)
	}
	want, werr := c.Decode(msg)
	got, gerr := dialects.DecodeValid(c, msg)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeValid differs from Decode:\n got %+v, %v\nwant %+v, %v", got, gerr, want, werr)
	}
	if fmt.Sprint(werr) != fmt.Sprint(err) || !reflect.DeepEqual(env, want) {
		t.Fatalf("ValidateDecode differs from Decode:\n got %+v, %v\nwant %+v, %v", env, err, want, werr)
	}
}

// Normalised returns problems with the property names of every
// "additional properties ... not allowed" sorted: the schema library lists
// them in map order, which differs from run to run.
func Normalised(problems []dialects.Problem) []dialects.Problem {
	const head, tail = "additional properties ", " not allowed"
	out := append([]dialects.Problem(nil), problems...)
	for i, p := range out {
		if strings.HasPrefix(p.Message, head) && strings.HasSuffix(p.Message, tail) {
			names := strings.Split(strings.TrimSuffix(strings.TrimPrefix(p.Message, head), tail), ", ")
			sort.Strings(names)
			out[i].Message = head + strings.Join(names, ", ") + tail
		}
	}
	return out
}

// CompareConcepts checks that b has a's value for every concept in set that a holds
// and no encoder reported touching.
func CompareConcepts(t *testing.T, trip string, a, b *canonical.Envelope, set canonical.ConceptSet, touched map[canonical.Concept]bool) {
	t.Helper()
	for _, cc := range set.List() {
		if cc == canonical.CExtra || !a.Has(cc) || touched[cc] {
			continue
		}
		if va, vb := ConceptValue(a, cc), ConceptValue(b, cc); va != vb {
			t.Errorf("%s: %s changed: %s -> %s", trip, cc, va, vb)
		}
	}
}

// ConceptValue renders a concept's value for comparison: raw JSON compacted
// with sorted keys, times as instants, error codes canonically.
func ConceptValue(e *canonical.Envelope, cc canonical.Concept) string {
	// A JSON value, key order aside: objects are written with sorted keys,
	// numbers as they were written.
	raw := func(j canonical.JSON) string {
		v, err := decodeAny([]byte(j))
		if err != nil {
			return string(j)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return string(j)
		}
		return string(b)
	}
	switch cc {
	case canonical.CTime, canonical.CDeadline:
		ts := e.Time
		if cc == canonical.CDeadline {
			ts = e.Deadline
		}
		if tm, ok := ts.Parse(); ok {
			return tm.UTC().Format("2006-01-02T15:04:05.999999999")
		}
		return string(ts)
	case canonical.CArguments:
		return raw(e.Arguments)
	case canonical.CResult:
		return raw(e.Result)
	case canonical.CContext:
		return raw(e.Context)
	case canonical.CMetadata:
		return raw(e.Metadata)
	case canonical.CAuthentication:
		return raw(e.Authentication)
	case canonical.CExtensions:
		return raw(e.Extensions)
	case canonical.CInputs:
		return raw(e.Inputs)
	case canonical.CErrorDetails:
		return raw(e.Error.Details)
	case canonical.CErrorSuggestions:
		return raw(e.Error.SuggestedActions)
	case canonical.CErrorCode:
		if e.Error.Code == "" {
			return "word " + e.Origin.Words.Get(canonical.KindError)
		}
		return string(e.Error.Code)
	case canonical.CTTL:
		return e.TTL.D.String()
	case canonical.CCapabilities:
		var names []string
		for _, tl := range e.Capabilities.Tools {
			names = append(names, tl.Name)
		}
		return strings.Join(names, ",")
	}
	return e.Describe(cc)
}
