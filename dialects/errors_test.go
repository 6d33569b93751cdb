package dialects

import "testing"

// TestMergeProblemsMissing: a schema's missing property is about the
// member's own path, where a rule may have spoken of it already.
func TestMergeProblemsMissing(t *testing.T) {
	rules := []Problem{{Path: "payload.task_type", Message: "TASK_REQUEST must name its task_type"}}
	schema := []Problem{{Path: "payload", Message: "missing property 'task_type'"}, {Path: "", Message: "missing property 'payload'"}}
	got := MergeProblems(rules, schema)
	if len(got) != 2 || got[0] != rules[0] || got[1] != schema[1] {
		t.Errorf("got %v", got)
	}
}
