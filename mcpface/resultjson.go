package mcpface

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonvalid"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// The face's own writing of a tool's result, in front of mcp-go's
// CallToolResult.MarshalJSON (DESIGN.md section 9): MarshalJSON builds a
// map of the result's members and hands it to encoding/json, which sorts
// the keys, reflects over each content and compacts the structured
// content; about 5 µs of a call, while its client waits. appendResult
// writes the same bytes in one pass for the results the face makes (text
// contents, structured content from the agent's JSON, isError, a result
// type) and leaves anything else, and anything whose bytes it cannot
// tell, to MarshalJSON. FuzzResultJSON feeds both the same results and
// fails on any difference.

// appendResult appends res as res.MarshalJSON writes it and returns the
// longer slice, or dst as it came and false when res has a member it
// leaves to MarshalJSON: _meta, input requests or a request state, a
// content other than text or one with annotations or _meta, structured
// content other than JSON bytes, or a string or JSON it would not write
// as MarshalJSON does.
func appendResult(dst []byte, res *mcp.CallToolResult) ([]byte, bool) {
	if res.Meta != nil || len(res.InputRequests) > 0 || res.RequestState != "" || !plainString(string(res.ResultType)) {
		return dst, false
	}
	structured := res.RawStructuredContent
	if len(structured) == 0 && res.StructuredContent != nil {
		// MarshalJSON writes null for empty bytes: left to it.
		raw, ok := res.StructuredContent.(json.RawMessage)
		if !ok || len(raw) == 0 {
			return dst, false
		}
		structured = raw
	}
	if len(structured) > 0 && !compactJSON(structured) {
		return dst, false
	}
	out := append(dst, `{"content":[`...)
	for i, c := range res.Content {
		text, ok := c.(mcp.TextContent)
		if !ok || text.Annotations != nil || text.Meta != nil || !plainString(text.Type) || !plainString(text.Text) {
			return dst, false
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"type":`...)
		out = jsonw.AppendString(out, text.Type)
		out = append(out, `,"text":`...)
		out = jsonw.AppendString(out, text.Text)
		out = append(out, '}')
	}
	out = append(out, ']')
	// The members in encoding/json's order of a map's keys.
	if res.IsError {
		out = append(out, `,"isError":true`...)
	}
	if res.ResultType != "" {
		out = append(out, `,"resultType":`...)
		out = jsonw.AppendString(out, string(res.ResultType))
	}
	if len(structured) > 0 {
		out = append(out, `,"structuredContent":`...)
		out = append(out, structured...)
	}
	return append(out, '}'), true
}

// plainString reports whether jsonw.AppendString writes s as
// encoding/json does with HTML escaping: it has none of the bytes the two
// write differently (< > & escaped as HTML, \b and \f, which encoding/json
// writes short, and 0xE2, the first byte of U+2028 and U+2029, which
// encoding/json escapes).
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '>', '&', '\b', '\f', 0xE2:
			return false
		}
	}
	return true
}

// compactJSON reports whether raw is valid JSON that encoding/json writes
// as it is: no white space outside its strings, and none of the bytes it
// escapes as HTML or as U+2028 and U+2029 (0xE2 stands for those).
func compactJSON(raw []byte) bool {
	if !jsonvalid.Valid(raw) {
		return false
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '<' || c == '>' || c == '&' || c == 0xE2:
			return false
		case inString && c == '\\':
			i++ // the escaped byte, whatever it is
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}
