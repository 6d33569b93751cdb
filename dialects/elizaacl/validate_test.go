package elizaacl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateRules checks the spec's "must include" rules and that the
// schema's own wording of them is not repeated.
func TestValidateRules(t *testing.T) {
	tests := []struct {
		name, msg string
		want      []string
	}{
		{"reply without in_reply_to", `{"performative":"TASK_REJECT","payload":{"status":"rejected"}}`,
			[]string{"in_reply_to: TASK_REJECT must include in_reply_to, the message_id of the message it answers"}},
		{"capabilities reply with null in_reply_to", `{"performative":"INFORM_CAPABILITIES","in_reply_to":null,"payload":{"status":"success"}}`,
			[]string{"in_reply_to: INFORM_CAPABILITIES must include in_reply_to, the message_id of the message it answers"}},
		{"result without task_status", `{"performative":"INFORM_RESULT","in_reply_to":"m-1","payload":{"result_summary":"done"}}`,
			[]string{"payload.task_status: INFORM_RESULT must state its task_status"}},
		{"request without payload", `{"performative":"TASK_REQUEST"}`,
			[]string{"payload.task_type: TASK_REQUEST must name its task_type"}},
		{"request with empty task_type", `{"performative":"TASK_REQUEST","payload":{"task_type":""}}`,
			[]string{"payload.task_type: TASK_REQUEST must name its task_type"}},
		{"schema: priority and status words", `{"performative":"TASK_REQUEST","payload":{"task_type":"x","priority":"urgent","task_parameters":[]}}`,
			[]string{"payload.priority: value must be one of 'low', 'medium', 'high'", "payload.task_parameters: got array, want null or object"}},
		{"schema: accept status, eta", `{"performative":"TASK_ACCEPT","in_reply_to":"m-1","payload":{"status":"ok","estimated_completion_time":"5 minutes"}}`,
			[]string{"payload.estimated_completion_time: '5 minutes' does not match pattern", "payload.status: value must be 'accepted'"}},
		{"schema: sender without agent_id", `{"performative":"QUERY_REF","sender":{"name":"Eddy"},"payload":{"reference":"x"}}`,
			[]string{"sender: missing property 'agent_id'"}},
		{"schema: unknown performative", `{"performative":"PROPOSE"}`,
			[]string{"performative: value must be one of"}},
		{"question without a reply is fine", `{"performative":"QUERY_IF","payload":{"condition":"tests pass"}}`, nil},
		{"not an object", `[]`, []string{"got array, want object"}},
		{"not JSON", `{`, []string{"not valid JSON"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := codec().Validate([]byte(tc.msg))
			if len(got) != len(tc.want) {
				t.Fatalf("problems %v, want %d: %q", got, len(tc.want), tc.want)
			}
			for i, p := range got {
				if !strings.Contains(p.String(), tc.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p, tc.want[i])
				}
			}
		})
	}
}

// TestDetect checks that elizaacl claims its own samples and none of the
// other dialects'.
func TestDetect(t *testing.T) {
	c := codec()
	files, err := filepath.Glob(filepath.Join("..", "*", "testdata", "samples", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		own := strings.Contains(filepath.ToSlash(f), "/elizaacl/")
		if s := c.Detect(b); own && s <= 0 {
			t.Errorf("%s: own sample scored %d", f, s)
		} else if !own && s != 0 {
			t.Errorf("%s: another dialect's sample scored %d", f, s)
		}
	}
	full := c.Detect(sample(t, "made_task_request_high_priority"))
	bare := c.Detect(sample(t, "realworld_05_Jules_bce1787_TASK_ACCEPT_partial"))
	if full != 6 || bare != 3 {
		t.Errorf("scores full %d, bare %d; want 6 and 3", full, bare)
	}
}
