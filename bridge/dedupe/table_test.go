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
