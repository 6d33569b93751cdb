package declared_test

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects/declared"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// TestEncodeForeign encodes envelopes from other dialects: stand-ins for
// what the message must have are reported as filled, values the dialect
// cannot hold as they are as approximated, and the output validates.
func TestEncodeForeign(t *testing.T) {
	hook := codec(t)
	// strict requires more of a message than hook does, to show each fill.
	strictDecl := hookDecl()
	strictDecl.Required = append(strictDecl.Required, "to", "status", "urgency", "error.code", "ttl_ms", "data")
	strict, err := declared.New(strictDecl, hookVocab(t))
	if err != nil {
		t.Fatal(err)
	}
	// sparse has few words: values without one fall back.
	sparse, err := declared.New(hookDecl(), vocabFor(t, "hook", `act:
    words: {call: request, error: failure, notify: event}
  priority:
    words: {normal: normal, high: high}
  outcome:
    words: {done: success}
  error:
    words: {oops: internal}
`))
	if err != nil {
		t.Fatal(err)
	}
	foreign := func(act canonical.Act) *canonical.Envelope {
		return &canonical.Envelope{Origin: canonical.Origin{Dialect: "other"}, Act: act}
	}
	tests := []struct {
		name   string
		c      *declared.Codec
		env    *canonical.Envelope
		out    string
		losses []string
	}{
		{"minimal", hook, foreign(canonical.ActRequest),
			`{"hook":"1","id":"00000000-0000-4000-8000-00000000000b","event":"call","from":"unknown","sent_at":"2026-01-02T03:04:05Z"}`,
			[]string{`filled id: required id is absent; wrote "00000000-0000-4000-8000-00000000000b"`, `filled from: required from is absent; wrote "unknown"`, `filled sent_at: required sent_at is absent; wrote "2026-01-02T03:04:05Z"`}},
		{"every fill", strict, foreign(canonical.ActRefuse),
			`{"hook":"1","id":"00000000-0000-4000-8000-00000000000b","event":"reject","from":"unknown","to":"unknown","sent_at":"2026-01-02T03:04:05Z","urgency":"normal","ttl_ms":0,"data":{},"status":"failed","error":{"code":"rejected"}}`,
			[]string{`filled id: required id is absent; wrote "00000000-0000-4000-8000-00000000000b"`, `filled from: required from is absent; wrote "unknown"`, `filled to: required to is absent; wrote "unknown"`,
				`filled sent_at: required sent_at is absent; wrote "2026-01-02T03:04:05Z"`, `filled urgency: required urgency is absent; wrote "normal"`, `filled ttl_ms: required ttl_ms is absent; wrote "0"`,
				`filled data: required data is absent; wrote "{}"`, `filled status: required status is absent; wrote "failed"`, `filled error.code: required error.code is absent; wrote "rejected"`}},
		{"success outcome filled", strict, &canonical.Envelope{Act: canonical.ActResult, ID: "r", Sender: canonical.Party{ID: "a"}, Time: "t",
			Receiver: canonical.Address{Kind: canonical.AddressBroadcast}, Priority: canonical.PriorityLow, TTL: canonical.Dur(1500 * time.Millisecond), Arguments: "[]", Error: &canonical.Error{Code: canonical.ErrTimeout}},
			`{"hook":"1","id":"r","event":"reply","from":"a","to":"*","sent_at":"t","urgency":"low","ttl_ms":1500,"data":[],"status":"ok","error":{"code":"timeout"}}`,
			[]string{`filled status: required status is absent; wrote "ok"`}},
		{"values", hook, &canonical.Envelope{Act: canonical.ActEvent, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "2026-01-02T03:04:05+02:00",
			Receiver: canonical.Address{Kind: canonical.AddressTopic, ID: "builds"}, Priority: canonical.PriorityBatch, TTL: canonical.Dur(1500500 * time.Microsecond)},
			`{"hook":"1","id":"e","event":"notify","from":"a","to":"topic:builds","sent_at":"2026-01-02T03:04:05+02:00","urgency":"low","ttl_ms":1500.5}`,
			[]string{"approximated priority: hook cannot write priority batch as it is; wrote low"}},
		{"not-understood", hook, &canonical.Envelope{Act: canonical.ActNotUnderstood, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t", Error: &canonical.Error{Message: "what?"}},
			`{"hook":"1","id":"e","event":"error","from":"a","sent_at":"t","error":{"message":"what?"}}`,
			[]string{"approximated act: hook cannot write act not-understood as it is; wrote error"}},
		{"foreign error word", hook, &canonical.Envelope{Origin: canonical.Origin{Dialect: "other", Words: canonical.Words{2: "E_QUOTA"}}, Act: canonical.ActFailure, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t", Error: &canonical.Error{}},
			`{"hook":"1","id":"e","event":"error","from":"a","sent_at":"t","error":{"code":"E_QUOTA"}}`, nil},
		{"agent named like a broadcast", hook, &canonical.Envelope{Act: canonical.ActRequest, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t", Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "*"}, TTL: canonical.Dur(-time.Second)},
			`{"hook":"1","id":"e","event":"call","from":"a","to":"*","sent_at":"t","ttl_ms":0}`,
			[]string{`approximated to: agent id "*" reads as a broadcast in hook`, "approximated ttl: hook cannot write ttl -1s as it is; wrote 0 ms"}},
		{"ttl beyond the number", hook, &canonical.Envelope{Act: canonical.ActRequest, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t", TTL: canonical.Dur(math.MaxInt64)},
			`{"hook":"1","id":"e","event":"call","from":"a","sent_at":"t","ttl_ms":9223372036854}`,
			[]string{"approximated ttl: hook cannot write ttl 2562047h47m16.854775807s as it is; wrote 9223372036854 ms"}},
		{"ttl of nanoseconds", hook, &canonical.Envelope{Act: canonical.ActRequest, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t", TTL: canonical.Dur(1234567890123456789)},
			`{"hook":"1","id":"e","event":"call","from":"a","sent_at":"t","ttl_ms":1234567890123}`,
			[]string{"approximated ttl: hook cannot write ttl 342935h31m30.123456789s as it is; wrote 1234567890123 ms"}},
		{"ttl with nanoseconds", hook, &canonical.Envelope{Act: canonical.ActRequest, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t", TTL: canonical.Dur(2*time.Second + 7)},
			`{"hook":"1","id":"e","event":"call","from":"a","sent_at":"t","ttl_ms":2000.000007}`, nil},
		{"sparse words", sparse, &canonical.Envelope{Act: canonical.ActFailure, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t",
			Priority: canonical.PriorityCritical, Outcome: canonical.OutcomePartial, Error: &canonical.Error{Code: canonical.ErrTimeout}},
			`{"hook":"1","id":"e","event":"error","from":"a","sent_at":"t","urgency":"high","status":"done","error":{"code":"oops"}}`,
			[]string{"approximated priority: hook cannot write priority critical as it is; wrote high", "approximated outcome: hook cannot write outcome partial as it is; wrote done",
				"approximated error.code: hook cannot write error.code timeout as it is; wrote oops"}},
		{"sparse priority tie goes up", sparse, &canonical.Envelope{Act: canonical.ActEvent, ID: "e", Sender: canonical.Party{ID: "a"}, Time: "t", Priority: canonical.PriorityLow},
			`{"hook":"1","id":"e","event":"notify","from":"a","sent_at":"t","urgency":"normal"}`,
			[]string{"approximated priority: hook cannot write priority low as it is; wrote normal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := dialecttest.EncodeContext()
			out, err := tt.c.Encode(nil, tt.env, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.out {
				t.Errorf("output:\n got %s\nwant %s", out, tt.out)
			}
			var got []string
			for _, l := range ctx.Losses {
				got = append(got, l.String())
			}
			if !slices.Equal(got, tt.losses) {
				t.Errorf("losses:\n got %q\nwant %q", got, tt.losses)
			}
			if p := tt.c.Validate(out); len(p) != 0 {
				t.Errorf("output does not validate: %v", p)
			}
			if _, err := tt.c.Decode(out); err != nil {
				t.Errorf("output does not decode: %v", err)
			}
		})
	}
}

// TestEncodeOwn checks that a message decoded from the dialect is written
// back as it was, without stand-ins, even when it lacks required members.
func TestEncodeOwn(t *testing.T) {
	c := codec(t)
	for _, msg := range []string{
		`{"event":"call"}`,
		`{"hook":"2","event":"reply","status":"ok"}`,
		`{"hook":"1","event":"error","error":{"code":"","x":null},"result":null}`,
		`{"event":"notify","hook":null,"to":"topic:"}`,
	} {
		env := dialecttest.MustDecode(t, c, []byte(msg))
		ctx := dialecttest.EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !equalJSON(out, []byte(msg)) || len(ctx.Losses) != 0 {
			t.Errorf("%s: wrote %s, losses %v", msg, out, ctx.Losses)
		}
	}
}

// TestEncodeRefuses checks the acts hook has no word for.
func TestEncodeRefuses(t *testing.T) {
	c := codec(t)
	for _, act := range []canonical.Act{canonical.ActAccept, canonical.ActQueryCapabilities, canonical.ActInformCapabilities, canonical.ActNeedsInput} {
		_, err := c.Encode(nil, &canonical.Envelope{Act: act}, nil)
		want := fmt.Sprintf("hook: cannot express act %q: hook has no word for it (words: call, reply, error, reject, notify)", act)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v", act, err)
		}
	}
}

// TestHolds checks the concepts hook carries, the same for every act.
func TestHolds(t *testing.T) {
	c := codec(t)
	wantSet := canonical.SetOf(canonical.CID, canonical.CAct, canonical.CSender, canonical.CSenderName, canonical.CReceiver,
		canonical.CInReplyTo, canonical.CCorrelationID, canonical.CTaskID, canonical.CTime, canonical.CPriority, canonical.CTTL,
		canonical.CTraceID, canonical.COperation, canonical.CDescription, canonical.CArguments, canonical.CResult, canonical.COutcome,
		canonical.CErrorCode, canonical.CErrorMessage, canonical.CErrorDetails, canonical.CContext, canonical.CMetadata, canonical.CExtra)
	for _, act := range canonical.Acts {
		if got := c.Holds(act); got != wantSet {
			t.Errorf("%s: holds %v, want %v", act, got.List(), wantSet.List())
		}
	}
}

// TestDetect checks that hook recognises its samples, and no built-in
// dialect's; and that with the built-in codecs, auto-detection picks hook
// for hook messages and never for theirs.
func TestDetect(t *testing.T) {
	c := codec(t)
	reg := builtinRegistry(t, c)
	for _, s := range dialecttest.Samples(t, dialecttest.SamplesDir) {
		// hook: "1" + id, event, from, to, sent_at... at the top level.
		if got := c.Detect(s.Data); got < 2+5 {
			t.Errorf("hook/%s: Detect = %d", s.Name, got)
		}
		if got, err := reg.Detect(s.Data); err != nil || got.Name() != "hook" {
			t.Errorf("hook/%s: auto-detected as %v (%v)", s.Name, got, err)
		}
	}
	for _, s := range builtinSamples(t) {
		if got := c.Detect(s.Data); got != 0 {
			t.Errorf("%s/%s: hook claims it (%d)", s.dialect, s.Name, got)
		}
		if got, err := reg.Detect(s.Data); err == nil && got.Name() == "hook" {
			t.Errorf("%s/%s: auto-detected as hook", s.dialect, s.Name)
		}
	}
	tests := []struct {
		msg   string
		score int
	}{
		{`{"hook":"1"}`, 2},
		{`{"hook":"1","event":"call","id":"x","nope":1}`, 4},
		{`{"hook":"1","event":"call","event":"call"}`, 3},
		{`{"hook":1,"event":"call"}`, 0},
		{`{"hook":"2","event":"call"}`, 0},
		{`{"event":"call","id":"x","from":"a","sent_at":"t"}`, 0},
		{`[{"hook":"1"}]`, 0},
		{`{"\u0068ook":"1"}`, 2},
	}
	for _, tt := range tests {
		if got := c.Detect([]byte(tt.msg)); got != tt.score {
			t.Errorf("Detect(%s) = %d, want %d", tt.msg, got, tt.score)
		}
	}
}
