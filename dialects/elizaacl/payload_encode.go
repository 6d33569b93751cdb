package elizaacl

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// encodePayload writes the payload object of act's performative. own says
// env was decoded from elizaacl: its members are then written as they came,
// without stand-ins, and its status words come back from Extra.
func (c *Codec) encodePayload(w *jsonw.Writer, env *canonical.Envelope, act canonical.Act, ctx *dialects.EncodeContext, own bool) {
	switch act {
	case canonical.ActQueryIf, canonical.ActQueryRef, canonical.ActQueryCapabilities:
		c.encodeQuery(w, env, act, ctx, own)
		return
	case canonical.ActInformCapabilities:
		c.encodeCapabilities(w, env, ctx)
		return
	}
	w.Open()
	switch act {
	case canonical.ActRequest:
		c.encodeRequest(w, env, ctx, own)
	case canonical.ActAccept:
		if !own {
			w.Name("status")
			w.String(statusAccepted)
		}
		w.NameString("task_id_assigned", env.TaskID)
		if env.TTL.Set {
			writeETA(w, ctx, env.TTL)
		}
		w.NameString("comments", env.Description)
	case canonical.ActResult:
		c.encodeResult(w, env, ctx, own)
	case canonical.ActRefuse:
		c.encodeError(w, env, ctx, own, statusRejected, "reason_code", "reason_text")
	case canonical.ActFailure:
		c.encodeError(w, env, ctx, own, statusFailure, "error_code", "error_text")
	case canonical.ActNotUnderstood:
		c.encodeError(w, env, ctx, own, "", "reason_code", "reason_text")
	}
	dialects.WriteExtras(w, env, Name, "payload")
	w.Close()
}

// encodeRequest writes the members of a TASK_REQUEST payload.
func (c *Codec) encodeRequest(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, own bool) {
	name := env.Operation.Name
	if name == "" && !own {
		name = env.Operation.Capability
		if name == "" {
			name = "unknown"
		}
		ctx.Fill(canonical.COperation, "payload.task_type", name)
	}
	w.NameString("task_type", name)
	w.NameString("task_description", env.Description)
	c.objectField(w, ctx, "task_parameters", env.Arguments, canonical.CArguments, own)
	if env.Priority != 0 {
		if p, ok := dialects.Word(ctx, env, Name, c.Priorities, env.Priority.String(), canonical.CPriority); ok {
			w.Name("priority")
			w.String(p)
		} else {
			ctx.Lose(dialects.Dropped, canonical.CPriority, canonical.CPriority.String(), "elizaacl has no priority word for "+env.Priority.String())
		}
	}
}

// encodeResult writes the members of an INFORM_RESULT payload. task_status
// is required: a result from another dialect that states no outcome is
// written as a failure when it carries an error, else as a success.
func (c *Codec) encodeResult(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, own bool) {
	switch {
	case env.Outcome != "":
		if s, ok := dialects.Word(ctx, env, Name, c.Outcomes, string(env.Outcome), canonical.COutcome); ok {
			w.Name("task_status")
			w.String(s)
		}
	case !own:
		out := canonical.OutcomeSuccess
		if env.Error != nil {
			out = canonical.OutcomeFailure
		}
		s, _, _ := c.Outcomes.Word(string(out))
		ctx.Fill(canonical.COutcome, "payload.task_status", s)
		w.Name("task_status")
		w.String(s)
	}
	w.NameString("result_summary", env.Description)
	c.objectField(w, ctx, "result_details", env.Result, canonical.CResult, own)
}

// encodeError writes the members of an error act's payload: the fixed
// status word (when the act has one), the code and the text.
func (c *Codec) encodeError(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, own bool, status, codeKey, textKey string) {
	if status != "" && !own {
		w.Name("status")
		w.String(status)
	}
	e := env.Error
	if e == nil {
		return
	}
	switch {
	case e.Code != "":
		if word, ok := dialects.Word(ctx, env, Name, c.Errors, string(e.Code), canonical.CErrorCode); ok {
			w.Key(codeKey)
			w.String(word)
		}
	case env.Origin.Words.Get(canonical.KindError) != "":
		// A word with no canonical meaning, of elizaacl or of the source
		// dialect: the code is an open vocabulary, so it is kept verbatim.
		w.Key(codeKey)
		w.String(env.Origin.Words.Get(canonical.KindError))
	}
	w.StringField(textKey, e.Message)
}

// encodeQuery writes the payload of a query: the arguments are the whole
// payload. Arguments that are not an object are wrapped as {"value": ...};
// a capability query from another dialect without arguments asks for a
// summary.
func (c *Codec) encodeQuery(w *jsonw.Writer, env *canonical.Envelope, act canonical.Act, ctx *dialects.EncodeContext, own bool) {
	args := env.Arguments
	switch {
	case args != "" && (own || dialects.IsObject(args)):
		w.Raw(string(args))
	case args != "":
		dialects.Approximate(ctx, canonical.CArguments, Name, string(args), `payload {"value": ...}`)
		w.Open()
		w.Name("value")
		w.Raw(string(args))
		w.Close()
	case act == canonical.ActQueryCapabilities:
		w.Open()
		w.Name("query_type")
		w.String(querySummary)
		w.Close()
	default:
		w.Open()
		w.Close()
	}
}

// querySummary is the query_type of a capability query that asks for
// everything (specs/elizaacl-patterns.md).
const querySummary = "summary"

// objectField writes key with raw when raw is a JSON object (or whatever it
// was, for an elizaacl envelope); any other value from another dialect is
// wrapped as {"value": raw} and reported, since elizaacl types these
// members as objects.
func (c *Codec) objectField(w *jsonw.Writer, ctx *dialects.EncodeContext, key string, raw canonical.JSON, concept canonical.Concept, own bool) {
	if raw == "" {
		return
	}
	w.Key(key)
	if own || dialects.IsObject(raw) {
		w.Raw(string(raw))
		return
	}
	dialects.Approximate(ctx, concept, Name, string(raw), `{"value": ...}`)
	w.Open()
	w.Name("value")
	w.Raw(string(raw))
	w.Close()
}
