package declared

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// Decode reads one message of the dialect: each member at a declared path
// is read by its concept's kind, each object of declared paths is read in
// turn, and every other member is kept as an extra member at its parent.
// Only the act is required; Validate checks the rest.
func (c *Codec) Decode(msg []byte) (*canonical.Envelope, error) {
	root, err := c.Read.Parse(msg)
	if err != nil {
		return nil, err
	}
	return c.DecodeRoot(root)
}

// DecodeRoot decodes the message whose root object is root
// (dialects.RootDecoder).
func (c *Codec) DecodeRoot(root gjson.Result) (*canonical.Envelope, error) {
	return c.decode(nil, root)
}

// DecodeDoc decodes the message doc holds (dialects.DocDecoder).
func (c *Codec) DecodeDoc(doc *dialects.Doc) (*canonical.Envelope, error) {
	return c.decode(doc, doc.Root())
}

// decode decodes the message whose root object is root, reading it with doc
// (nil: gjson alone).
func (c *Codec) decode(doc *dialects.Doc, root gjson.Result) (*canonical.Envelope, error) {
	d := decoder{c: c, env: &canonical.Envelope{Origin: canonical.Origin{Dialect: c.Name()}}, doc: doc}
	if err := d.object(c.root, root); err != nil {
		return nil, err
	}
	if d.env.Act == "" {
		return nil, c.Read.Errorf(c.act.path, "missing")
	}
	d.env.Origin.Form = d.absentMarks()
	return d.env, nil
}

// decoder reads one message.
type decoder struct {
	c   *Codec
	env *canonical.Envelope
	// matched are the detection marks found with their value.
	matched []*mark
	// doc reads the message (nil: gjson alone).
	doc *dialects.Doc
}

// object reads the members of obj, the object at n.
func (d *decoder) object(n *node, obj gjson.Result) error {
	var err error
	d.doc.ForEach(obj, func(k, v gjson.Result) bool {
		key := dialects.Key(k)
		child := n.index[key]
		switch {
		case child == nil:
			dialects.Keep(d.env, d.c.Name(), n.path, key, v.Raw)
		case child.field != nil:
			err = d.field(child.field, n.path, key, v)
		case child.mark != nil:
			// Checked by Validate; a mark of another value is kept as
			// written.
			if v.Type == gjson.String && dialects.Text(v) == child.mark.value {
				d.matched = append(d.matched, child.mark)
			} else {
				dialects.Keep(d.env, d.c.Name(), n.path, key, v.Raw)
			}
		case v.Type == gjson.Null || isEmptyObject(d.doc, v):
			// No value to read: kept as written.
			dialects.Keep(d.env, d.c.Name(), n.path, key, v.Raw)
		default:
			if err = d.c.Read.Object(child.path, v); err == nil {
				err = d.object(child, v)
			}
		}
		return err == nil
	})
	return err
}

// field reads the member key of the object at parent, the value of f.
func (d *decoder) field(f *field, parent, key string, v gjson.Result) error {
	env, r := d.env, d.c.Read
	if v.Type == gjson.Null && f.concept != canonical.CAct {
		// null carries no value: kept as written.
		dialects.Keep(env, d.c.Name(), parent, key, v.Raw)
		return nil
	}
	switch f.kind {
	case mappings.KindRaw:
		setRaw(env, f.concept, canonical.JSON(v.Raw))
		return nil
	case mappings.KindMilli:
		ms, err := r.Number(f.path, v)
		if err != nil {
			return err
		}
		dur, ok := millis(ms)
		if !ok {
			return r.Errorf(f.path, "must be a number of milliseconds from 0 to %d, whole nanoseconds, got %s", maxMillis, v.Raw)
		}
		env.TTL = dur
		return nil
	}
	s, err := r.String(f.path, v, false)
	if err != nil {
		return err
	}
	if f.concept == canonical.CAct {
		return d.act(f, s)
	}
	if s == "" {
		// An empty string carries no value: kept as written.
		dialects.Keep(env, d.c.Name(), parent, key, v.Raw)
		return nil
	}
	if f.kind == mappings.KindWord {
		return d.word(f, s)
	}
	setText(env, f.concept, s)
	return nil
}

// act reads the act word, a closed vocabulary.
func (d *decoder) act(f *field, w string) error {
	a, ok := f.table.Canonical(w)
	if !ok {
		return d.c.Read.Errorf(f.path, "unknown act %q (want one of %s)", w, strings.Join(f.table.Words(), ", "))
	}
	d.env.Act = canonical.Act(a)
	d.env.Origin.SetWord(canonical.KindAct, w)
	return nil
}

// word reads a priority, an outcome or an error code. Error codes are an
// open vocabulary: an unknown word is kept in Origin; the others are closed.
func (d *decoder) word(f *field, w string) error {
	env := d.env
	if f.concept == canonical.CErrorCode {
		dialects.ErrorWord(env, errorOf(env), f.table, w)
		return nil
	}
	v, ok := f.table.Canonical(w)
	if !ok {
		return d.c.Read.Errorf(f.path, "unknown %s %q (want one of %s)", f.table.Kind, w, strings.Join(f.table.Words(), ", "))
	}
	switch f.concept {
	case canonical.CPriority:
		env.Priority, _ = canonical.ParsePriority(v)
	case canonical.COutcome:
		env.Outcome = canonical.Outcome(v)
	}
	env.Origin.SetWord(f.table.Kind, w)
	return nil
}

// absentMarks lists, comma-separated, the marks the message lacked or held
// with another value, so that the encoder leaves them out ("" when none).
func (d *decoder) absentMarks() string {
	var out []string
	for _, m := range d.c.marks {
		found := false
		for _, x := range d.matched {
			found = found || x == m
		}
		if !found {
			out = append(out, m.path)
		}
	}
	return strings.Join(out, ",")
}

// isEmptyObject reports whether v, read with doc, is an object with no
// members.
func isEmptyObject(doc *dialects.Doc, v gjson.Result) bool {
	if !v.IsObject() {
		return false
	}
	empty := true
	doc.ForEach(v, func(_, _ gjson.Result) bool {
		empty = false
		return false
	})
	return empty
}
