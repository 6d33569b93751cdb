package dialects_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// TestStringAt: a member's text, or an error naming the dialect and the
// member's whole path, as String with that path gives.
func TestStringAt(t *testing.T) {
	r := dialects.Reader{Dialect: "fuse"}
	for _, tc := range []struct {
		parent, key, value string
		nullOK             bool
		want, wantErr      string
	}{
		{"content", "capability", `"text-analysis"`, false, "text-analysis", ""},
		{"", "id", `"m-1"`, false, "m-1", ""},
		{"", "id", `"\ud83d\ude00"`, false, "\U0001F600", ""},
		{"content", "capability", `42`, false, "", "fuse: content.capability: must be a string, got a number (42)"},
		{"", "id", `true`, false, "", "fuse: id: must be a string, got a boolean"},
		{"metadata", "sessionId", `null`, true, "", ""},
		{"metadata", "sessionId", `null`, false, "", "fuse: metadata.sessionId: must be a string, got null"},
	} {
		v := gjson.Parse(tc.value)
		got, err := r.StringAt(tc.parent, tc.key, v, tc.nullOK)
		want, wantErr := r.String(dialects.Join(tc.parent, tc.key), v, tc.nullOK)
		if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s.%s = %s: StringAt %q, %v; String %q, %v", tc.parent, tc.key, tc.value, got, err, want, wantErr)
		}
		if got != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
			t.Errorf("%s.%s = %s: %q, %v; want %q, %q", tc.parent, tc.key, tc.value, got, err, tc.want, tc.wantErr)
		}
	}
}
