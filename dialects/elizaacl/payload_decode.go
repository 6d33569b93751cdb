package elizaacl

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// payload reads the payload object, whose shape the act's performative
// fixes. Members a shape does not interpret are kept in Extra under
// "payload".
func (d *decoder) payload(p gjson.Result) error {
	env := d.env
	switch env.Act {
	case canonical.ActQueryIf, canonical.ActQueryRef, canonical.ActQueryCapabilities:
		// The whole payload is the question: kept raw as the arguments.
		env.Arguments = canonical.JSON(p.Raw)
		return nil
	case canonical.ActInformCapabilities:
		return d.capabilities(p)
	}
	var member func(o *object, key string, v gjson.Result) error
	switch env.Act {
	case canonical.ActRequest:
		member = d.requestMember
	case canonical.ActAccept:
		member = d.acceptMember
	case canonical.ActResult:
		member = d.resultMember
	case canonical.ActFailure:
		member = d.errorMember("error_code", "error_text")
	default: // refuse, not-understood
		member = d.errorMember("reason_code", "reason_text")
	}
	o := object{path: "payload"}
	var err error
	d.doc.ForEach(p, func(k, v gjson.Result) bool {
		err = member(&o, k.Str, v)
		return err == nil
	})
	return err
}

// requestMember reads a TASK_REQUEST payload member (spec 4.1).
func (d *decoder) requestMember(o *object, key string, v gjson.Result) error {
	env := d.env
	var err error
	switch key {
	case "task_type":
		env.Operation.Name, err = d.text(o, key, v, false)
	case "task_description":
		env.Description, err = d.text(o, key, v, true)
	case "task_parameters":
		env.Arguments, err = d.raw(o, key, v)
	case "priority":
		err = d.priority(o, key, v)
	default:
		dialects.Keep(env, Name, o.path, key, v.Raw)
	}
	return err
}

// priority reads a request's priority word (a closed vocabulary).
func (d *decoder) priority(o *object, key string, v gjson.Result) error {
	w, given, err := d.word(o, key, v, true)
	if err != nil || !given {
		return err
	}
	p, ok := d.c.Priorities.Canonical(w)
	if !ok {
		return d.c.Read.Errorf(dialects.Join(o.path, key), "unknown priority %q (want one of %v)", w, d.c.Priorities.Words())
	}
	d.env.Priority, _ = canonical.ParsePriority(p)
	return nil
}

// acceptMember reads a TASK_ACCEPT payload member (spec 4.2). The fixed
// status word stays in Extra.
func (d *decoder) acceptMember(o *object, key string, v gjson.Result) error {
	env := d.env
	var err error
	switch key {
	case "task_id_assigned":
		env.TaskID, err = d.text(o, key, v, true)
	case "estimated_completion_time":
		if err = d.once(o, key); err == nil {
			err = d.eta(o, key, v)
		}
	case "comments":
		env.Description, err = d.text(o, key, v, true)
	default:
		dialects.Keep(env, Name, o.path, key, v.Raw)
	}
	return err
}

// resultMember reads an INFORM_RESULT payload member (spec 4.3); artifacts
// stay in Extra.
func (d *decoder) resultMember(o *object, key string, v gjson.Result) error {
	env := d.env
	var err error
	switch key {
	case "task_status":
		err = d.outcome(o, key, v)
	case "result_summary":
		env.Description, err = d.text(o, key, v, true)
	case "result_details":
		env.Result, err = d.raw(o, key, v)
	default:
		dialects.Keep(env, Name, o.path, key, v.Raw)
	}
	return err
}

// outcome reads a task_status or status word (a closed vocabulary whose
// case does not matter). A spelling other than the table's own is recorded
// so that the message is written back with it.
func (d *decoder) outcome(o *object, key string, v gjson.Result) error {
	w, _, err := d.word(o, key, v, false)
	if err != nil {
		return err
	}
	out, ok := d.c.Outcomes.Canonical(w)
	if !ok {
		return d.c.Read.Errorf(dialects.Join(o.path, key), "unknown %s %q (want one of %v)", key, w, d.c.Outcomes.Words())
	}
	d.env.Outcome = canonical.Outcome(out)
	if pref, _, _ := d.c.Outcomes.Word(out); pref != w {
		d.env.Origin.SetWord(canonical.KindOutcome, w)
	}
	return nil
}

// errorMember returns the reader of the payload of an error act: TASK_REJECT
// and NOT_UNDERSTOOD write reason_code/reason_text (spec 4.5, 4.7), FAILURE
// error_code/error_text (spec 4.6). The fixed status word stays in Extra.
func (d *decoder) errorMember(codeKey, textKey string) func(o *object, key string, v gjson.Result) error {
	return func(o *object, key string, v gjson.Result) error {
		env := d.env
		switch key {
		case codeKey:
			w, err := d.text(o, key, v, true)
			if err != nil || w == "" {
				return err
			}
			e := d.envError()
			code, ok := d.c.Errors.Canonical(w)
			if ok {
				e.Code = canonical.ErrorCode(code)
			}
			// An open vocabulary: an unknown word is kept with no code;
			// a known word other than the table's own is kept too.
			if pref, _, _ := d.c.Errors.Word(code); !ok || pref != w {
				env.Origin.SetWord(canonical.KindError, w)
			}
			return nil
		case textKey:
			m, err := d.text(o, key, v, true)
			if err == nil && m != "" {
				d.envError().Message = m
			}
			return err
		}
		dialects.Keep(env, Name, o.path, key, v.Raw)
		return nil
	}
}

// envError returns the envelope's Error, creating it.
func (d *decoder) envError() *canonical.Error {
	if d.env.Error == nil {
		d.env.Error = &canonical.Error{}
	}
	return d.env.Error
}
