package conformance

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStrict runs the collab suite against an agent that breaks a SHOULD
// (it drops the trace context from its answers, so two SHOULDs fail), with
// and without Strict: without, the SHOULDs warn and the run passes (exit
// 0); with it, they fail and so does the run (exit 1), in the verdict, the
// JSON report and the summary.
func TestStrict(t *testing.T) {
	broken := []string{"collab.trace.echo", "collab.trace.parent"}
	for _, tc := range []struct {
		strict bool
		status Status
		code   int
		says   string
	}{
		{strict: false, status: Warn, code: 0, says: "SHOULD 5 passed, 2 warned"},
		{strict: true, status: Fail, code: 1, says: "SHOULD 5 passed, 2 failed (--strict)"},
	} {
		t.Run(map[bool]string{false: "lenient", true: "strict"}[tc.strict], func(t *testing.T) {
			t.Parallel()
			o := testOptions("collab", time.Second)
			o.Strict = tc.strict
			rep := runTest(t, testAgent("collab:no-trace"), o)
			for _, id := range broken {
				if res := byID(rep)[id]; res.Level != Should || res.Status != tc.status {
					t.Errorf("%s: %s, want %s", id, describe(res), tc.status)
				}
			}
			for _, r := range rep.Results {
				if !slices.Contains(broken, r.ID) && r.Status != Pass {
					t.Errorf("another requirement did not pass: %s", describe(r))
				}
			}
			v := rep.Verdict()
			if v.Code != tc.code {
				t.Errorf("verdict %+v, want exit %d", v, tc.code)
			}
			var failedIDs []string
			if tc.strict {
				failedIDs = broken
			}
			if !slices.Equal(v.Unexpected, failedIDs) {
				t.Errorf("the verdict's failures are %v, want %v", v.Unexpected, failedIDs)
			}
			var out bytes.Buffer
			if err := rep.WriteJSON(&out, v); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Strict  bool `json:"strict"`
				Verdict struct {
					ExitCode int `json:"exit_code"`
				} `json:"verdict"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Strict != tc.strict || doc.Verdict.ExitCode != tc.code {
				t.Errorf("the JSON report says strict %v, exit %d; want %v, %d", doc.Strict, doc.Verdict.ExitCode, tc.strict, tc.code)
			}
			var summary bytes.Buffer
			WriteSummary(&summary, &rep, v)
			if !strings.Contains(summary.String(), tc.says) {
				t.Errorf("the summary does not say %q:\n%s", tc.says, summary.String())
			}
		})
	}
}
