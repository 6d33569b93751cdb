package bluelabel

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// failure writes an error payload with the code word chosen by errorCode.
func (e *encoder) failure(base, code string) {
	w, env := &e.w, e.env
	er := env.Error
	if er == nil {
		er = &canonical.Error{}
	}
	w.Open()
	w.NameString("code", code)
	msg := er.Message
	if msg == "" && !e.own {
		msg = code
		e.ctx.Fill(canonical.CErrorMessage, "payload.message", msg)
	}
	w.NameString("message", msg)
	e.object("details", er.Details, canonical.CErrorDetails)
	switch {
	case er.Retryable != nil:
		w.Name("retryable")
		w.Bool(*er.Retryable)
	case !e.own && env.Act == canonical.ActRefuse:
		w.Name("retryable") // a refusal is not worth retrying
		w.Bool(false)
	}
	e.suggestions(er.SuggestedActions)
	dialects.WriteExtras(w, env, Name, base)
	w.Close()
}

// errorCode chooses payload.code for an error act. The code carries the act
// on the wire (REJECTED is a refusal, VALIDATION_ERROR not-understood), so
// a refusal or not-understood whose code would read back as another act is
// written with its own code, and a failure whose code reads back as another
// act is reported. bluelabel codes are an open vocabulary: a word with no
// canonical meaning (from any dialect) is written as it is. "" means an own
// message that had no code.
func (e *encoder) errorCode() (string, error) {
	env, act := e.env, e.env.Act
	var code canonical.ErrorCode
	if env.Error != nil {
		code = env.Error.Code
	}
	var lost string // a word with no canonical meaning that is not written
	if code == "" {
		word := env.Origin.Words.Get(canonical.KindError)
		switch {
		case word != "" && e.c.wordAct(word) == act:
			return word, nil
		case word != "":
			lost = word
		case e.own && act == canonical.ActFailure:
			return "", nil
		}
		code = canonical.DefaultErrorCode(act)
	}
	w, exact, ok := e.codeWord(code)
	if !ok || e.c.wordAct(w) != act && act != canonical.ActFailure {
		// The code cannot go with the act: write the act's own code.
		want := canonical.DefaultErrorCode(act)
		if w, _, ok = e.codeWord(want); !ok || e.c.wordAct(w) != act {
			return "", dialects.Errorf(Name, "", "cannot express act %q: the error table has no code for %s", act, want)
		}
		if lost == "" {
			lost = string(code)
		}
		exact = true
	}
	if !exact {
		dialects.Approximate(e.ctx, canonical.CErrorCode, Name, string(code), w)
	}
	if lost != "" {
		e.approx(canonical.CErrorCode, fmt.Sprintf("payload.code: a %s cannot carry error code %s; wrote %s", act, lost, w))
	}
	if back := e.c.wordAct(w); back != act {
		e.approx(canonical.CAct, fmt.Sprintf("a %s with error code %s is read back as %s", act, w, back))
	}
	return w, nil
}

// codeWord returns the word for an error code: the source's own spelling
// when it still means code, else the table's.
func (e *encoder) codeWord(code canonical.ErrorCode) (w string, exact, ok bool) {
	if ow := e.env.Origin.Word(Name, canonical.KindError); ow != "" {
		if c, ok := e.c.Errors.Canonical(ow); ok && c == string(code) {
			return ow, true, true
		}
	}
	return e.c.Errors.Word(string(code))
}

// wordAct returns the act an error message with code word w decodes as.
func (c *Codec) wordAct(w string) canonical.Act {
	code, _ := c.Errors.Canonical(w)
	return errorAct(canonical.ErrorCode(code))
}

// suggestions writes payload.suggested_actions, an array of strings: for an
// envelope from another dialect, items that are not strings are written as
// their JSON text.
func (e *encoder) suggestions(raw canonical.JSON) {
	if raw == "" {
		return
	}
	w := &e.w
	w.Name("suggested_actions")
	v := gjson.Parse(string(raw))
	if e.own || v.IsArray() && allStrings(v) {
		w.Raw(string(raw))
		return
	}
	e.approx(canonical.CErrorSuggestions, "payload.suggested_actions must be an array of strings; items of "+clip(string(raw), 60)+" that are not strings written as their JSON text")
	w.OpenArray()
	add := func(item gjson.Result) {
		if item.Type == gjson.String {
			w.String(item.Str)
		} else {
			w.String(item.Raw)
		}
	}
	switch {
	case v.IsArray():
		v.ForEach(func(_, item gjson.Result) bool { add(item); return true })
	case v.Type != gjson.Null:
		add(v)
	}
	w.CloseArray()
}

func allStrings(v gjson.Result) bool {
	ok := true
	v.ForEach(func(_, item gjson.Result) bool {
		ok = item.Type == gjson.String
		return ok
	})
	return ok
}
