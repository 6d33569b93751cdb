package child

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	const ms = time.Millisecond
	quick := ms // a run shorter than stableRuns*min
	for _, tc := range []struct {
		name     string
		min, max time.Duration
		ran      []time.Duration
		want     []time.Duration
	}{
		{name: "doubles up to max", min: 100 * ms, max: 1000 * ms,
			ran:  []time.Duration{quick, quick, quick, quick, quick, quick},
			want: []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms, 1000 * ms}},
		{name: "a stable run starts over", min: 100 * ms, max: 1000 * ms,
			ran:  []time.Duration{quick, quick, quick, 999 * ms, quick, time.Second, time.Hour},
			want: []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1000 * ms, 100 * ms, 100 * ms}},
		{name: "min equals max", min: 50 * ms, max: 50 * ms,
			ran:  []time.Duration{quick, quick, quick},
			want: []time.Duration{50 * ms, 50 * ms, 50 * ms}},
		{name: "max not a power of two of min", min: 3 * ms, max: 10 * ms,
			ran:  []time.Duration{quick, quick, quick, quick},
			want: []time.Duration{3 * ms, 6 * ms, 10 * ms, 10 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBackoff(tc.min, tc.max)
			for i, ran := range tc.ran {
				if got := b.After(ran); got != tc.want[i] {
					t.Errorf("restart %d (ran %s): wait %s, want %s", i+1, ran, got, tc.want[i])
				}
			}
		})
	}
}
