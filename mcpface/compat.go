package mcpface

import (
	"bytes"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// compat makes up for what real clients send that mcp-go refuses, and
// passes every request on to next.
//
// In protocol version 2026-07-28 mcp-go wants the version in each body's
// _meta as well as in the Mcp-Protocol-Version header, and answers 400 to a
// message without it. The official Go SDK (v1.8.0) sends
// notifications/cancelled with the header only, and takes the 400 as a
// failure of its next call. A notification (it has no id, so nothing
// answers it) that names a 2026-07-28 or later version in its header and
// none in its body gets the header's version written into its _meta.
func compat(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		version := r.Header.Get(mcp.HeaderProtocolVersion)
		if r.Method != http.MethodPost || !mcp.IsModernProtocol(version) || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "mcp: reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		body = withVersion(body, version)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// metaVersionPath is the path of the protocol version in a message's
// _meta, for gjson and sjson.
var metaVersionPath = "params._meta." + escapePath(mcp.MetaKeyProtocolVersion)

// withVersion returns body with version in its _meta when it is a
// notification that has none; otherwise body as it is.
func withVersion(body []byte, version string) []byte {
	if !gjson.ValidBytes(body) {
		return body
	}
	msg := gjson.ParseBytes(body)
	if !msg.IsObject() || msg.Get("id").Exists() || !msg.Get("method").Exists() || msg.Get(metaVersionPath).Exists() {
		return body
	}
	if p := msg.Get("params"); p.Exists() && !p.IsObject() {
		return body
	}
	out, err := sjson.SetBytes(body, metaVersionPath, version)
	if err != nil {
		return body
	}
	return out
}

// escapePath makes a member name a literal gjson/sjson path element.
func escapePath(k string) string {
	var b []byte
	for i := 0; i < len(k); i++ {
		switch c := k[i]; c {
		case '\\', '.', '*', '?', '|', '#', '@', ':', '!', '=', '<', '>', '%':
			b = append(b, '\\', c)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
