package bluelabel

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// needsInput writes a needs_input payload.
func (e *encoder) needsInput(base string) {
	w, env := &e.w, e.env
	w.Open()
	if e.own {
		w.RawField("requested_inputs", string(env.Inputs))
	} else {
		e.inputs(env.Inputs)
	}
	w.NameString("context", env.Description)
	e.seconds("timeout_seconds", canonical.CTTL)
	dialects.WriteExtras(w, env, Name, base)
	w.Close()
}

// inputTypes are the kinds of requested input the schema allows.
var inputTypes = []string{"string", "number", "boolean", "enum", "file"}

// inputs writes payload.requested_inputs for an envelope from another
// dialect: an array of {"id", "type", "description", ...} items. Items not
// in that form are reshaped (one report for the whole array); no inputs at
// all are filled as [].
func (e *encoder) inputs(raw canonical.JSON) {
	w := &e.w
	w.Name("requested_inputs")
	if raw == "" {
		e.ctx.Fill(canonical.CInputs, "payload.requested_inputs", "[]")
		w.Raw("[]")
		return
	}
	v := gjson.Parse(string(raw))
	changed := !v.IsArray()
	w.OpenArray()
	i := 0
	each := func(_, item gjson.Result) bool {
		i++
		if e.input(i, item) {
			changed = true
		}
		return true
	}
	if v.IsArray() {
		v.ForEach(each)
	} else if v.Type != gjson.Null {
		each(gjson.Result{}, v)
	}
	w.CloseArray()
	if changed {
		e.approx(canonical.CInputs, "payload.requested_inputs must be an array of {id, type, description} items; reshaped "+clip(string(raw), 60))
	}
}

// input writes the i-th (from 1) requested input, reporting whether it had
// to be reshaped: a missing id is "input_<i>", a missing or unknown type
// "string", a missing description the id; members of the wrong type are left
// out.
func (e *encoder) input(i int, item gjson.Result) (changed bool) {
	w := &e.w
	var id, typ, desc string
	w.Open()
	if !item.IsObject() {
		desc = item.Raw
		if item.Type == gjson.String {
			desc = item.Str
		}
		changed = true
		item = gjson.Result{} // no members to copy
	}
	item.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id", "type", "description":
			s := v.Str
			if v.Type != gjson.String {
				s, changed = v.Raw, true
			}
			switch k.Str {
			case "id":
				id = s
			case "type":
				typ = s
			default:
				desc = s
			}
		case "sensitive", "required":
			if v.Type == gjson.True || v.Type == gjson.False {
				w.Key(k.Str)
				w.Raw(v.Raw)
			} else {
				changed = true
			}
		case "options":
			if v.IsArray() && allScalars(v) {
				w.Key(k.Str)
				w.Raw(v.Raw)
			} else {
				changed = true
			}
		default:
			w.Key(k.Str)
			w.Raw(v.Raw)
		}
		return true
	})
	if id == "" && !item.Get("id").Exists() {
		id, changed = "input_"+strconv.Itoa(i), true
	}
	if !knownInputType(typ) {
		typ, changed = inputTypes[0], true
	}
	if desc == "" && !item.Get("description").Exists() {
		desc, changed = id, true
	}
	w.Name("id")
	w.String(id)
	w.Name("type")
	w.String(typ)
	w.Name("description")
	w.String(desc)
	w.Close()
	return changed
}

func knownInputType(t string) bool {
	for _, k := range inputTypes {
		if t == k {
			return true
		}
	}
	return false
}

// allScalars reports whether every item of an array is a string, number or
// boolean (the schema's option types).
func allScalars(v gjson.Result) bool {
	ok := true
	v.ForEach(func(_, item gjson.Result) bool {
		switch item.Type {
		case gjson.String, gjson.Number, gjson.True, gjson.False:
		default:
			ok = false
		}
		return ok
	})
	return ok
}
