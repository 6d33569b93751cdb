package canonical

import "testing"

// timestampSeeds are timestamps quick takes and ones it leaves to Parse,
// around each of its bounds.
var timestampSeeds = []string{
	"", "2026-11-21T10:00:00Z", "2026-11-21T10:00:00", "2026-11-21T10:00:00.123456Z",
	"2026-11-21T10:00:00.123456789", "2026-11-21T10:00:00.1234567891Z", "2026-11-21T10:00:00.Z",
	"2026-11-21T10:00:00+02:00", "2026-11-21T10:00:00.5-07:30", "2026-11-21T10:00:00+24:00",
	"2026-11-21T10:00:00+02:60", "2026-11-21T10:00:00z", "2026-11-21t10:00:00Z", "2026-11-21 10:00:00Z",
	"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00", "2000-02-29T00:00:00",
	"2026-04-31T00:00:00Z", "2026-12-31T23:59:59Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
	"2026-11-00T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T10:60:00Z", "2026-11-21T10:00:60Z",
	"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2026-11-21T1:00:00", "2026-11-21T10:00:00,5Z",
	"2026-11-21T10:00:00,5", "+026-11-21T10:00:00Z", "2026-1a-21T10:00:00Z", "2026-11-21T10:00:00+0200",
	"2026-11-21T10:00:00Z ", "2026-11-21T10:00:00.12-4:56", "now", "2026-11-21",
}

// TestTimestampValid checks Valid against Parse on the seeds.
func TestTimestampValid(t *testing.T) {
	for _, s := range timestampSeeds {
		checkValid(t, s)
	}
	// The shapes messages have take the fast path.
	for _, s := range []string{"2026-11-21T10:00:00Z", "2026-11-21T10:00:00.123456", "2024-02-29T00:00:00+02:00"} {
		if !quick(s) {
			t.Errorf("quick(%q) leaves it to Parse", s)
		}
	}
}

// FuzzTimestampValid feeds Valid's fast path (quick) and Parse, the
// library, the same text: Valid must say what Parse says, and quick must
// never take what Parse refuses.
func FuzzTimestampValid(f *testing.F) {
	for _, s := range timestampSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkValid(t, s) })
}

func checkValid(t *testing.T, s string) {
	t.Helper()
	ts := Timestamp(s)
	_, want := ts.Parse()
	if got := ts.Valid(); got != want {
		t.Errorf("Timestamp(%q).Valid() = %v, Parse says %v", s, got, want)
	}
	if quick(s) && !want {
		t.Errorf("quick(%q) takes a timestamp Parse refuses", s)
	}
}
