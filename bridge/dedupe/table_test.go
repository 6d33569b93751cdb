package dedupe

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestIdentify: a message's identity is its sender and ids, an answer's
// also what it answers, bluelabel's its act, task id and retry_count.
func TestIdentify(t *testing.T) {
	retry := func(n string) []canonical.Field {
		return []canonical.Field{{Key: "retry_count", Value: canonical.JSON(n)}}
	}
	id := func(sender string, env canonical.Envelope) Key {
		t.Helper()
		k, ok := Identify(sender, &env)
		if !ok {
			t.Fatalf("%+v has no identity", env)
		}
		return k
	}
	base := id("A", canonical.Envelope{Act: canonical.ActRequest, ID: "m1"})
	same := []Key{id("A", canonical.Envelope{Act: canonical.ActRequest, ID: "m1"}), id("A", canonical.Envelope{Act: canonical.ActEvent, ID: "m1"})}
	for _, k := range same {
		if k != base {
			t.Error("one sender's message id is one identity whatever the act")
		}
	}
	differ := map[string]Key{
		"another sender":      id("B", canonical.Envelope{Act: canonical.ActRequest, ID: "m1"}),
		"another id":          id("A", canonical.Envelope{Act: canonical.ActRequest, ID: "m2"}),
		"ids run together":    id("A", canonical.Envelope{Act: canonical.ActRequest, ID: "\x00m1"}),
		"an answer":           id("A", canonical.Envelope{Act: canonical.ActResult, ID: "m1", InReplyTo: "r1"}),
		"bluelabel, retry 0":  id("A", canonical.Envelope{Act: canonical.ActRequest, TaskID: "m1"}),
		"bluelabel, retry 1":  id("A", canonical.Envelope{Act: canonical.ActRequest, TaskID: "m1", Extra: retry("1")}),
		"bluelabel, a result": id("A", canonical.Envelope{Act: canonical.ActResult, TaskID: "m1"}),
	}
	seenIDs := map[Key]string{base: "base"}
	for name, k := range differ {
		if other, dup := seenIDs[k]; dup {
			t.Errorf("%s has the identity of %s", name, other)
		}
		seenIDs[k] = name
	}
	if _, ok := Identify("A", &canonical.Envelope{Act: canonical.ActEvent}); ok {
		t.Error("a message with no id has an identity")
	}
}

// TestDedupeBounds: past dedupe_entries the oldest message is forgotten,
// past dedupe_answers the oldest kept answer is dropped, and both are
// counted; the window still forgets what is older than it.
func TestDedupeBounds(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	d := New(time.Minute, 3, 10)
	if err := d.Count(m); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	key := func(i int) Key { k, _ := Identify("A", &canonical.Envelope{ID: fmt.Sprint("m", i)}); return k }
	for i := 1; i <= 4; i++ {
		if d.Check(key(i), now) {
			t.Fatalf("m%d is new, taken for a duplicate", i)
		}
	}
	if !d.Check(key(4), now) {
		t.Error("m4 sent again is not a duplicate")
	}
	if d.Check(key(1), now) {
		t.Error("m1, the oldest of four past a bound of three, is still remembered")
	}
	// m1 came again and pushed out m2: m3, m4 and m1 are remembered.
	answer := func(i int, token, frame string) {
		d.Track(key(i), token)
		b := make([]byte, len(frame)) // its capacity is what the budget counts
		copy(b, frame)
		d.Answered(key(i), token, delivery.Outbound{Frame: b})
	}
	answer(3, "T3", "aaaaaa") // 6 bytes
	answer(4, "T4", "bbbbbb") // 6 more: past 10, m3's answer goes
	if _, a := d.State(key(3)); a != nil {
		t.Error("the oldest kept answer, m3's, was not dropped to make room")
	}
	if _, a := d.State(key(4)); a == nil || string(a.Frame) != "bbbbbb" {
		t.Errorf("m4's answer: %v", a)
	}
	if n, bytes := d.Size(); n != 3 || bytes != 6 {
		t.Errorf("size %d entries, %d bytes; want 3, 6", n, bytes)
	}
	if got := testutil.ToFloat64(d.entries.Counter()); got != 2 {
		t.Errorf("entries dropped %v, want 2", got)
	}
	if got := testutil.ToFloat64(d.kept.Counter()); got != 1 {
		t.Errorf("answers dropped %v, want 1", got)
	}
	out, err := testutil.GatherAndCount(reg, "bridge_table_limit", "bridge_table_size", "bridge_table_dropped_total")
	if err != nil || out != 6 {
		t.Errorf("%d table series, %v; want 6", out, err)
	}
	// The window: everything is older than a minute an hour from now.
	if d.Check(key(4), now.Add(time.Hour)) {
		t.Error("m4 is remembered past the window")
	}
	if n, bytes := d.Size(); n != 1 || bytes != 0 {
		t.Errorf("after the window: %d entries, %d bytes; want 1, 0", n, bytes)
	}
}

// TestDedupeRequestRecords: what State tells of a request through its
// life, with requests forgotten in between: a later request carries
// nothing of one forgotten, and State's caller gets a copy of the answer.
func TestDedupeRequestRecords(t *testing.T) {
	key := func(i int) Key { k, _ := Identify("A", &canonical.Envelope{ID: fmt.Sprint("m", i)}); return k }
	frame := func(s string) delivery.Outbound {
		b := []byte(s)
		return delivery.Outbound{Frame: b[:len(s):len(s)], Final: true} // its capacity is what the budget counts
	}
	now := time.Now()
	d := New(time.Minute, 2, 100)
	type state struct {
		token  string
		answer string // "" for none
	}
	for _, step := range []struct {
		name string
		do   func()
		id   int
		want state
	}{
		{"not seen", func() {}, 1, state{}},
		{"seen, not tracked", func() { d.Check(key(1), now) }, 1, state{}},
		{"tracked", func() { d.Track(key(1), "T1") }, 1, state{token: "T1"}},
		{"answered under another token", func() { d.Answered(key(1), "T0", frame("no")) }, 1, state{token: "T1"}},
		{"answered", func() { d.Answered(key(1), "T1", frame("a1")) }, 1, state{answer: "a1"}},
		{"answered again", func() { d.Answered(key(1), "T1", frame("again")) }, 1, state{answer: "a1"}},
		{"untracked is not tracked", func() { d.Track(key(9), "T9") }, 9, state{}},
		{"second request", func() { d.Check(key(2), now); d.Track(key(2), "T2") }, 2, state{token: "T2"}},
		// A third entry past the bound of two forgets m1 and its record.
		{"first forgotten", func() { d.Check(key(3), now) }, 1, state{}},
		{"third tracked", func() { d.Track(key(3), "T3") }, 3, state{token: "T3"}},
		{"third answered", func() { d.Answered(key(3), "T3", frame("a3")) }, 3, state{answer: "a3"}},
		{"others unchanged", func() {}, 2, state{token: "T2"}},
	} {
		step.do()
		token, a := d.State(key(step.id))
		got := state{token: token}
		if a != nil {
			got.answer = string(a.Frame)
			if !a.Final {
				t.Errorf("%s: the answer lost its fields: %+v", step.name, a)
			}
			a.Frame = nil // the caller's copy: the table's is not changed
		}
		if got != step.want {
			t.Errorf("%s: m%d is %+v, want %+v", step.name, step.id, got, step.want)
		}
	}
	if _, bytes := d.Size(); bytes != len("a3") {
		t.Errorf("%d bytes of answers kept, want m3's alone", bytes)
	}
	if _, a := d.State(key(3)); a == nil || string(a.Frame) != "a3" {
		t.Errorf("m3's answer after State's caller changed its copy: %v", a)
	}
}

// BenchmarkDedupeRequest is what the router does with the table for each
// request and its answer: Check, Track, Answered; "bound" in a table at
// its bound of entries, "window" in one that forgets nothing yet (the
// first window).
func BenchmarkDedupeRequest(b *testing.B) {
	for _, bc := range []struct {
		name    string
		entries int
	}{{"bound", 10_000}, {"window", 1 << 30}} {
		b.Run(bc.name, func(b *testing.B) {
			d := New(time.Hour, bc.entries, 1<<30)
			keys := make([]Key, min(b.N, 4*bc.entries))
			for i := range keys {
				keys[i], _ = Identify("A", &canonical.Envelope{ID: fmt.Sprint("m", i)})
			}
			frame := make([]byte, 200)
			now := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := keys[i%len(keys)]
				if d.Check(k, now) {
					continue
				}
				d.Track(k, "TOKEN")
				d.Answered(k, "TOKEN", delivery.Outbound{Frame: frame})
			}
		})
	}
}
