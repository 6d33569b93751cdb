package redact

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

func TestRedact(t *testing.T) {
	var r Redactor
	r.Learn(&canonical.Envelope{Inputs: `[{"id":"deploy_key","sensitive":true},{"id":"region","sensitive":false}]`})
	for _, tc := range []struct{ in, want string }{
		{`{"authentication":{"type":"jwt","token":"abc"}}`, `{"authentication":"[REDACTED]"}`},
		{`{"metadata":{"Authorization":"Bearer abc","bearer":"x"}}`, `{"metadata":{"Authorization":"[REDACTED]","bearer":"[REDACTED]"}}`},
		{`{"a":[{"Password":"p"},{"x":1}]}`, `{"a":[{"Password":"[REDACTED]"},{"x":1}]}`},
		{`{"input":{"deploy_key":{"v":"k"},"region":"eu"}}`, `{"input":{"deploy_key":"[REDACTED]","region":"eu"}}`},
		{`{"token":null,"n":1.50}`, `{"token":null,"n":1.50}`},
		{`"just a string"`, `"just a string"`},
	} {
		if got := string(r.Redact([]byte(tc.in))); got != tc.want {
			t.Errorf("redact(%s)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if strings.Contains(string(r.Redact([]byte(`{"region":"eu"}`))), "REDACTED") {
		t.Error("an input not asked for as sensitive was redacted")
	}
}
