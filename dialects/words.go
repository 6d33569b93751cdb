package dialects

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// Word returns the word target writes for a canonical value of t's kind:
// the source's own spelling when env came from target and it still means
// value, else the table's word. A nearest word is reported as approximated
// under concept. ok is false when the table has no word at all.
func Word(ctx *EncodeContext, env *canonical.Envelope, target string, t *mappings.Table, value string, concept canonical.Concept) (string, bool) {
	if w := env.Origin.Word(target, t.Kind); w != "" {
		if c, ok := t.Canonical(w); ok && c == value {
			return w, true
		}
	}
	w, exact, ok := t.Word(value)
	if ok && !exact {
		Approximate(ctx, concept, target, value, w)
	}
	return w, ok
}

// TimeFor returns the timestamp target writes for t: t itself when it parses
// or the target accepts any text (strict false); when t is absent, a new one
// if create is set, else ""; and when t does not parse, a new one reported
// as approximated.
func TimeFor(ctx *EncodeContext, target string, t canonical.Timestamp, concept canonical.Concept, strict, create bool) canonical.Timestamp {
	if t == "" {
		if create {
			return canonical.NewTimestamp(ctx.Time())
		}
		return ""
	}
	if !strict {
		return t
	}
	if t.Valid() {
		return t
	}
	now := canonical.NewTimestamp(ctx.Time())
	ctx.Lose(Approximated, concept, concept.String(), target+" requires a date-time; "+string(t)+" is not one, wrote "+string(now))
	return now
}

// ErrorWord records the error-code word of a message, an open vocabulary: a
// word t knows sets e.Code; every word is kept in env.Origin as the source's
// own, so that an unknown one travels on verbatim.
func ErrorWord(env *canonical.Envelope, e *canonical.Error, t *mappings.Table, word string) {
	if code, ok := t.Canonical(word); ok {
		e.Code = canonical.ErrorCode(code)
	}
	env.Origin.SetWord(canonical.KindError, word)
}

// ReadErrorWord reads the error-code member k (value v) of the object at
// parent: a string, recorded by ErrorWord; an empty one carries no word and
// is kept in env.Extra as written.
func (r Reader) ReadErrorWord(env *canonical.Envelope, e *canonical.Error, t *mappings.Table, parent string, k, v gjson.Result) error {
	key := Key(k)
	w, err := r.String(Join(parent, key), v, false)
	switch {
	case err != nil:
		return err
	case w == "":
		Keep(env, r.Dialect, parent, key, v.Raw)
	default:
		ErrorWord(env, e, t, w)
	}
	return nil
}
