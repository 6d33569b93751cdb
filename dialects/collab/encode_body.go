package collab

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// writeRequest writes the members of a REQUEST body: the action and its
// payload, or a registry operation for the capability acts.
func (c *Codec) writeRequest(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, act canonical.Act, own bool) {
	switch act {
	case canonical.ActInformCapabilities:
		w.Name("action")
		w.String(actionRegister)
		writeRegistration(w, env, ctx, own)
	case canonical.ActQueryCapabilities:
		w.Name("action")
		w.String(actionFind)
		objectField(w, ctx, "payload", env.Arguments, canonical.CArguments, own)
	default:
		w.NameString("action", env.Operation.Name)
		objectField(w, ctx, "payload", env.Arguments, canonical.CArguments, own)
	}
}

// writeRegistration writes the Agent of a registry.register request: the
// source's own when it was collab, else one built from the sender and the
// tools, a capability per tool group.
func writeRegistration(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, own bool) {
	caps := env.Capabilities
	if caps != nil && caps.Dialect == Name && caps.Raw != "" {
		w.Name("payload")
		w.Raw(string(caps.Raw))
		return
	}
	if own && caps == nil {
		return
	}
	id := env.Sender.ID
	if id == "" {
		id = "unknown"
	}
	name := env.Sender.Name
	if name == "" {
		name = id
		ctx.Fill(canonical.CSenderName, "body.payload.name", name)
	}
	w.Name("payload")
	w.Open()
	w.Name("id")
	w.String(id)
	w.Name("name")
	w.String(name)
	w.Name("capabilities")
	w.OpenArray()
	if caps != nil {
		writeCapabilities(w, ctx, caps)
	}
	w.CloseArray()
	w.Close()
}

// writeCapabilities writes one Capability per tool group, in the order the
// groups first appear; a tool with no group is a capability of its own.
// What collab has no place for (descriptions, schemas, topics) is reported.
func writeCapabilities(w *jsonw.Writer, ctx *dialects.EncodeContext, caps *canonical.Capabilities) {
	detailed := len(caps.Topics) > 0
	done := make([]bool, len(caps.Tools))
	for i, t := range caps.Tools {
		if t.Description != "" || t.Title != "" || t.InputSchema != "" || t.OutputSchema != "" || t.Version != "" {
			detailed = true
		}
		if done[i] {
			continue
		}
		if t.Name == "" {
			approximate(ctx, canonical.CCapabilities, "collab actions need a name; left out a tool without one")
			continue
		}
		group := t.Capability
		if group == "" {
			group = t.Name
		}
		w.Open()
		w.Name("name")
		w.String(group)
		w.Name("actions")
		w.OpenArray()
		for j := i; j < len(caps.Tools); j++ {
			u := caps.Tools[j]
			if !done[j] && u.Name != "" && (j == i || (t.Capability != "" && u.Capability == t.Capability)) {
				w.String(u.Name)
				done[j] = true
			}
		}
		w.CloseArray()
		w.Close()
	}
	if detailed {
		approximate(ctx, canonical.CCapabilities, "collab capabilities carry names and actions only; tool titles, descriptions, schemas, versions and topics were left out")
	}
}

// writeResponse writes the members of a RESPONSE body. act is the act the
// message is read back as.
func (c *Codec) writeResponse(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, act canonical.Act, own bool, l layout) {
	failed := act.IsError()
	if status, ok := c.status(env, ctx, failed, own); ok {
		w.Name("status")
		w.String(status)
	}
	switch {
	case !failed:
		w.RawField("result", string(c.result(env, ctx, own)))
	case l.nullResult:
		w.Name("result")
		w.Null()
	}
	switch {
	case failed && own && bareError(env) && keptResult(env):
		// The error object was there, empty: without it the kept result
		// would read back as a failed result.
		w.Name("error")
		w.Open()
		w.Close()
	case failed && !(own && bareError(env)):
		c.writeError(w, env, ctx, act, own)
	case l.nullError:
		w.Name("error")
		w.Null()
	}
}

// result returns body.result of a result. A failed result is a RESPONSE
// with an error status, a result and no error object; one from another
// dialect with no result (or null) gets an empty object, filled, so that
// it reads back as a result rather than a failure.
func (c *Codec) result(env *canonical.Envelope, ctx *dialects.EncodeContext, own bool) canonical.JSON {
	if own || env.Outcome != canonical.OutcomeFailure || (env.Result != "" && env.Result != "null") {
		return env.Result
	}
	ctx.Fill(canonical.CResult, "body.result", "{}")
	return "{}"
}

// keptResult reports whether a collab failure carried a non-null
// body.result, kept as an extra.
func keptResult(env *canonical.Envelope) bool {
	for _, f := range env.Extra {
		if f.Dialect == Name && f.Parent == "body" && f.Key == "result" {
			return true
		}
	}
	return false
}

// status returns body.status: the error status for an error act, else the
// word for the outcome. A collab envelope without a status gets none; a
// result from elsewhere with no outcome is written as a success.
func (c *Codec) status(env *canonical.Envelope, ctx *dialects.EncodeContext, failed, own bool) (string, bool) {
	if own {
		if !env.Origin.Words.Has(canonical.KindOutcome) {
			return "", false
		}
	}
	outcome := env.Outcome
	if failed {
		outcome = canonical.OutcomeFailure
	}
	if outcome == "" {
		word, ok := dialects.Word(ctx, env, Name, c.Outcomes, string(canonical.OutcomeSuccess), canonical.COutcome)
		ctx.Fill(canonical.COutcome, "body.status", word)
		return word, ok
	}
	return dialects.Word(ctx, env, Name, c.Outcomes, string(outcome), canonical.COutcome)
}

// bareError reports whether a collab envelope's error is only what the
// status implied (TIMEOUT with no error object): it is not written.
func bareError(env *canonical.Envelope) bool {
	e := env.Error
	if e == nil {
		return true
	}
	coded := env.Origin.Words.Has(canonical.KindError)
	return !coded && e.Message == "" && e.Retryable == nil && !e.RetryAfter.Set &&
		e.Details == "" && e.SuggestedActions == "" && !dialects.HasExtras(env, Name, "body.error")
}

// writeError writes body.error (spec section 9.2). A refusal's code is
// always REJECTED, since that is what makes it one.
func (c *Codec) writeError(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, act canonical.Act, own bool) {
	e := env.Error
	if e == nil {
		e = &canonical.Error{}
	}
	w.Name("error")
	w.Open()
	code := e.Code
	if code == "" {
		code = canonical.DefaultErrorCode(act)
	}
	if word, ok := c.errorWord(env, ctx, act, own); ok {
		w.Name("code")
		w.String(word)
	}
	msg := e.Message
	if msg == "" && !own {
		msg = string(code)
		ctx.Fill(canonical.CErrorMessage, "body.error.message", msg)
	}
	w.NameString("message", msg)
	if e.Retryable != nil {
		w.Name("retryable")
		w.Bool(*e.Retryable)
	}
	if e.RetryAfter.Set {
		w.Name("retryAfter")
		writeMillis(w, ctx, e.RetryAfter.D, own, canonical.CErrorRetryAfter)
	}
	w.RawField("details", string(e.Details))
	dialects.WriteExtras(w, env, Name, "body.error")
	w.Close()
}

// errorWord returns body.error.code: a collab envelope's own word (none if
// it had none), else the table's word for the code. The code decides the
// act a collab reader sees: REJECTED is a refusal, anything else a failure.
// So a refusal (or a message not understood) is always written REJECTED,
// and a failure whose code would be REJECTED takes the word for a failed
// execution instead; both are reported. ok is false when no code is written.
func (c *Codec) errorWord(env *canonical.Envelope, ctx *dialects.EncodeContext, act canonical.Act, own bool) (string, bool) {
	e := env.Error
	if e == nil {
		e = &canonical.Error{}
	}
	if own {
		word := env.Origin.Words.Get(canonical.KindError)
		if word == "" {
			return "", false
		}
		if code, _ := c.Errors.Canonical(word); e.Code == "" || canonical.ErrorCode(code) == e.Code {
			return word, true
		}
	}
	code := e.Code
	if code == "" {
		if foreign := env.Origin.Words.Get(canonical.KindError); foreign != "" && !own {
			return c.foreignCode(ctx, env, act, foreign), true
		}
		code = canonical.DefaultErrorCode(act)
	}
	word := c.codeWord(code)
	refusal := act != canonical.ActFailure
	switch meaning, _ := c.Errors.Canonical(word); {
	case refusal && meaning != string(canonical.ErrRejected):
		word = c.codeWord(canonical.ErrRejected)
		approximate(ctx, canonical.CErrorCode, "a collab refusal is an error with code %s; wrote it for %s", word, code)
	case !refusal && meaning == string(canonical.ErrRejected):
		word = c.codeWord(canonical.DefaultErrorCode(canonical.ActFailure))
		approximate(ctx, canonical.CErrorCode, "collab reads error code %s as a refusal; wrote %s for failure code %s", c.codeWord(code), word, code)
	default:
		var ok bool
		if word, ok = dialects.Word(ctx, env, Name, c.Errors, string(code), canonical.CErrorCode); !ok {
			word = c.codeWord(code)
			approximate(ctx, canonical.CErrorCode, "collab has no word for error code %s; wrote %s", code, word)
		}
	}
	return word, true
}

// foreignCode returns body.error.code for another dialect's error word that
// has no canonical meaning. collab codes are an open vocabulary, so a
// failure carries the word as it is. A refusal (or a message not
// understood) is written REJECTED instead, and reported. A word collab
// itself reads (a word of its table) would change the code: it is written
// and reported, except one read as a refusal, which a failure cannot carry;
// the word for a failed execution takes its place.
func (c *Codec) foreignCode(ctx *dialects.EncodeContext, env *canonical.Envelope, act canonical.Act, foreign string) string {
	if act != canonical.ActFailure {
		word := c.codeWord(canonical.ErrRejected)
		approximate(ctx, canonical.CErrorCode, "a collab refusal is an error with code %s; wrote it for %s error code %q", word, env.Origin.Dialect, foreign)
		return word
	}
	meaning, known := c.Errors.Canonical(foreign)
	switch {
	case !known:
		return foreign
	case meaning == string(canonical.ErrRejected):
		word := c.codeWord(canonical.DefaultErrorCode(canonical.ActFailure))
		approximate(ctx, canonical.CErrorCode, "collab reads %s error code %q as a refusal; wrote %s", env.Origin.Dialect, foreign, word)
		return word
	}
	approximate(ctx, canonical.CErrorCode, "collab reads %s error code %q as %s", env.Origin.Dialect, foreign, meaning)
	return foreign
}

// codeWord returns the table's word for an error code, exact or nearest;
// failing both, the word for an internal error, or the code itself.
func (c *Codec) codeWord(code canonical.ErrorCode) string {
	if w, _, ok := c.Errors.Word(string(code)); ok {
		return w
	}
	if w, _, ok := c.Errors.Word(string(canonical.ErrInternal)); ok {
		return w
	}
	return string(code)
}
