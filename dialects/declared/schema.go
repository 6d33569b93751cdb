package declared

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// deriveSchema writes the dialect's JSON Schema (draft 2020-12) from the
// declaration: an object at the message and along every declared path,
// each field typed by its kind, each mark a const (a "*" mark only
// required), the required members at each level; other members are
// allowed.
func (c *Codec) deriveSchema(d *mappings.Declaration) ([]byte, error) {
	w := jsonw.New(nil)
	w.Open()
	w.Key("$schema")
	w.String("https://json-schema.org/draft/2020-12/schema")
	w.Key("$id")
	w.String("urn:mcp-bridge:schema:" + d.Name)
	w.Key("title")
	w.String(d.Name + " message (declared dialect)")
	w.Key("description")
	w.String("Derived from the declaration in " + d.File + ":" + strconv.Itoa(d.Line) + ". Members beside the declared ones are allowed.")
	c.objectSchema(&w, c.root)
	w.Close()
	var out bytes.Buffer
	if err := json.Indent(&out, w.Buf, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// objectSchema writes the members of the schema of object n.
func (c *Codec) objectSchema(w *jsonw.Writer, n *node) {
	w.Key("type")
	w.String("object")
	var req []string
	for _, ch := range n.children {
		if ch.required {
			req = append(req, ch.key)
		}
	}
	if len(req) > 0 {
		w.Key("required")
		w.OpenArray()
		for _, k := range req {
			w.String(k)
		}
		w.CloseArray()
	}
	w.Key("properties")
	w.Open()
	for _, ch := range n.children {
		w.Key(ch.key)
		w.Open()
		switch {
		case ch.mark != nil:
			w.Key("const")
			w.String(ch.mark.value)
			w.Key("description")
			w.String("detection mark")
		case ch.field != nil:
			fieldSchema(w, ch.field)
		default:
			c.objectSchema(w, ch)
		}
		w.Close()
	}
	w.Close()
}

// fieldSchema writes the members of the schema of a field, by kind.
func fieldSchema(w *jsonw.Writer, f *field) {
	w.Key("description")
	w.String(describe(f))
	switch f.kind {
	case mappings.KindText:
		w.Key("type")
		w.String("string")
	case mappings.KindMilli:
		w.Key("type")
		w.String("number")
		w.Key("minimum")
		w.Int(0)
		w.Key("maximum")
		w.Int(maxMillis)
	case mappings.KindWord:
		words := f.table.Words()
		switch {
		case f.concept == canonical.CErrorCode:
			// An open vocabulary: the known words are examples.
			w.Key("type")
			w.String("string")
			w.Key("examples")
			stringArray(w, words)
		case f.table.FoldCase():
			w.Key("type")
			w.String("string")
			quoted := make([]string, len(words))
			for i, s := range words {
				quoted[i] = regexp.QuoteMeta(s)
			}
			w.Key("pattern")
			w.String("^(?i:" + strings.Join(quoted, "|") + ")$")
		default:
			w.Key("enum")
			stringArray(w, words)
		}
	}
	// A raw field holds any JSON value: no constraint.
}

// describe says what a field holds, for the schema.
func describe(f *field) string {
	s := "canonical " + f.concept.String() + " (" + f.kind + ")"
	if f.concept == canonical.CReceiver {
		s += `: an agent id, "*" for every agent, "topic:NAME" for a topic`
	}
	if f.kind == mappings.KindMilli {
		s += ": milliseconds"
	}
	return s
}

func stringArray(w *jsonw.Writer, list []string) {
	w.OpenArray()
	for _, s := range list {
		w.String(s)
	}
	w.CloseArray()
}
