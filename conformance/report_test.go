package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"
)

// TestReports runs the suite against an agent that misquotes its answers
// and reads back each report: the text lines, the JSON, the JUnit XML and
// the transcript.
func TestReports(t *testing.T) {
	var text, tr bytes.Buffer
	o := testOptions("swarm", time.Second)
	o.Progress = TextProgress(&text)
	o.Transcript = &tr
	rep := runTest(t, testAgent("swarm:wrong-correlation"), o)
	v := rep.Verdict()
	if v.Code != 1 || len(v.Unexpected) != 1 || v.Unexpected[0] != "swarm.request.correlated" {
		t.Fatalf("verdict %+v", v)
	}

	t.Run("text", func(t *testing.T) {
		out := text.String()
		WriteSummary(&text, &rep, v)
		for _, want := range []string{
			"pass  MUST    swarm.handshake.response ",
			"FAIL  MUST    swarm.request.correlated ",
			"      frame: {",
			`      at correlation_id: must quote "conf-`,
			"-- connected to the agent",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
		if !strings.Contains(text.String(), "swarm: MUST 8 passed, 1 failed, 0 skipped; SHOULD 6 passed, 0 warned, 0 skipped") ||
			!strings.Contains(text.String(), "failed: swarm.request.correlated\nFAIL (exit 1)") {
			t.Errorf("summary:\n%s", text.String())
		}
	})

	t.Run("JSON", func(t *testing.T) {
		var b bytes.Buffer
		if err := rep.WriteJSON(&b, v); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Dialect string
			Frames  int
			Summary struct {
				Must, Should struct{ Pass, Failed, Skip int }
			}
			Verdict struct {
				ExitCode   int `json:"exit_code"`
				Unexpected []string
			}
			Results []struct {
				ID, Status, Level, Rule string
				Frame                   json.RawMessage
				Path                    *string
			}
		}
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		if got.Dialect != "swarm" || got.Frames != rep.Frames || got.Summary.Must.Failed != 1 || got.Verdict.ExitCode != 1 || len(got.Results) != len(rep.Results) {
			t.Errorf("%s", b.String())
		}
		for _, r := range got.Results {
			if r.ID != "swarm.request.correlated" {
				continue
			}
			var frame map[string]any
			if r.Status != "FAIL" || r.Path == nil || *r.Path != "correlation_id" || json.Unmarshal(r.Frame, &frame) != nil || frame["correlation_id"] != "not-the-request" {
				t.Errorf("the failure in JSON: %+v %s", r, r.Frame)
			}
		}
	})

	t.Run("JUnit", func(t *testing.T) {
		var b bytes.Buffer
		if err := rep.WriteJUnit(&b); err != nil {
			t.Fatal(err)
		}
		var doc junitSuites
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		sections := map[string]bool{}
		for _, res := range rep.Results {
			sections[res.Section] = true
		}
		if doc.Tests != len(rep.Results) || doc.Failures != 1 || len(doc.Suites) != len(sections) {
			t.Errorf("tests %d failures %d suites %d, want %d, 1, %d", doc.Tests, doc.Failures, len(doc.Suites), len(rep.Results), len(sections))
		}
		found := false
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				if c.Name == "swarm.request.correlated" {
					found = c.Failure != nil && c.Failure.Type == "MUST" && strings.Contains(c.Failure.Text, "at correlation_id: must quote") &&
						strings.HasPrefix(s.Name, "swarm: specs/swarm.md ")
				}
			}
		}
		if !found {
			t.Errorf("no failed testcase for swarm.request.correlated:\n%s", b.String())
		}
	})

	t.Run("transcript", func(t *testing.T) {
		lines := bufio.NewScanner(&tr)
		lines.Buffer(nil, 4<<20)
		counts := map[string]int{}
		for lines.Scan() {
			var l transcriptLine
			if err := json.Unmarshal(lines.Bytes(), &l); err != nil || l.Time == "" || !json.Valid(l.Frame) {
				t.Fatalf("line %q: %v", lines.Text(), err)
			}
			counts[l.Direction]++
		}
		if counts["received"] != rep.Frames || counts["sent"] < len(rep.Results) || len(counts) != 2 {
			t.Errorf("transcript lines %v for %d frames received", counts, rep.Frames)
		}
	})
}

// TestVerdict checks the exit codes of a report, with and without a list
// of expected failures.
func TestVerdict(t *testing.T) {
	rep := Report{Results: []Result{
		{ID: "d.must.pass", Level: Must, Status: Pass},
		{ID: "d.must.fail", Level: Must, Status: Fail},
		{ID: "d.should.warn", Level: Should, Status: Warn},
		{ID: "d.must.skip", Level: Must, Status: Skip},
	}}
	cases := []struct {
		name     string
		expected []string // nil: no list
		code     int
		unexp    []string
		stale    []string
		notRun   []string
	}{
		{name: "a failed MUST fails", code: 1, unexp: []string{"d.must.fail"}},
		{name: "exactly the failures", expected: []string{"d.must.fail", "d.should.warn"}, code: 0},
		{name: "a warning not listed", expected: []string{"d.must.fail"}, code: 1, unexp: []string{"d.should.warn"}},
		{name: "a listed pass is stale", expected: []string{"d.must.fail", "d.should.warn", "d.must.pass"}, code: 1, stale: []string{"d.must.pass"}},
		{name: "a listed skip did not run", expected: []string{"d.must.fail", "d.should.warn", "d.must.skip"}, code: 0, notRun: []string{"d.must.skip"}},
		{name: "an empty list", expected: []string{}, code: 1, unexp: []string{"d.must.fail", "d.should.warn"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := rep.Verdict()
			if tc.expected != nil {
				v = rep.VerdictExpecting(tc.expected)
			}
			if v.Code != tc.code || !equalLists(v.Unexpected, tc.unexp) || !equalLists(v.Stale, tc.stale) || !equalLists(v.NotRun, tc.notRun) {
				t.Errorf("%+v", v)
			}
		})
	}
	if (&Report{Results: []Result{{Level: Should, Status: Warn}}}).Verdict().Code != 0 {
		t.Error("a warning alone fails the run")
	}
}

// TestExpectedFailuresFile checks the --expected-failures format.
func TestExpectedFailuresFile(t *testing.T) {
	cases := []struct {
		file string
		want []string
		err  string
	}{
		{"- swarm.a\n- swarm.b\n", []string{"swarm.a", "swarm.b"}, ""},
		{"", nil, ""},
		{"[]\n", []string{}, ""},
		{"- swarm.a\n- swarm.a\n", nil, "listed twice"},
		{"swarm.a: yes\n", nil, "want a YAML list"},
		{"- \"\"\n", nil, "item 1 is empty"},
	}
	for _, tc := range cases {
		got, err := ParseExpectedFailures([]byte(tc.file))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want %q", tc.file, err, tc.err)
		case tc.err == "" && (err != nil || !equalLists(got, tc.want)):
			t.Errorf("%q: %v %v, want %v", tc.file, got, err, tc.want)
		}
	}
	if err := CheckIDs("swarm", []string{"swarm.request.answered", "swarm.nope"}); err == nil || !strings.Contains(err.Error(), `"swarm.nope"`) {
		t.Errorf("CheckIDs: %v", err)
	}
}
