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
	w.Name("$schema")
	w.String("https://json-schema.org/draft/2020-12/schema")
	w.Name("$id")
	w.String("urn:mcp-bridge:schema:" + d.Name)
	w.Name("title")
	w.String(d.Name + " message (declared dialect)")
	w.Name("description")
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
	w.Name("type")
	w.String("object")
	var req []string
	for _, ch := range n.children {
		if ch.required {
			req = append(req, ch.key)
		}
	}
	if len(req) > 0 {
		w.Name("required")
		w.OpenArray()
		for _, k := range req {
			w.String(k)
		}
		w.CloseArray()
	}
	w.Name("properties")
	w.Open()
	for _, ch := range n.children {
		w.Key(ch.key)
		w.Open()
		switch {
		case ch.mark != nil:
			w.Name("const")
			w.String(ch.mark.value)
			w.Name("description")
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
	w.Name("description")
	w.String(describe(f))
	switch f.kind {
	case mappings.KindText:
		w.Name("type")
		w.String("string")
	case mappings.KindMilli:
		w.Name("type")
		w.String("number")
		w.Name("minimum")
		w.Int(0)
		w.Name("maximum")
		w.Int(maxMillis)
	case mappings.KindWord:
		words := f.table.Words()
		switch {
		case f.concept == canonical.CErrorCode:
			// An open vocabulary: the known words are examples.
			w.Name("type")
			w.String("string")
			w.Name("examples")
			stringArray(w, words)
		case f.table.FoldCase():
			w.Name("type")
			w.String("string")
			quoted := make([]string, len(words))
			for i, s := range words {
				quoted[i] = regexp.QuoteMeta(s)
			}
			w.Name("pattern")
			w.String("^(?i:" + strings.Join(quoted, "|") + ")$")
		default:
			w.Name("enum")
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
