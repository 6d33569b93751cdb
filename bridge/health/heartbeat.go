// Package health runs the bridge's background checks of its agents: the
// heartbeat that pings every connection that can be pinged, spread over
// each round, and the forgetting of agents known only from HTTP requests
// that have sent none for a while. What a check finds is told back to the
// caller; the agents' states are the directory's (bridge/directory).
package health

import (
	"context"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/sleep"
)

// Target is one connection a heartbeat round pings.
type Target interface {
	// Ping checks that the peer is alive, giving up when ctx ends.
	Ping(ctx context.Context) error
	// Pinged is told what Ping returned.
	Pinged(err error)
}

// Step is the shortest wait between two steps of a heartbeat round.
const Step = 20 * time.Millisecond

// Heartbeat pings, once each round of interval until stop is closed, each
// target that round returns at the round's start. A round's pings are
// spread over it in steps (Steps): pinged all at once, 10,000 agents'
// pings and pongs held every other message up for half a second (bench
// --idle 10000 at 1,000 pairs/s: a p99 of 390-500 ms with the heartbeat,
// 2-3 ms without). Each ping has its own goroutine and a time limit of
// interval. One goroutine serves all targets; it sleeps outside the
// runtime's timers (package sleep): one long-lived runtime timer in the
// process made each round trip through the bridge about 60 us slower on
// the hop benchmark, though it never fired during the run. A target that
// appears during a round is pinged from the next.
func Heartbeat(interval time.Duration, round func() []Target, stop <-chan struct{}) {
	go func() {
		for {
			targets := round()
			steps := Steps(len(targets), interval)
			for k := range steps {
				sleep.OutsideRuntime(interval / time.Duration(steps))
				select {
				case <-stop:
					return
				default:
				}
				for _, t := range StepOf(targets, k, steps) {
					go ping(t, interval)
				}
			}
		}
	}()
}

func ping(t Target, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := t.Ping(ctx)
	cancel()
	t.Pinged(err)
}

// Steps returns in how many steps a heartbeat round of interval pings n
// targets: one per target, at most one per Step, at least one.
func Steps(n int, interval time.Duration) int {
	return max(1, min(n, int(interval/Step)))
}

// StepOf returns the targets of round that step k of steps pings: every
// target in exactly one step, the steps' sizes differing by one at most.
func StepOf[T any](round []T, k, steps int) []T {
	return round[k*len(round)/steps : (k+1)*len(round)/steps]
}

// Forgetting calls forget with the time before which agents are
// forgotten (now less after), every so often until stop is closed: every
// quarter of after, between 10 ms and a minute.
func Forgetting(after time.Duration, forget func(before time.Time), stop <-chan struct{}) {
	every := min(max(after/4, 10*time.Millisecond), time.Minute)
	Every(every, func() { forget(time.Now().Add(-after)) }, stop)
}

// Every calls f every interval until stop is closed, sleeping outside the
// runtime's timers as Heartbeat does.
func Every(interval time.Duration, f func(), stop <-chan struct{}) {
	go func() {
		for {
			sleep.OutsideRuntime(interval)
			select {
			case <-stop:
				return
			default:
			}
			f()
		}
	}()
}
