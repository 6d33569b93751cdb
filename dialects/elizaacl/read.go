package elizaacl

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// decoder is the state of one Decode: the envelope being filled, and the
// message it reads (nil: gjson alone).
type decoder struct {
	c   *Codec
	env *canonical.Envelope
	doc *dialects.Doc
}

// object is one JSON object being read: its dotted path and the members it
// interprets that were already read, so that a repeated member is refused
// instead of one copy silently winning.
type object struct {
	path string
	seen [12]string
	n    int
}

// once refuses a second occurrence of an interpreted member of o.
func (d *decoder) once(o *object, key string) error {
	for _, k := range o.seen[:o.n] {
		if k == key {
			return d.c.Read.Errorf(dialects.Join(o.path, key), "repeated member (a message gives it once)")
		}
	}
	if o.n < len(o.seen) {
		o.seen[o.n] = key
		o.n++
	}
	return nil
}

// text reads a string member of o. A null (when nullOK) or an empty string
// means "not given" to the envelope; such a member is kept verbatim in Extra
// so that the message is written back as it came.
func (d *decoder) text(o *object, key string, v gjson.Result, nullOK bool) (string, error) {
	if err := d.once(o, key); err != nil {
		return "", err
	}
	s, err := d.c.Read.StringAt(o.path, key, v, nullOK)
	if err == nil && s == "" {
		dialects.Keep(d.env, Name, o.path, key, v.Raw)
	}
	return s, err
}

// raw reads a member of o whose value is carried as raw JSON.
func (d *decoder) raw(o *object, key string, v gjson.Result) (canonical.JSON, error) {
	if err := d.once(o, key); err != nil {
		return "", err
	}
	return canonical.JSON(v.Raw), nil
}

// word reads a string member of o that must be a word of a closed
// vocabulary. It returns the word and whether it was given (null counts as
// not given when nullOK, and is kept in Extra).
func (d *decoder) word(o *object, key string, v gjson.Result, nullOK bool) (string, bool, error) {
	if err := d.once(o, key); err != nil {
		return "", false, err
	}
	if nullOK && v.Type == gjson.Null {
		dialects.Keep(d.env, Name, o.path, key, v.Raw)
		return "", false, nil
	}
	s, err := d.c.Read.StringAt(o.path, key, v, false)
	return s, err == nil, err
}

// strings reads an array of strings at path.
func (d *decoder) strings(path string, v gjson.Result, into []string) ([]string, error) {
	if err := d.c.Read.Array(path, v); err != nil {
		return into, err
	}
	var err error
	i := 0
	d.doc.ForEach(v, func(_, e gjson.Result) bool {
		var s string
		s, err = d.c.Read.String(path+"."+strconv.Itoa(i), e, false)
		into = append(into, s)
		i++
		return err == nil
	})
	return into, err
}
