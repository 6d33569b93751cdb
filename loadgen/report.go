package loadgen

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Report is what a load run measured.
type Report struct {
	// The run's shape.
	Agents, Requesters, Responders int
	Validate                       string
	Window                         int
	Rate                           float64 // offered pairs per second; 0: as fast as the window allows
	Payload                        int     // filler bytes per request
	Pairs                          int     // asked for
	// Dialects are those the agents were dealt over: every registered
	// dialect.
	Dialects []string
	// Instances is how many bridges carried it, as one cluster when
	// more than one: every pair then crossed instances.
	Instances int
	// Single is the same load through one bridge, run first when
	// Instances is more than one; nil otherwise.
	Single *Report
	// Bridge is the memory of a bridge in its own process (External,
	// Spawn) before the load and after it; nil for one in this process.
	Bridge *BridgeMemory
	// Idle is what the idle agents cost; nil without any.
	Idle *IdleReport

	// Stopped says why the run ended before every request was sent and
	// answered: "time limit", "interrupted" or "a connection failed"; ""
	// when it did not.
	Stopped string
	// Setup is how long starting the bridge and connecting the agents
	// took; Elapsed runs from the first request to the last answer.
	Setup, Elapsed time.Duration

	Sent      int64 // requests written
	Completed int64 // answered with the result asked for
	// Errors are requests answered with an error (a failure, refusal,
	// timeout...) or a wrong result; ErrorKinds says which.
	Errors     int64
	ErrorKinds []ErrorKind
	// Lost are requests sent and never answered.
	Lost int64
	// Duplicated are second answers to one request (at the requesters)
	// and requests received twice in a row (at the responders).
	Duplicated, DuplicatedRequests int64
	// Reordered are requests a responder received after a later one of
	// the same requester, and results a requester received from one
	// responder after a later one.
	Reordered, ReorderedAnswers int64
	// Stray are frames nobody expected: an answer to no request sent, a
	// message a responder cannot read as a request, an undecodable one.
	Stray        int64
	StrayExample string
	// Broken is how many agents' connections failed during the run.
	Broken        int
	BrokenExample string

	// Frames the bridge received from the agents and delivered to them
	// (elizaacl requesters also get the bridge's TASK_ACCEPT for agents
	// whose dialect has no accept).
	Received, Delivered int64

	// Latency is the round trip of every answered request, from writing
	// the request to reading its answer.
	Latency Latency
	// ByDialect is the same per pair of dialects that carried traffic,
	// requester's first.
	ByDialect []DialectPair
}

// BridgeMemory is a bridge process's memory before the load and after it.
type BridgeMemory struct{ Before, After Memory }

// Latency summarises round-trip times.
type Latency struct {
	N                         int
	Mean, P50, P90, P99, P999 time.Duration
	Max                       time.Duration
}

// DialectPair is the traffic from requesters of one dialect to responders
// of another.
type DialectPair struct {
	From, To string
	Latency  Latency
}

// ErrorKind is one kind of error answer: its canonical code (else its
// act), how many and the first one's message.
type ErrorKind struct {
	Kind    string
	Count   int64
	Example string
}

// PairsPerSecond is the completed and failed pairs per second of Elapsed.
func (r *Report) PairsPerSecond() float64 {
	return perSecond(r.Completed+r.Errors, r.Elapsed)
}

// MessagesPerSecond is the frames the bridge received and handled per
// second of Elapsed.
func (r *Report) MessagesPerSecond() float64 { return perSecond(r.Received, r.Elapsed) }

// DeliveredPerSecond is the frames the bridge delivered per second of
// Elapsed.
func (r *Report) DeliveredPerSecond() float64 { return perSecond(r.Delivered, r.Elapsed) }

func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Problems lists what went wrong: requests lost, answers duplicated,
// anything out of order, error answers, stray frames, broken
// connections. None means the bridge carried the load intact.
func (r *Report) Problems() []string {
	var out []string
	add := func(n int64, what string) {
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(r.Lost, "lost")
	add(r.Duplicated, "duplicated answers")
	add(r.DuplicatedRequests, "duplicated requests")
	add(r.Reordered, "requests reordered")
	add(r.ReorderedAnswers, "answers reordered")
	add(r.Errors, "errors")
	add(r.Stray, "stray frames")
	add(int64(r.Broken), "broken connections")
	if r.Single != nil {
		for _, p := range r.Single.Problems() {
			out = append(out, p+" through the single bridge")
		}
	}
	return out
}

// Failed reports whether there are Problems.
func (r *Report) Failed() bool { return len(r.Problems()) > 0 }

// String is the report as a readable table.
func (r *Report) String() string {
	var b strings.Builder
	rate := "as fast as the window allows"
	if r.Rate > 0 {
		rate = fmt.Sprintf("%.0f pairs/s offered", r.Rate)
	}
	fmt.Fprintf(&b, "mcp-bridge load: %d agents (%s, %s, over %s), validate %s, window %d, %s",
		r.Agents, plural(r.Requesters, "requester"), plural(r.Responders, "responder"),
		plural(min(r.Responders, len(r.Dialects)), "dialect"), r.Validate, r.Window, rate)
	if r.Payload > 0 {
		fmt.Fprintf(&b, ", %d B filler", r.Payload)
	}
	if r.Instances > 1 {
		fmt.Fprintf(&b, "; %d bridges in a cluster on one NATS, every pair across instances", r.Instances)
	}
	b.WriteString("\n\n")
	row := func(k, format string, a ...any) { fmt.Fprintf(&b, "  %-12s "+format+"\n", append([]any{k}, a...)...) }
	row("pairs", "%d asked, %d sent, %d completed, in %s (set-up %s)", r.Pairs, r.Sent, r.Completed, round(r.Elapsed), round(r.Setup))
	if r.Stopped != "" {
		row("stopped", "early: %s", r.Stopped)
	}
	row("throughput", "%.0f pairs/s; bridge %.0f msgs/s received, %.0f msgs/s delivered", r.PairsPerSecond(), r.MessagesPerSecond(), r.DeliveredPerSecond())
	l := r.Latency
	row("latency", "p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (mean %s, %d round trips)", ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max), ms(l.Mean), l.N)
	row("errors", "%d", r.Errors)
	for _, k := range r.ErrorKinds {
		fmt.Fprintf(&b, "  %-12s   %d %s, e.g. %q\n", "", k.Count, k.Kind, k.Example)
	}
	row("lost", "%d", r.Lost)
	row("duplicated", "%d answers, %d requests", r.Duplicated, r.DuplicatedRequests)
	row("reordered", "%d requests (at the responders, per requester), %d answers (at the requesters, per responder)", r.Reordered, r.ReorderedAnswers)
	if r.Stray > 0 {
		row("stray", "%d, e.g. %s", r.Stray, r.StrayExample)
	}
	if r.Broken > 0 {
		row("broken", "%d connections, e.g. %s", r.Broken, r.BrokenExample)
	}
	if m := r.Bridge; m != nil {
		row("bridge", "its own process: RSS %s before the load, %s after; Go heap %s, %s (each after a collection)",
			mb(m.Before.RSS), mb(m.After.RSS), mb(m.Before.HeapInuse), mb(m.After.HeapInuse))
		row("gc", "%d collections during the load, pauses %s in all, the longest of the recent ones %s",
			m.After.GCs-m.Before.GCs, ms(m.After.GCPause-m.Before.GCPause), ms(m.After.MaxPause))
	}
	if i := r.Idle; i != nil {
		row("idle", "%d agents connected and introduced in %s before the load", i.Agents, round(i.Connect))
		if i.PeakWith > 0 {
			rss, heap := i.PerAgent()
			row("", "each: %.1f KB resident (peak RSS over %s with a heartbeat round: %s without them, %s with; %s), %.1f KB Go heap (after a collection: %s without, %s with)",
				rss/1024, i.PeakWindow, mb(i.PeakWithout), mb(i.PeakWith), i.PeakBy, heap/1024, mb(i.Without.HeapInuse), mb(i.With.HeapInuse))
		}
		row("", "a request to one of them: p50 %s, p99 %s; to lone agents (one per dialect) before they came: p50 %s, p99 %s (p50 %.2fx)",
			ms(i.Reached.P50), ms(i.Reached.P99), ms(i.Unloaded.P50), ms(i.Unloaded.P99), ratio(i.Reached.P50, i.Unloaded.P50))
	}
	if len(r.ByDialect) > 0 {
		r.dialectTable(&b)
	}
	if r.Single != nil {
		r.comparison(&b)
	}
	if p := r.Problems(); len(p) > 0 {
		fmt.Fprintf(&b, "\nFAIL: %s\n", strings.Join(p, ", "))
	} else {
		b.WriteString("\nPASS: nothing lost, duplicated or reordered; no errors\n")
	}
	return b.String()
}

// comparison writes the cluster's figures beside the single bridge's of
// the same run, as ratios.
func (r *Report) comparison(b *strings.Builder) {
	s := r.Single
	fmt.Fprintf(b, "\n  %d instances against one bridge, the same load run first through one:\n", r.Instances)
	fmt.Fprintf(b, "  %-16s %10s %10s %14s %s\n", "", "p50", "p99", "pairs/s", "lost/dup/reordered")
	line := func(name string, x *Report) {
		fmt.Fprintf(b, "  %-16s %10s %10s %14.0f %d/%d/%d\n", name, ms(x.Latency.P50), ms(x.Latency.P99), x.PairsPerSecond(),
			x.Lost, x.Duplicated+x.DuplicatedRequests, x.Reordered+x.ReorderedAnswers)
	}
	line("single bridge", s)
	line("cross-instance", r)
	fmt.Fprintf(b, "  %-16s %9.2fx %9.2fx %13.2fx\n", "ratio", ratio(r.Latency.P50, s.Latency.P50), ratio(r.Latency.P99, s.Latency.P99),
		r.PairsPerSecond()/max(s.PairsPerSecond(), 1e-9))
}

// ratio is a/b, 0 when b is.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// dialectTable writes p50/p99 per pair of dialects, rows the requesters'.
func (r *Report) dialectTable(b *strings.Builder) {
	cells := map[[2]string]Latency{}
	for _, p := range r.ByDialect {
		cells[[2]string{p.From, p.To}] = p.Latency
	}
	fmt.Fprintf(b, "\n  round trips by dialect, p50 / p99 (ms); rows: requester, columns: responder\n  %-10s", "")
	for _, to := range r.Dialects {
		fmt.Fprintf(b, " %15s", to)
	}
	b.WriteString("\n")
	for _, from := range r.Dialects {
		fmt.Fprintf(b, "  %-10s", from)
		for _, to := range r.Dialects {
			l, ok := cells[[2]string{from, to}]
			if !ok {
				fmt.Fprintf(b, " %15s", "-")
				continue
			}
			fmt.Fprintf(b, " %15s", fmt.Sprintf("%.2f / %.2f", millis(l.P50), millis(l.P99)))
		}
		b.WriteString("\n")
	}
}

// summarise returns the latency summary of round trips in nanoseconds; it
// sorts them.
func summarise(ns []int64) Latency {
	if len(ns) == 0 {
		return Latency{}
	}
	slices.Sort(ns)
	var sum float64
	for _, v := range ns {
		sum += float64(v)
	}
	at := func(q float64) time.Duration {
		// Nearest rank: the smallest value with at least q of them at or
		// below it.
		i := int(math.Ceil(q*float64(len(ns)))) - 1
		return time.Duration(ns[min(max(i, 0), len(ns)-1)])
	}
	return Latency{
		N: len(ns), Mean: time.Duration(sum / float64(len(ns))),
		P50: at(0.50), P90: at(0.90), P99: at(0.99), P999: at(0.999), Max: time.Duration(ns[len(ns)-1]),
	}
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", millis(d)) }

func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
