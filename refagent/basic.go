package refagent

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// maxSleep is the longest sleep the sleep tool accepts, in milliseconds.
const maxSleep = 300_000

// echoTool returns its arguments unchanged.
func echoTool() *tool {
	return &tool{
		Tool: canonical.Tool{
			Name:        "echo",
			Description: "Returns its arguments unchanged.",
			InputSchema: `{"type":"object"}`,
		},
		run: func(_ context.Context, a canonical.JSON) answer {
			if strings.TrimSpace(string(a)) == "" {
				a = "{}"
			}
			return answer{result: a, summary: "echo: the arguments, unchanged"}
		},
	}
}

// addTool adds two numbers.
func addTool() *tool {
	return &tool{
		Tool: canonical.Tool{
			Name:         "add",
			Description:  "Adds two numbers: {a, b} -> {sum}.",
			InputSchema:  `{"type":"object","properties":{"a":{"type":"number","description":"the first number"},"b":{"type":"number","description":"the second number"}},"required":["a","b"]}`,
			OutputSchema: `{"type":"object","properties":{"sum":{"type":"number"}}}`,
		},
		run: func(_ context.Context, raw canonical.JSON) answer {
			a, bad := readArgs("add", raw)
			if bad != nil {
				return *bad
			}
			x, bad := a.number("a")
			if bad != nil {
				return *bad
			}
			y, bad := a.number("b")
			if bad != nil {
				return *bad
			}
			sum := x + y
			if math.IsInf(sum, 0) {
				return failed(canonical.ErrExecutionFailed, "add: %g + %g is too large for a JSON number", x, y)
			}
			return ok(map[string]float64{"sum": sum}, "add: "+num(x)+" + "+num(y)+" = "+num(sum))
		},
	}
}

// sleepTool waits, then says how long it slept.
func sleepTool() *tool {
	return &tool{
		Tool: canonical.Tool{
			Name:         "sleep",
			Description:  "Waits ms milliseconds (0 to 300000), then answers {slept_ms}.",
			InputSchema:  `{"type":"object","properties":{"ms":{"type":"integer","description":"how long to wait, in milliseconds (0 to 300000)"}},"required":["ms"]}`,
			OutputSchema: `{"type":"object","properties":{"slept_ms":{"type":"integer"}}}`,
		},
		run: func(ctx context.Context, raw canonical.JSON) answer {
			a, bad := readArgs("sleep", raw)
			if bad != nil {
				return *bad
			}
			ms, bad := a.number("ms")
			if bad != nil {
				return *bad
			}
			if ms != math.Trunc(ms) || ms < 0 || ms > maxSleep {
				return failed(canonical.ErrInvalidArguments, "sleep: argument \"ms\" must be a whole number from 0 to %d, got %s", maxSleep, num(ms))
			}
			t := time.NewTimer(time.Duration(ms) * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return failed(canonical.ErrUnavailable, "sleep: interrupted after less than %s ms: the agent is stopping", num(ms))
			}
			return ok(map[string]int64{"slept_ms": int64(ms)}, "sleep: slept "+num(ms)+" ms")
		},
	}
}

// defaultFailure is the fail tool's message when the arguments give none.
const defaultFailure = "fail: failed as asked"

// failTool always fails.
func failTool() *tool {
	return &tool{
		Tool: canonical.Tool{
			Name:        "fail",
			Description: "Always fails (error code execution-failed), with the message given or a default one.",
			InputSchema: `{"type":"object","properties":{"message":{"type":"string","description":"the failure's message"}}}`,
		},
		run: func(_ context.Context, raw canonical.JSON) answer {
			a, bad := readArgs("fail", raw)
			if bad != nil {
				return *bad
			}
			msg, bad := a.text("message")
			if bad != nil {
				return *bad
			}
			if msg == "" {
				msg = defaultFailure
			}
			return answer{err: &canonical.Error{Code: canonical.ErrExecutionFailed, Message: msg}}
		},
	}
}

// num writes a number as JSON does.
func num(f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(b)
}
