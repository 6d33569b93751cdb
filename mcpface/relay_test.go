package mcpface

import (
	"net/http/httptest"
	"testing"
)

// TestUntag: a client's answer to a request an instance tagged is read
// back as the answer with its number and the instance; anything else is
// not an answer to relay.
func TestUntag(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		answer     string // "": not a tagged answer
		instance   string
	}{
		{"result", `{"jsonrpc":"2.0","id":"12@a","result":{"action":"accept"}}`, `{"jsonrpc":"2.0","id":12,"result":{"action":"accept"}}`, "a"},
		{"error", `{"jsonrpc":"2.0","id":"3@gw.1","error":{"code":-1,"message":"no"}}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`, "gw.1"},
		{"an instance name with the mark", `{"jsonrpc":"2.0","id":"3@x@y","result":{}}`, `{"jsonrpc":"2.0","id":3,"result":{}}`, "x@y"},
		{"a number id", `{"jsonrpc":"2.0","id":12,"result":{}}`, "", ""},
		{"a string id of the client's", `{"jsonrpc":"2.0","id":"req-1","result":{}}`, "", ""},
		{"no number", `{"jsonrpc":"2.0","id":"@a","result":{}}`, "", ""},
		{"not a number", `{"jsonrpc":"2.0","id":"x1@a","result":{}}`, "", ""},
		{"no instance", `{"jsonrpc":"2.0","id":"12@","result":{}}`, "", ""},
		{"a request", `{"jsonrpc":"2.0","id":"12@a","method":"tools/list"}`, "", ""},
		{"neither result nor error", `{"jsonrpc":"2.0","id":"12@a"}`, "", ""},
		{"not JSON", `{"jsonrpc":`, "", ""},
		{"a batch", `[{"jsonrpc":"2.0","id":"12@a","result":{}}]`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer, instance, ok := untag([]byte(tc.body))
			if ok != (tc.answer != "") || string(answer) != tc.answer || instance != tc.instance {
				t.Errorf("untag: %s, %q, %v; want %s, %q", answer, instance, ok, tc.answer, tc.instance)
			}
		})
	}
}

// TestTaggingWriter: the id of a request to the client written as a
// server-sent event is tagged with the instance; notifications, responses
// and what is not an event pass as written.
func TestTaggingWriter(t *testing.T) {
	for _, tc := range []struct {
		name, write, want string
	}{
		{"elicitation",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"params\":{\"message\":\"m\"},\"method\":\"elicitation/create\"}\n\n",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"7@b\",\"params\":{\"message\":\"m\"},\"method\":\"elicitation/create\"}\n\n"},
		{"roots", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"roots/list\"}\n\n",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"8@b\",\"method\":\"roots/list\"}\n\n"},
		{"notification", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"},
		{"response with a method inside", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"x\":{\"method\":\"m\"}}}\n\n",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"x\":{\"method\":\"m\"}}}\n\n"},
		{"JSON response", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\"}\n", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\"}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w := &taggingWriter{ResponseWriter: rec, tag: tagMark + "b"}
			n, err := w.Write([]byte(tc.write))
			if err != nil || n != len(tc.write) {
				t.Fatalf("Write: %d, %v; want %d", n, err, len(tc.write))
			}
			if got := rec.Body.String(); got != tc.want {
				t.Errorf("wrote %q, want %q", got, tc.want)
			}
		})
	}
}
