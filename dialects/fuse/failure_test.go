package fuse_test

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/dialects/fuse"
)

// TestDecodeFailedResults checks which responses that report a failure are
// results whose logical goal failed (no error object, a result) and which
// are error acts (an error object), and that each is written back exactly.
func TestDecodeFailedResults(t *testing.T) {
	cases := []struct {
		name, msg string
		act       canonical.Act
		outcome   canonical.Outcome
		form      string
		result    string
		code      canonical.ErrorCode
		extra     string // dotted paths of Extra members, space separated
	}{
		{"spec: status error, data, no error", `{"messageType":"response","content":{"status":"error","data":{"passed":3,"failed":1},"requestId":"r1"}}`,
			canonical.ActResult, canonical.OutcomeFailure, "", `{"passed":3,"failed":1}`, "", ""},
		{"spec: status error, data, error null", `{"messageType":"response","content":{"status":"error","data":[1],"error":null,"requestId":"r1"}}`,
			canonical.ActResult, canonical.OutcomeFailure, "", `[1]`, "", "content.error"},
		{"spec: status error, data null, no error", `{"messageType":"response","content":{"status":"error","data":null,"requestId":"r1"}}`,
			canonical.ActResult, canonical.OutcomeFailure, "", `null`, "", ""},
		{"spec: status error, data and an error", `{"messageType":"response","content":{"status":"error","data":{"x":1},"error":{"code":"TIMEOUT","message":"slow"},"requestId":"r1"}}`,
			canonical.ActFailure, canonical.OutcomeFailure, "", "", canonical.ErrTimeout, "content.data"},
		{"spec: status error, no data, no error", `{"messageType":"response","content":{"status":"error","requestId":"r1"}}`,
			canonical.ActFailure, canonical.OutcomeFailure, "", "", "", ""},
		{"spec: status error, no data, error null", `{"messageType":"response","content":{"status":"error","error":null,"requestId":"r1"}}`,
			canonical.ActFailure, canonical.OutcomeFailure, "", "", "", "content.error"},
		{"spec: status error, guide result, no error", `{"messageType":"response","content":{"status":"error","result":{"x":1},"requestId":"r1"}}`,
			canonical.ActFailure, canonical.OutcomeFailure, "", "", "", "content.result"},
		{"spec: status error, refusal", `{"messageType":"response","content":{"status":"error","data":1,"error":{"code":"REJECTED","message":"no"},"requestId":"r1"}}`,
			canonical.ActRefuse, canonical.OutcomeFailure, "", "", canonical.ErrRejected, "content.data"},
		{"guide: success false, result, no error", `{"messageType":"response","requestId":"r2","content":{"success":false,"result":{"found":0}}}`,
			canonical.ActResult, canonical.OutcomeFailure, fuse.FormGuide, `{"found":0}`, "", ""},
		{"guide: success false, result, error null", `{"messageType":"response","requestId":"r2","content":{"success":false,"result":"none","error":null}}`,
			canonical.ActResult, canonical.OutcomeFailure, fuse.FormGuide, `"none"`, "", "content.error"},
		{"guide: success false, result and an error", `{"messageType":"response","requestId":"r2","content":{"success":false,"result":{"found":0},"error":{"code":"TOOL_NOT_FOUND","message":"m"}}}`,
			canonical.ActFailure, canonical.OutcomeFailure, fuse.FormGuide, "", canonical.ErrNotFound, "content.result"},
		{"guide: success false, an error", `{"messageType":"response","requestId":"r2","content":{"success":false,"error":{"code":"INVALID_MESSAGE","message":"m"}}}`,
			canonical.ActNotUnderstood, canonical.OutcomeFailure, fuse.FormGuide, "", canonical.ErrInvalidMessage, ""},
		{"guide: success false alone", `{"messageType":"response","requestId":"r2","content":{"success":false}}`,
			canonical.ActFailure, canonical.OutcomeFailure, fuse.FormGuide, "", "", ""},
		{"guide: success true, result", `{"messageType":"response","requestId":"r2","content":{"success":true,"result":1}}`,
			canonical.ActResult, canonical.OutcomeSuccess, fuse.FormGuide, `1`, "", ""},
		{"no status, data, error null", `{"messageType":"response","content":{"data":1,"error":null,"requestId":"r3"}}`,
			canonical.ActResult, "", "", `1`, "", "content.error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := decode(t, []byte(tc.msg))
			var extra []string
			for _, f := range env.Extra {
				extra = append(extra, f.Path())
			}
			if env.Act != tc.act || env.Outcome != tc.outcome || env.Origin.Form != tc.form || string(env.Result) != tc.result || strings.Join(extra, " ") != tc.extra {
				t.Errorf("act %s outcome %q form %q result %s extra %q\nwant %s %q %q %s %q", env.Act, env.Outcome, env.Origin.Form, env.Result, extra,
					tc.act, tc.outcome, tc.form, tc.result, tc.extra)
			}
			var code canonical.ErrorCode
			if env.Error != nil {
				code = env.Error.Code
			}
			if code != tc.code || (env.Act == canonical.ActResult && env.Error != nil) {
				t.Errorf("error %+v, want code %q", env.Error, tc.code)
			}
			ctx := dialecttest.EncodeContext()
			out, err := codec().Encode(nil, env, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(ctx.Losses) != 0 {
				t.Errorf("losses %v", ctx.Losses)
			}
			if !dialecttest.JSONEqual(out, []byte(tc.msg)) {
				t.Errorf("round trip\n got %s\nwant %s", out, tc.msg)
			}
		})
	}
}

// TestEncodeFailedResults checks that a result whose outcome is failure from
// another dialect is written as a response with status error, its data and
// no error object, that this is not reported as an act approximation, and
// that it reads back as the same result.
func TestEncodeFailedResults(t *testing.T) {
	cases := []struct {
		name    string
		result  canonical.JSON
		err     *canonical.Error
		content string
		losses  []lossWant
	}{
		{"with a result", `{"tests":3,"failed":3}`, nil, `{"status":"error","data":{"tests":3,"failed":3},"requestId":"req-7"}`, nil},
		{"with a scalar result", `"Could not reproduce the error"`, nil, `{"status":"error","data":"Could not reproduce the error","requestId":"req-7"}`, nil},
		{"with an error beside", `{"tests":3}`, &canonical.Error{Code: canonical.ErrExecutionFailed, Message: "suite failed"},
			`{"status":"error","data":{"tests":3},"requestId":"req-7"}`,
			[]lossWant{{dialects.Dropped, canonical.CErrorCode}, {dialects.Dropped, canonical.CErrorMessage}}},
		{"with no result", "", nil, `{"status":"error","data":null,"requestId":"req-7"}`, []lossWant{{dialects.Filled, canonical.CResult}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := foreign(canonical.ActResult)
			e.Origin.Dialect = "elizaacl"
			e.InReplyTo, e.Outcome, e.Result, e.Error = "req-7", canonical.OutcomeFailure, tc.result, tc.err
			msg, losses := encodeForeign(t, e)
			if got := msg.Get("content").Raw; !dialecttest.JSONEqual([]byte(got), []byte(tc.content)) {
				t.Errorf("content\n got %s\nwant %s", got, tc.content)
			}
			if msg.Get("messageType").Str != "response" {
				t.Errorf("messageType %s", msg.Get("messageType").Raw)
			}
			for _, l := range losses {
				if l.Concept == canonical.CAct || l.Concept == canonical.CResult && l.Kind != dialects.Filled {
					t.Errorf("unexpected loss %v", l)
				}
			}
			if len(losses) != len(tc.losses) {
				t.Errorf("losses %v, want %v", losses, tc.losses)
			}
			for _, w := range tc.losses {
				if !hasLoss(losses, w) {
					t.Errorf("no %s loss of %s in %v", w.kind, w.concept, losses)
				}
			}
			back := decode(t, []byte(msg.Raw))
			want := tc.result
			if want == "" {
				want = "null"
			}
			if back.Act != canonical.ActResult || back.Outcome != canonical.OutcomeFailure || back.Error != nil || !sameJSON(back.Result, want) {
				t.Errorf("reads back as act %s outcome %q error %+v result %s", back.Act, back.Outcome, back.Error, back.Result)
			}
		})
	}
}

// TestEncodeErrorCodes checks the code written for each error act from
// another dialect: refusals and messages not understood always carry their
// own code (another is reported as an error.code approximation, never an
// act one); a failure carries its code, a word with no canonical meaning
// verbatim, and reports an act approximation only when the code reads back
// as another act.
func TestEncodeErrorCodes(t *testing.T) {
	cases := []struct {
		name       string
		act        canonical.Act
		code       canonical.ErrorCode
		word       string // Origin.Words[error] of the source
		want       string // content.error.code
		codeApprox bool   // error.code reported approximated
		actApprox  bool   // act reported approximated
	}{
		{"refuse", canonical.ActRefuse, "", "", "REJECTED", false, false},
		{"refuse rejected", canonical.ActRefuse, canonical.ErrRejected, "refused", "REJECTED", false, false},
		{"refuse with another code", canonical.ActRefuse, canonical.ErrUnavailable, "busy", "REJECTED", true, false},
		{"refuse with an unknown word", canonical.ActRefuse, "", "busy_elsewhere", "REJECTED", true, false},
		{"refuse with REJECTED unknown to the source", canonical.ActRefuse, "", "REJECTED", "REJECTED", false, false},
		{"not understood", canonical.ActNotUnderstood, "", "", "INVALID_MESSAGE", false, false},
		{"not understood with another code", canonical.ActNotUnderstood, canonical.ErrInvalidArguments, "", "INVALID_MESSAGE", true, false},
		{"not understood with an unknown word", canonical.ActNotUnderstood, "", "unparseable", "INVALID_MESSAGE", true, false},
		{"failure", canonical.ActFailure, "", "", "EXECUTION_FAILED", false, false},
		{"failure with a code", canonical.ActFailure, canonical.ErrTimeout, "timed_out", "TIMEOUT", false, false},
		{"failure with an unknown word", canonical.ActFailure, "", "busy_elsewhere", "busy_elsewhere", false, false},
		{"failure with an unknown word fuse knows", canonical.ActFailure, "", "TIMEOUT", "TIMEOUT", false, false},
		{"failure rejected", canonical.ActFailure, canonical.ErrRejected, "", "REJECTED", false, true},
		{"failure invalid message", canonical.ActFailure, canonical.ErrInvalidMessage, "", "INVALID_MESSAGE", false, true},
		{"failure with an unknown word read as a refusal", canonical.ActFailure, "", "REJECTED", "REJECTED", false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := foreign(tc.act)
			e.Origin.Dialect = "elizaacl"
			e.InReplyTo = "req-1"
			e.Error = &canonical.Error{Code: tc.code, Message: "m"}
			if tc.word != "" {
				e.Origin.SetWord(canonical.KindError, tc.word)
			}
			msg, losses := encodeForeign(t, e)
			if got := msg.Get("content.error.code").Str; got != tc.want {
				t.Errorf("content.error.code %q, want %q", got, tc.want)
			}
			var codeApprox, actApprox bool
			for _, l := range losses {
				switch {
				case l.Kind == dialects.Approximated && l.Concept == canonical.CErrorCode:
					codeApprox = true
				case l.Kind == dialects.Approximated && l.Concept == canonical.CAct:
					actApprox = true
				default:
					t.Errorf("unexpected loss %v", l)
				}
			}
			if codeApprox != tc.codeApprox || actApprox != tc.actApprox {
				t.Errorf("error.code approximated %v, act approximated %v; want %v %v (%v)", codeApprox, actApprox, tc.codeApprox, tc.actApprox, losses)
			}
			back := decode(t, []byte(msg.Raw))
			if back.Act != tc.act && !tc.actApprox {
				t.Errorf("reads back as %s, want %s", back.Act, tc.act)
			}
		})
	}
}

// TestUnknownCodeSurvives checks that a code word with no canonical meaning
// is written verbatim for an envelope that went through another dialect.
func TestUnknownCodeSurvives(t *testing.T) {
	env := decode(t, sample(t, "made_error_response_unknown_code"))
	if env.Error == nil || env.Error.Code != "" || env.Origin.Words.Get(canonical.KindError) != "API_ERROR" {
		t.Fatalf("error %+v words %v", env.Error, env.Origin.Words)
	}
	env.Origin.Dialect = "elizaacl" // as a foreign envelope
	msg, losses := encodeForeign(t, env)
	if got := msg.Get("content.error.code").Str; got != "API_ERROR" {
		t.Errorf("content.error.code %q, want API_ERROR", got)
	}
	for _, l := range losses {
		if l.Concept == canonical.CErrorCode || l.Concept == canonical.CAct {
			t.Errorf("unexpected loss %v", l)
		}
	}
	if back := decode(t, []byte(msg.Raw)); back.Act != canonical.ActFailure || back.Origin.Words.Get(canonical.KindError) != "API_ERROR" {
		t.Errorf("reads back as %s with words %v", back.Act, back.Origin.Words)
	}
}

// TestValidateFailedResults checks that an error response needs an error
// object with code and message, or the result that failed.
func TestValidateFailedResults(t *testing.T) {
	cases := []struct {
		msg  string
		path string // "" = valid
	}{
		{`{"messageType":"response","content":{"status":"error","data":{"x":1},"requestId":"r"}}`, ""},
		{`{"messageType":"response","content":{"status":"error","data":null,"error":null,"requestId":"r"}}`, ""},
		{`{"messageType":"response","requestId":"r","content":{"success":false,"result":[]}}`, ""},
		{`{"messageType":"response","requestId":"r","content":{"success":false,"error":{"code":"TIMEOUT","message":"slow"}}}`, ""},
		{`{"messageType":"response","content":{"status":"error","requestId":"r"}}`, "content.error"},
		{`{"messageType":"response","content":{"status":"error","error":null,"requestId":"r"}}`, "content.error"},
		{`{"messageType":"response","content":{"status":"error","result":{"x":1},"requestId":"r"}}`, "content.error"},
		{`{"messageType":"response","content":{"status":"error","data":1,"error":"boom","requestId":"r"}}`, "content.error"},
		{`{"messageType":"response","content":{"status":"error","data":1,"error":{"message":"m"},"requestId":"r"}}`, "content.error.code"},
	}
	for _, tc := range cases {
		probs := codec().Validate([]byte(tc.msg))
		if tc.path == "" {
			if len(probs) != 0 {
				t.Errorf("%s: problems %v, want none", tc.msg, probs)
			}
			continue
		}
		found := false
		for _, p := range probs {
			found = found || p.Path == tc.path
		}
		if !found {
			t.Errorf("%s: problems %v, want one at %q", tc.msg, probs, tc.path)
		}
	}
}
