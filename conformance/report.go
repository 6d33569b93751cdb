package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

// Status is how a requirement fared.
type Status string

// The statuses. A failed SHOULD is a warning, but in a strict run, where
// it is a failure as a failed MUST is.
const (
	Pass Status = "pass"
	Fail Status = "FAIL"
	Warn Status = "warn"
	Skip Status = "skip"
)

// Result is one requirement's outcome.
type Result struct {
	ID      string
	Dialect string
	Spec    string
	Section string
	Level   Level
	Title   string
	Status  Status
	// Detail says what happened: why it failed or was skipped, or a note on
	// a pass.
	Detail string
	// Frame is the offending frame, clipped; Path the JSON path in it and
	// Rule the rule it broke, when a frame is to blame.
	Frame string
	Path  string
	Rule  string
	// Duration is how long the requirement took.
	Duration time.Duration
}

// Failed reports whether the requirement failed (a MUST) or warned (a
// SHOULD).
func (r Result) Failed() bool { return r.Status == Fail || r.Status == Warn }

// resultOf starts the result of req with its status for a failure.
func resultOf(req Requirement) Result {
	return Result{ID: req.ID, Dialect: req.Dialect, Spec: req.Spec, Section: req.Section, Level: req.Level, Title: req.Title}
}

// failed returns the status of a failure at level.
func failed(level Level) Status {
	if level == Must {
		return Fail
	}
	return Warn
}

// Report is the outcome of one run.
type Report struct {
	Dialect string
	Spec    string
	// Target names the agent under test and how it was reached.
	Target string
	// Agent is the id the suite addressed the agent by; Suite is its own.
	Agent string
	Suite string
	// Operations are the operations the suite called, and where they came
	// from ("declared" or "--op").
	Operations       []string
	OperationsSource string
	Started          time.Time
	Duration         time.Duration
	// Frames is how many frames the agent sent.
	Frames  int
	Results []Result
	// Stopped says why the run stopped before its end, if it did.
	Stopped string
	// Strict says that a failed SHOULD failed the run (Options.Strict).
	Strict bool
}

// Counts are the outcomes of one level's requirements.
type Counts struct {
	Pass, Failed, Skip int
}

// Summary counts the outcomes by level.
type Summary struct {
	Must, Should Counts
}

// Summary counts the report's outcomes by level.
func (r *Report) Summary() Summary {
	var s Summary
	for _, res := range r.Results {
		c := &s.Should
		if res.Level == Must {
			c = &s.Must
		}
		switch {
		case res.Status == Pass:
			c.Pass++
		case res.Failed():
			c.Failed++
		default:
			c.Skip++
		}
	}
	return s
}

// Verdict is what a run means for CI.
type Verdict struct {
	// Code is the exit code: 0 passed, 1 failed.
	Code int
	// Unexpected are the requirements that failed and were not expected to
	// (without a list of expected failures: the failed MUSTs).
	Unexpected []string
	// Stale are the expected failures that passed.
	Stale []string
	// NotRun are the expected failures that were skipped or not selected.
	NotRun []string
}

// Verdict passes the run when no requirement has the status FAIL: no MUST
// failed, nor, in a strict run, a SHOULD; otherwise failed SHOULDs only
// warn.
func (r *Report) Verdict() Verdict {
	var v Verdict
	for _, res := range r.Results {
		if res.Status == Fail {
			v.Unexpected = append(v.Unexpected, res.ID)
		}
	}
	if len(v.Unexpected) > 0 {
		v.Code = 1
	}
	return v
}

// VerdictExpecting passes the run only when exactly the expected
// requirements failed, as the MCP conformance suite does: a failure not
// listed, a warning included, fails the run; so does a listed requirement
// that passed (a stale entry). Listed requirements that did not run are
// reported and do not count.
func (r *Report) VerdictExpecting(expected []string) Verdict {
	want := map[string]bool{}
	for _, id := range expected {
		want[id] = true
	}
	var v Verdict
	ran := map[string]bool{}
	for _, res := range r.Results {
		ran[res.ID] = res.Status != Skip
		switch {
		case res.Failed() && !want[res.ID]:
			v.Unexpected = append(v.Unexpected, res.ID)
		case res.Status == Pass && want[res.ID]:
			v.Stale = append(v.Stale, res.ID)
		}
	}
	for _, id := range expected {
		if !ran[id] {
			v.NotRun = append(v.NotRun, id)
		}
	}
	if len(v.Unexpected)+len(v.Stale) > 0 {
		v.Code = 1
	}
	return v
}

// ReadExpectedFailures reads a YAML list of requirement ids, as
// --expected-failures takes it.
func ReadExpectedFailures(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parseExpectedFailures(file, data)
}

// ParseExpectedFailures reads a YAML list of requirement ids; an empty
// document is an empty list.
func ParseExpectedFailures(data []byte) ([]string, error) {
	return parseExpectedFailures("expected-failures.yaml", data)
}

// expectedFailures is the format of --expected-failures: a list of
// requirement ids, each once.
var expectedFailures = &spec.Spec{
	Root: spec.List("", "", spec.String("", "").Named("a requirement id").EmptyOK()).Distinct().Rule(
		func(d *spec.Decoder, v *spec.Value) {
			for _, it := range v.Items() {
				if it.String() == "" {
					n, _ := strconv.Atoi(strings.Trim(it.Path(), "[]"))
					d.Fail(it.Pos(), it.Path(), "item %d is empty", n+1)
				}
			}
		}),
	Noun:    "list of expected failures",
	Shape:   "want a YAML list of requirement ids",
	Empty:   true,
	Columns: true,
}

// parseExpectedFailures reads a list of expected failures, named file in
// errors.
func parseExpectedFailures(file string, data []byte) ([]string, error) {
	v, err := expectedFailures.Decode(file, data)
	if err != nil {
		return nil, fmt.Errorf("expected failures: %w", err)
	}
	if v == nil {
		return nil, nil
	}
	return v.Strings(), nil
}

// CheckIDs returns an error naming the ids that are not requirements of
// the dialect.
func CheckIDs(dialect string, ids []string) error {
	s, err := SuiteFor(dialect)
	if err != nil {
		return err
	}
	_, err = s.Select(Should, ids, nil)
	return err
}

// reportJSON is the report as --json writes it.
type reportJSON struct {
	Dialect          string       `json:"dialect"`
	Spec             string       `json:"spec"`
	Target           string       `json:"target"`
	Agent            string       `json:"agent"`
	Suite            string       `json:"suite"`
	Operations       []string     `json:"operations"`
	OperationsSource string       `json:"operations_source,omitempty"`
	Started          string       `json:"started"`
	DurationMS       float64      `json:"duration_ms"`
	Frames           int          `json:"frames"`
	Stopped          string       `json:"stopped,omitempty"`
	Strict           bool         `json:"strict"`
	Summary          summaryJSON  `json:"summary"`
	Verdict          verdictJSON  `json:"verdict"`
	Results          []resultJSON `json:"results"`
}

type summaryJSON struct {
	Must   countsJSON `json:"must"`
	Should countsJSON `json:"should"`
}

type countsJSON struct {
	Pass   int `json:"pass"`
	Failed int `json:"failed"`
	Skip   int `json:"skip"`
}

type verdictJSON struct {
	ExitCode   int      `json:"exit_code"`
	Unexpected []string `json:"unexpected,omitempty"`
	Stale      []string `json:"stale,omitempty"`
	NotRun     []string `json:"not_run,omitempty"`
}

type resultJSON struct {
	ID         string          `json:"id"`
	Section    string          `json:"section"`
	Level      Level           `json:"level"`
	Title      string          `json:"title"`
	Status     Status          `json:"status"`
	Detail     string          `json:"detail,omitempty"`
	Frame      json.RawMessage `json:"frame,omitempty"`
	Path       *string         `json:"path,omitempty"`
	Rule       string          `json:"rule,omitempty"`
	DurationMS float64         `json:"duration_ms"`
}

// WriteJSON writes the report, its summary and verdict as one JSON
// document. The offending frame is JSON when it is, else a string.
func (r *Report) WriteJSON(w io.Writer, v Verdict) error {
	s := r.Summary()
	out := reportJSON{
		Dialect: r.Dialect, Spec: r.Spec, Target: r.Target, Agent: r.Agent, Suite: r.Suite,
		Operations: append([]string{}, r.Operations...), OperationsSource: r.OperationsSource,
		Started: r.Started.UTC().Format(time.RFC3339Nano), DurationMS: ms(r.Duration), Frames: r.Frames, Stopped: r.Stopped, Strict: r.Strict,
		Summary: summaryJSON{Must: countsJSON(s.Must), Should: countsJSON(s.Should)},
		Verdict: verdictJSON{ExitCode: v.Code, Unexpected: v.Unexpected, Stale: v.Stale, NotRun: v.NotRun},
		Results: []resultJSON{},
	}
	for _, res := range r.Results {
		j := resultJSON{ID: res.ID, Section: res.Section, Level: res.Level, Title: res.Title, Status: res.Status,
			Detail: res.Detail, Rule: res.Rule, DurationMS: ms(res.Duration)}
		if res.Frame != "" {
			j.Frame = frameJSON(res.Frame)
			path := res.Path
			j.Path = &path
		}
		out.Results = append(out.Results, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// frameJSON is a frame as a JSON value: itself when it is JSON, else a
// string.
func frameJSON(frame string) json.RawMessage {
	if json.Valid([]byte(frame)) {
		return compactJSON([]byte(frame))
	}
	b, _ := json.Marshal(frame) // a string always marshals
	return b
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// sections returns the sections of the results in the order they first
// appear, with the results of each.
func (r *Report) sections() ([]string, map[string][]Result) {
	var order []string
	by := map[string][]Result{}
	for _, res := range r.Results {
		if _, seen := by[res.Section]; !seen {
			order = append(order, res.Section)
		}
		by[res.Section] = append(by[res.Section], res)
	}
	return order, by
}
