package canonical

import (
	"testing"
	"time"
)

func TestISODuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"PT5M", 5 * time.Minute, true},
		{"PT300S", 300 * time.Second, true},
		{"P1DT2H", 26 * time.Hour, true},
		{"PT1.5S", 1500 * time.Millisecond, true},
		{"PT1H30M", 90 * time.Minute, true},
		{"P", 0, false},
		{"PT", 0, false},
		{"5M", 0, false},
		{"P1Y", 0, false},
		{"PT5D", 0, false},
		{"P1M", 0, false},
		{"PTxS", 0, false},
	}
	for _, c := range cases {
		got, err := ParseISODuration(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseISODuration(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	for _, d := range []time.Duration{5 * time.Minute, 90 * time.Minute, 1500 * time.Millisecond, 26 * time.Hour, 0} {
		back, err := ParseISODuration(FormatISODuration(d))
		if err != nil || back != d {
			t.Errorf("%v -> %s -> %v, %v", d, FormatISODuration(d), back, err)
		}
	}
}

func TestPriority(t *testing.T) {
	var unset Priority
	if unset.Level() != -1 || unset.String() != "" {
		t.Errorf("unset priority: level %d name %q", unset.Level(), unset)
	}
	for level := 0; level <= 4; level++ {
		p, ok := PriorityFromLevel(level)
		if !ok || p.Level() != level {
			t.Errorf("level %d -> %v -> %d", level, p, p.Level())
		}
		if back, ok := ParsePriority(p.String()); !ok || back != p {
			t.Errorf("%s does not parse back", p)
		}
	}
	if _, ok := PriorityFromLevel(5); ok {
		t.Error("level 5 accepted")
	}
	if PriorityBatch.String() != "batch" || PriorityCritical.String() != "critical" {
		t.Error("names")
	}
}

func TestTimestamp(t *testing.T) {
	for in, want := range map[Timestamp]string{
		"2025-05-21T20:00:00Z":       "2025-05-21T20:00:00Z",
		"2024-01-11T10:00:00.123456": "2024-01-11T10:00:00.123456Z",
		"2025-04-10T17:30:00+02:00":  "2025-04-10T15:30:00Z",
	} {
		got, ok := in.Parse()
		if !ok || got.Format(time.RFC3339Nano) != want {
			t.Errorf("%s -> %v %v, want %s", in, got, ok, want)
		}
	}
	if _, ok := Timestamp("YYYY-MM-DDTHH:MM:SSZ").Parse(); ok {
		t.Error("placeholder parsed")
	}
	if got := NewTimestamp(time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))); got != "2026-01-02T02:04:05Z" {
		t.Errorf("NewTimestamp = %s", got)
	}
}

func TestConcepts(t *testing.T) {
	if len(Concepts) > 64 {
		t.Fatal("ConceptSet is a 64-bit set")
	}
	var e Envelope
	if p := e.Present(); len(p) != 0 {
		t.Errorf("zero envelope holds %v", p)
	}
	e.Priority = PriorityBatch // level 0 is a value, not absence
	e.TTL = Dur(0)
	e.Error = &Error{Code: ErrTimeout}
	e.Extra = []Field{{Dialect: "x", Parent: "payload", Key: "k", Value: "1"}}
	got := SetOf(e.Present()...)
	want := SetOf(CPriority, CTTL, CErrorCode, CExtra)
	if got != want {
		t.Errorf("Present = %v, want %v", got.List(), want.List())
	}
	if e.Extra[0].Path() != "payload.k" {
		t.Errorf("Path = %s", e.Extra[0].Path())
	}
	for _, c := range Concepts {
		if SetOf(c).List()[0] != c || !SetOf(c).Has(c) || SetOf(c).Without(c) != 0 {
			t.Errorf("set of %s", c)
		}
	}
}

func TestVocabularies(t *testing.T) {
	for _, kind := range []string{KindAct, KindOutcome, KindError, KindPriority} {
		if len(CanonicalValues(kind)) == 0 {
			t.Errorf("no values for %s", kind)
		}
	}
	if CanonicalValues("colour") != nil {
		t.Error("unknown kind has values")
	}
	for _, a := range Acts {
		if !a.Valid() {
			t.Errorf("%s invalid", a)
		}
		if a.IsError() && DefaultErrorCode(a) == "" {
			t.Errorf("%s has no default code", a)
		}
	}
	if Act("dance").Valid() || ErrorCode("oops").Valid() || Outcome("meh").Valid() {
		t.Error("made-up values valid")
	}
	if !ErrTimeout.Retryable() || ErrRejected.Retryable() {
		t.Error("Retryable")
	}
}

// TestConceptOrder checks that the bit positions PresentSet uses follow
// Concepts, one concept each.
func TestConceptOrder(t *testing.T) {
	if int(numConcepts) != len(Concepts) {
		t.Fatalf("%d bit positions for %d concepts", numConcepts, len(Concepts))
	}
	retry := true
	full := Envelope{
		ID: "1", Act: ActRequest, Sender: Party{"s", "S"}, Receiver: Address{AddressAgent, "r", "R"},
		InReplyTo: "a", ReplyWith: "b", CorrelationID: "c", ConversationID: "d", SessionID: "e", TaskID: "f",
		Time: "t", Priority: PriorityLow, Deadline: "u", TTL: Dur(1), Trace: Trace{"x", "y", "z"},
		Language: "en", Ontology: "o", Operation: Operation{"cap", "op"}, Description: "desc",
		Arguments: "{}", Result: "{}", Outcome: OutcomeSuccess,
		Error:        &Error{Code: ErrTimeout, Message: "m", Retryable: &retry, RetryAfter: Dur(1), Details: "{}", SuggestedActions: "[]"},
		Capabilities: &Capabilities{}, Inputs: "[]", Context: "{}", Metadata: "{}", Authentication: "{}", Extensions: "[]",
		Extra: []Field{{Key: "k", Value: "1"}},
	}
	if got := full.Present(); len(got) != len(Concepts) {
		t.Fatalf("a full envelope holds %d of %d concepts: %v", len(got), len(Concepts), got)
	}
	for i, c := range Concepts {
		if SetOf(c) != 1<<i {
			t.Errorf("%s is not bit %d", c, i)
		}
	}
}

func TestTimestampZone(t *testing.T) {
	for ts, want := range map[Timestamp]bool{
		"2025-05-21T20:00:00Z": true, "2025-05-21T20:00:00+02:00": true, "2025-05-21T20:00:00.5-05:30": true,
		"2024-01-11T10:00:00.123456": false, "": false, "YYYY-MM-DDTHH:MM:SSZ": true, "2025-05-21": false,
	} {
		if got := ts.HasZone(); got != want {
			t.Errorf("%q.HasZone() = %v", ts, got)
		}
	}
	if _, ok := Timestamp("2025-05-21T20:00:00+0200").Parse(); ok {
		t.Error("an offset without a colon is not RFC 3339")
	}
}

// TestKnownRetryable: the codes that say whether to retry, and the two
// that may go either way.
func TestKnownRetryable(t *testing.T) {
	want := map[ErrorCode][2]bool{ // retryable, known
		ErrTimeout: {true, true}, ErrUnavailable: {true, true}, ErrRateLimited: {true, true},
		ErrInvalidMessage: {false, true}, ErrInvalidArguments: {false, true}, ErrNotFound: {false, true},
		ErrUnauthorized: {false, true}, ErrRejected: {false, true}, ErrTooLarge: {false, true},
		ErrExecutionFailed: {false, false}, ErrInternal: {false, false}, "": {false, false},
	}
	for _, c := range append(ErrorCodes, "") {
		r, ok := c.KnownRetryable()
		if w, listed := want[c]; !listed || [2]bool{r, ok} != w {
			t.Errorf("%q: retryable %v, known %v; want %v (listed %v)", c, r, ok, w, listed)
		}
		if ok && r != c.Retryable() {
			t.Errorf("%q: KnownRetryable %v, Retryable %v", c, r, c.Retryable())
		}
	}
}

// TestNewSpanID: W3C span ids, none repeated.
func TestNewSpanID(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := NewSpanID()
		if !IsSpanID(id) || seen[id] {
			t.Fatalf("span id %q: W3C %v, seen before %v", id, IsSpanID(id), seen[id])
		}
		seen[id] = true
	}
}

// TestSayRetryable: an error says whether to retry where its code tells,
// in a copy; what it says itself, or a code that does not tell, stays.
func TestSayRetryable(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		e    *Error
		want *bool // nil: not said
		same bool  // e itself comes back
	}{
		{&Error{Code: ErrTimeout}, &yes, false},
		{&Error{Code: ErrNotFound}, new(bool), false},
		{&Error{Code: ErrNotFound, Retryable: &yes}, &yes, true},
		{&Error{Code: ErrInternal}, nil, true},
	} {
		got := tc.e.SayRetryable()
		if (got == tc.e) != tc.same || (got.Retryable == nil) != (tc.want == nil) || (tc.want != nil && *got.Retryable != *tc.want) {
			t.Errorf("%s: retryable %v (same %v)", tc.e.Code, got.Retryable, got == tc.e)
		}
		if !tc.same && tc.e.Retryable != nil {
			t.Errorf("%s: changed the error it was given", tc.e.Code)
		}
	}
}
