package bluelabel

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// defaultOutput is result.output when a result is wrapped and the envelope
// has no description to say what it is.
const defaultOutput = "result in data"

// result writes a task_result payload.
func (e *encoder) result(base string) {
	w, env := &e.w, e.env
	w.Open()
	if o := env.Outcome; o != "" || !e.own {
		if o == "" {
			o = canonical.OutcomeSuccess
		}
		word, ok := dialects.Word(e.ctx, env, Name, e.c.Outcomes, string(o), canonical.COutcome)
		if !ok {
			word = string(o)
		}
		if env.Outcome == "" {
			e.ctx.Fill(canonical.COutcome, "payload.status", word)
		}
		w.Name("status")
		w.String(word)
	}
	e.resultBody()
	if d := env.Description; d != "" {
		if !e.own {
			d = e.clip(canonical.CDescription, "payload.notes", d, maxNotes)
		}
		w.Name("notes")
		w.String(d)
	}
	dialects.WriteExtras(w, env, Name, base)
	w.Close()
}

// resultBody writes payload.result, which bluelabel requires to be an object
// with a string "output".
func (e *encoder) resultBody() {
	w, env, r := &e.w, e.env, e.env.Result
	if e.own {
		w.RawField("result", string(r))
		return
	}
	w.Name("result")
	switch {
	case r == "":
		e.ctx.Fill(canonical.CResult, "payload.result", fmt.Sprintf(`{"output": %q}`, clip(env.Description, 40)))
		w.Open()
		w.Name("output")
		w.String(env.Description)
		w.Close()
	case dialects.IsObject(r) && gjson.Get(string(r), "output").Type == gjson.String:
		w.Raw(string(r))
	default:
		out := env.Description
		if out == "" {
			out = defaultOutput
		}
		e.approx(canonical.CResult, fmt.Sprintf(`payload.result must be an object with a string output; wrote {"output": %q, "data": %s}`, clip(out, 40), clip(string(r), 60)))
		w.Open()
		w.Name("output")
		w.String(out)
		w.Name("data")
		w.Raw(string(r))
		w.Close()
	}
}
