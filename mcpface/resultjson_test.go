package mcpface

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// resultOf is the result FuzzResultJSON and TestResultJSON give both
// writers: texts as text contents, structured as the face sets it (or, by
// shape, as raw structured content, a decoded value, or a content with
// annotations or _meta, which appendResult leaves to MarshalJSON).
func resultOf(shape uint8, texts []string, structured []byte, isError bool, resultType string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: isError}
	res.ResultType = mcp.ResultType(resultType)
	for _, t := range texts {
		res.Content = append(res.Content, mcp.NewTextContent(t))
	}
	switch shape % 7 {
	case 0:
		if structured != nil {
			res.StructuredContent = json.RawMessage(structured)
		}
	case 1:
		res.RawStructuredContent = structured
	case 2:
		var v any
		if json.Unmarshal(structured, &v) == nil {
			res.StructuredContent = v
		}
	case 3:
		res.Content = append(res.Content, mcp.TextContent{Annotated: mcp.Annotated{Annotations: &mcp.Annotations{Priority: new(float64)}}, Type: "text", Text: "a"})
	case 4:
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}
	case 5:
		res.Content = append(res.Content, mcp.NewImageContent("aGk=", "image/png"))
	case 6:
		res.StructuredContent = json.RawMessage(nil)
	}
	return res
}

// TestResultJSON: the results the face makes are written by appendResult,
// in MarshalJSON's bytes; the others are left to MarshalJSON.
func TestResultJSON(t *testing.T) {
	e := &entry{name: "calc__add", tool: toolRef{Agent: "calc", Dialect: "swarm", toolDesc: &toolDesc{Name: "add"}}}
	mine := func(ans canonical.Envelope) *mcp.CallToolResult { _, res := answer(e, &ans); return res }
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		fast bool
	}{
		{"result", mine(canonical.Envelope{Act: canonical.ActResult, Result: `{"sum":42}`}), true},
		{"result with strings", mine(canonical.Envelope{Act: canonical.ActResult, Result: `{"msg":"a \"b\" c\\d","list":[1,2.5e3,null,true]}`}), true},
		{"array result", mine(canonical.Envelope{Act: canonical.ActResult, Result: `[1,2]`}), true},
		{"failed result", mine(canonical.Envelope{Act: canonical.ActResult, Result: `{"ok":false}`, Outcome: canonical.OutcomeFailure,
			Error: &canonical.Error{Code: canonical.ErrRejected, Message: "no"}}), true},
		{"refusal", mine(canonical.Envelope{Act: canonical.ActRefuse, Error: &canonical.Error{Code: canonical.ErrRejected, Message: "not now"}}), true},
		{"error text", errorResult("no tool \"x\" is offered by this bridge now"), true},
		{"typed result", resultOf(0, []string{"{}"}, nil, false, string(mcp.ResultTypeComplete)), true},
		{"no content", &mcp.CallToolResult{}, true},
		{"spaced structured", mine(canonical.Envelope{Act: canonical.ActResult, Result: `{"sum": 42}`}), false},
		{"html in text", errorResult("a <b> c"), false},
		{"ampersand in text", errorResult("a & c"), false},
		{"html in structured", mine(canonical.Envelope{Act: canonical.ActResult, Result: `{"a":"b&c"}`}), false},
		{"line separator", errorResult("a \u2028 b"), false},
		{"form feed", errorResult("a \f b"), false},
		{"annotated", resultOf(3, []string{"x"}, nil, false, ""), false},
		{"meta", resultOf(4, []string{"x"}, nil, false, ""), false},
		{"image", resultOf(5, nil, nil, false, ""), false},
		{"decoded structured", resultOf(2, []string{"x"}, []byte(`{"a":1}`), false, ""), false},
		{"nil raw structured", resultOf(6, []string{"x"}, nil, false, ""), false},
		{"input requests", inputRequired(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.res.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			got, ok := appendResult([]byte("prefix"), tc.res)
			if ok != tc.fast {
				t.Fatalf("appendResult took it: %v, want %v", ok, tc.fast)
			}
			if !ok {
				if string(got) != "prefix" {
					t.Fatalf("left to MarshalJSON, yet wrote %q", got)
				}
				return
			}
			if string(got) != "prefix"+string(want) {
				t.Fatalf("appendResult:\n%s\nMarshalJSON:\n%s", got[len("prefix"):], want)
			}
		})
	}
}

// inputRequired is a result asking its client for input (roots/list).
func inputRequired() *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("x")}}
	res.RequestState = "s"
	res.InputRequests = mcp.InputRequests{"k": mcp.InputRequest{Method: mcp.MethodListRoots, Roots: &mcp.ListRootsParams{}}}
	return res
}

// FuzzResultJSON feeds appendResult and MarshalJSON the same results and
// fails when appendResult writes one that MarshalJSON writes otherwise,
// or cannot write.
func FuzzResultJSON(f *testing.F) {
	for _, s := range []struct {
		shape      uint8
		text, more string
		structured string
		isError    bool
		resultType string
	}{
		{0, `{"sum":42}`, "", `{"sum":42}`, false, ""},
		{0, `{"a":"<b>"}`, "", `{"a":"<b>"}`, false, ""},
		{0, "a\u2028b", "agent x failed", `{"s":"\u2028","t":"` + "\u2028" + `"}`, true, "complete"},
		{0, "tab\there\b\f\x01\x7f\xff", "", `{ "a" : [1 , 2] }`, false, ""},
		{1, "", "", `{"a":{"b":[true,false,null,"\"\\"]}}`, true, ""},
		{1, "x", "y", `[1,2]`, false, "input_required"},
		{0, "", "", `{"a":"\ud800"}`, false, ""},
		{0, "x", "", "{\"a\":\"\xff\"}", false, ""},
		{2, "x", "", `{"b":2,"a":1}`, false, ""},
		{3, "x", "", "", false, ""},
		{4, "x", "", "", false, ""},
		{5, "x", "", "", false, ""},
		{6, "x", "", "", false, ""},
	} {
		f.Add(s.shape, s.text, s.more, []byte(s.structured), s.isError, s.resultType)
	}
	f.Fuzz(func(t *testing.T, shape uint8, text, more string, structured []byte, isError bool, resultType string) {
		texts := []string{text}
		if more != "" {
			texts = append(texts, more)
		}
		if shape >= 128 {
			texts = nil
		}
		if len(structured) == 0 {
			structured = nil
		}
		res := resultOf(shape, texts, structured, isError, resultType)
		want, err := res.MarshalJSON()
		got, ok := appendResult(nil, res)
		switch {
		case !ok:
			if len(got) != 0 {
				t.Fatalf("left to MarshalJSON, yet wrote %q", got)
			}
		case err != nil:
			t.Fatalf("appendResult wrote %q; MarshalJSON: %v", got, err)
		case string(got) != string(want):
			t.Fatalf("appendResult:\n%q\nMarshalJSON:\n%q", got, want)
		}
	})
}
