package refagent

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestTools runs each tool on its own: results, and the argument errors
// that name the argument at fault.
func TestTools(t *testing.T) {
	cases := []struct {
		tool   string
		args   string
		result string              // JSON; "" for an error
		code   canonical.ErrorCode // the error's code
		msg    string              // a substring of the error's message
	}{
		{tool: "echo", args: `[1,"two"]`, result: `[1,"two"]`},
		{tool: "echo", args: ``, result: `{}`},
		{tool: "add", args: `{"a":0.1,"b":0.2}`, result: `{"sum":0.30000000000000004}`},
		{tool: "add", args: `{"a":1e308,"b":1e308}`, code: canonical.ErrExecutionFailed, msg: "too large"},
		{tool: "add", args: `{"a":1e400,"b":1}`, code: canonical.ErrInvalidArguments, msg: `argument "a" must be a number, got 1e400`},
		{tool: "add", args: `{"a":null,"b":1}`, code: canonical.ErrInvalidArguments, msg: `argument "a" is missing`},
		{tool: "add", args: `{"a":1,"b":[2]}`, code: canonical.ErrInvalidArguments, msg: `argument "b" must be a number, got [2]`},
		{tool: "add", args: `[1,2]`, code: canonical.ErrInvalidArguments, msg: "must be a JSON object"},
		{tool: "add", args: ``, code: canonical.ErrInvalidArguments, msg: `argument "a" is missing`},
		{tool: "sleep", args: `{"ms":0}`, result: `{"slept_ms":0}`},
		{tool: "sleep", args: `{"ms":1.5}`, code: canonical.ErrInvalidArguments, msg: `"ms" must be a whole number from 0 to 300000, got 1.5`},
		{tool: "sleep", args: `{"ms":300001}`, code: canonical.ErrInvalidArguments, msg: `"ms"`},
		{tool: "sleep", args: `{}`, code: canonical.ErrInvalidArguments, msg: `argument "ms" is missing`},
		{tool: "fail", args: ``, code: canonical.ErrExecutionFailed, msg: defaultFailure},
		{tool: "fail", args: `{"message":7}`, code: canonical.ErrInvalidArguments, msg: `argument "message" must be a string`},
		{tool: "debug_code", args: `{"language":"python"}`, code: canonical.ErrInvalidArguments, msg: `argument "code_to_debug" (or "code") is missing`},
		{tool: "debug_code", args: `{"code":42}`, code: canonical.ErrInvalidArguments, msg: `argument "code" must be a string`},
		{tool: "debug_code", args: `{"code":"x = d['k']\n","error_log":"KeyError: 'k'"}`,
			result: `{"analysis":"KeyError: a mapping was read with a key it does not have. The cause: d['k'] fails when d has no key 'k'.","fixed_code":"x = d.get('k')\n",` +
				`"explanation":"Reading a missing key raises KeyError; the subscript is now read with .get(), which gives None for a missing key."}`},
		{tool: "sentiment-analysis", args: `{"text":"Nothing here."}`, result: `{"sentiment":"neutral","score":0,"confidence":0.5}`},
		{tool: "sentiment-analysis", args: `{"text":"great","language":"en-GB"}`, result: `{"sentiment":"positive","score":0.5,"confidence":0.67}`},
		{tool: "sentiment-analysis", args: `{"text":"super","language":"fr"}`, code: canonical.ErrInvalidArguments, msg: `argument "language" is "fr": only en is supported`},
		{tool: "sentiment-analysis", args: `{"text":["a"]}`, code: canonical.ErrInvalidArguments, msg: `argument "text" must be a string`},
	}
	tools := catalogue()
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			tool := find(tools, op(tc.tool))
			if tool == nil {
				t.Fatalf("no tool %q", tc.tool)
			}
			ans := tool.run(context.Background(), canonical.JSON(tc.args))
			if tc.result != "" {
				if ans.err != nil {
					t.Fatalf("error %+v", ans.err)
				}
				if got, want := jsonValue(t, string(ans.result)), jsonValue(t, tc.result); !reflect.DeepEqual(got, want) {
					t.Errorf("result %s\nwant   %s", ans.result, tc.result)
				}
				if !strings.HasPrefix(ans.summary, tc.tool+": ") {
					t.Errorf("summary %q", ans.summary)
				}
				return
			}
			if ans.err == nil || ans.err.Code != tc.code || !strings.Contains(ans.err.Message, tc.msg) {
				t.Errorf("error %+v, want code %s and a message containing %q", ans.err, tc.code, tc.msg)
			}
		})
	}
}

// TestSleepStops checks that a sleep ends when its context does.
func TestSleepStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ans := sleepTool().run(ctx, `{"ms":300000}`)
	if ans.err == nil || ans.err.Code != canonical.ErrUnavailable {
		t.Errorf("answer %+v, want an unavailable error", ans)
	}
}

// TestFind checks how operations name tools in one and two levels.
func TestFind(t *testing.T) {
	tools := catalogue()
	cases := []struct {
		op   canonical.Operation
		tool string // "" for none
	}{
		{canonical.Operation{Name: "add"}, "add"},
		{canonical.Operation{Capability: "add"}, "add"},
		{canonical.Operation{Capability: "default", Name: "add"}, "add"},
		{canonical.Operation{Name: "sentiment-analysis"}, "sentiment-analysis"},
		{canonical.Operation{Capability: "text-analysis", Name: "sentiment-analysis"}, "sentiment-analysis"},
		{canonical.Operation{Capability: "vision", Name: "sentiment-analysis"}, ""},
		{canonical.Operation{Capability: "text-analysis"}, ""},
		{canonical.Operation{Name: "Add"}, ""},
		{canonical.Operation{}, ""},
	}
	for _, tc := range cases {
		got := ""
		if tool := find(tools, tc.op); tool != nil {
			got = tool.Name
		}
		if got != tc.tool {
			t.Errorf("find(%+v) = %q, want %q", tc.op, got, tc.tool)
		}
	}
}
