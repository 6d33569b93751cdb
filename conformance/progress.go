package conformance

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress is told of a run as it goes. Its methods are called from the
// goroutine that called Run.
type Progress interface {
	// Started is called when a requirement that is reported begins.
	Started(req Requirement)
	// Finished is called with each reported requirement's result.
	Finished(res Result)
	// Note tells of the run itself: the agent connected, lost, started
	// again.
	Note(msg string)
}

// TextProgress writes a line per requirement as it finishes (pass, FAIL,
// warn or skip, its level, id and title) to w; under a failure or a
// warning, what happened, the offending frame and the JSON path and rule it
// broke; notes as lines starting with "--".
func TextProgress(w io.Writer) Progress { return &textProgress{w: w} }

type textProgress struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *textProgress) Started(Requirement) {}

func (p *textProgress) Finished(res Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%-4s  %-6s  %-40s  %s (%s)\n", res.Status, res.Level, res.ID, res.Title, took(res.Duration))
	if res.Status == Pass {
		return
	}
	if res.Detail != "" {
		fmt.Fprintf(p.w, "      %s\n", indent(res.Detail))
	}
	for _, line := range strings.Split(strings.TrimSuffix(evidence(res), "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(p.w, "      %s\n", line)
		}
	}
}

func (p *textProgress) Note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "-- %s\n", msg)
}

// took formats a duration for a report line: milliseconds under a second.
func took(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// indent indents the lines after the first of s for a report line.
func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n      ") }

// WriteSummary writes the summary of a report by level and its verdict.
func WriteSummary(w io.Writer, r *Report, v Verdict) {
	s := r.Summary()
	warned := "warned"
	if r.Strict {
		warned = "failed (--strict)"
	}
	fmt.Fprintf(w, "%s: MUST %d passed, %d failed, %d skipped; SHOULD %d passed, %d %s, %d skipped (%d frames from the agent, %s)\n",
		r.Dialect, s.Must.Pass, s.Must.Failed, s.Must.Skip, s.Should.Pass, s.Should.Failed, warned, s.Should.Skip, r.Frames, took(r.Duration))
	if r.Stopped != "" {
		fmt.Fprintf(w, "the run stopped early: %s\n", r.Stopped)
	}
	if len(v.Unexpected) > 0 {
		fmt.Fprintf(w, "failed: %s\n", strings.Join(v.Unexpected, ", "))
	}
	if len(v.Stale) > 0 {
		fmt.Fprintf(w, "stale expected failures (they pass now): %s\n", strings.Join(v.Stale, ", "))
	}
	if len(v.NotRun) > 0 {
		fmt.Fprintf(w, "expected failures not run: %s\n", strings.Join(v.NotRun, ", "))
	}
	verdict := "pass"
	if v.Code != 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s (exit %d)\n", verdict, v.Code)
}
