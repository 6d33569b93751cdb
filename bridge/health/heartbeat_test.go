package health

import (
	"testing"
	"time"
)

// TestHeartbeatSpread: a heartbeat round pings every session exactly once,
// in steps no shorter than Step whose sizes differ by one at most.
func TestHeartbeatSpread(t *testing.T) {
	for _, tc := range []struct {
		sessions  int
		interval  time.Duration
		wantSteps int
	}{
		{0, 10 * time.Second, 1},
		{1, 10 * time.Second, 1},
		{3, 10 * time.Second, 3},
		{500, 10 * time.Second, 500},
		{10000, 10 * time.Second, 500},
		{10000, 30 * time.Millisecond, 1},
		{7, 100 * time.Millisecond, 5},
	} {
		round := make([]*int, tc.sessions)
		for i := range round {
			round[i] = new(int)
		}
		steps := Steps(len(round), tc.interval)
		if steps != tc.wantSteps {
			t.Errorf("%d sessions every %s: %d steps, want %d", tc.sessions, tc.interval, steps, tc.wantSteps)
		}
		pinged := map[*int]int{}
		smallest, largest := len(round), 0
		for k := range steps {
			step := StepOf(round, k, steps)
			smallest, largest = min(smallest, len(step)), max(largest, len(step))
			for _, s := range step {
				pinged[s]++
			}
		}
		for i, s := range round {
			if pinged[s] != 1 {
				t.Errorf("%d sessions every %s: session %d pinged %d times in a round", tc.sessions, tc.interval, i, pinged[s])
			}
		}
		if largest-smallest > 1 {
			t.Errorf("%d sessions every %s: steps of %d to %d sessions", tc.sessions, tc.interval, smallest, largest)
		}
	}
}
