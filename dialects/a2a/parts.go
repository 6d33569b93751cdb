package a2a

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// content is what a list of parts says: the value of its first data part,
// and its text parts joined by newlines.
type content struct {
	data    string // raw JSON; "" when no part holds data
	text    string
	hasText bool
}

// add reads one more list of parts into c, with doc.
func (c *content) add(doc *dialects.Doc, parts gjson.Result) {
	doc.ForEach(parts, func(_, p gjson.Result) bool {
		if d := doc.Get(p, "data"); d.Exists() && c.data == "" {
			c.data = d.Raw
		}
		if t := doc.Get(p, "text"); t.Type == gjson.String {
			if c.hasText {
				c.text += "\n"
			}
			c.text += dialects.Text(t)
			c.hasText = true
		}
		return true
	})
}

// value is the canonical value of c, as arguments or a result: the data
// part's value, else an object {"text": ...} of the text, else "".
func (c content) value() canonical.JSON {
	switch {
	case c.data != "":
		return canonical.JSON(c.data)
	case c.hasText:
		return textObject(c.text)
	}
	return ""
}

// textObject returns {"text": text}.
func textObject(text string) canonical.JSON {
	w := jsonw.New(nil)
	w.Open()
	w.Name("text")
	w.String(text)
	w.Close()
	return canonical.JSON(w.Buf)
}

// checkParts type-checks the list of parts v at path, as the SDK reads it;
// it reads v with doc.
func (c *Codec) checkParts(doc *dialects.Doc, path string, v gjson.Result) error {
	if err := c.Read.Array(path, v); err != nil {
		return err
	}
	var err error
	i := 0
	doc.ForEach(v, func(_, p gjson.Result) bool {
		at := path + "." + strconv.Itoa(i)
		i++
		if err = c.Read.Object(at, p); err != nil {
			return false
		}
		doc.ForEach(p, func(k, m gjson.Result) bool {
			switch k.Str {
			case "text", "raw", "url", "filename", "mediaType":
				_, err = c.Read.StringAt(at, k.Str, m, false)
			case "metadata":
				err = c.Read.Object(at+".metadata", m)
			}
			return err == nil
		})
		return err == nil
	})
	return err
}

// soleData returns the value X of a list of parts that is exactly
// [{"data": X}], the form the encoder writes arguments and results in. It
// reads v with doc.
func soleData(doc *dialects.Doc, v gjson.Result) (canonical.JSON, bool) {
	arr := v.Array()
	if len(arr) != 1 {
		return "", false
	}
	if k, m, ok := sole(doc, arr[0]); ok && k == "data" {
		return canonical.JSON(m.Raw), true
	}
	return "", false
}

// statusParts reads a status message's list of parts in the form the
// encoder writes one: a text part, a data part, or a text part then a data
// part, each holding nothing else. It reads v with doc.
func statusParts(doc *dialects.Doc, v gjson.Result) (c content, ok bool) {
	arr := v.Array()
	if len(arr) == 0 || len(arr) > 2 {
		return c, false
	}
	for i, p := range arr {
		k, m, one := sole(doc, p)
		switch {
		case !one:
			return c, false
		case k == "text" && i == 0 && m.Type == gjson.String && m.Str != "":
			c.text, c.hasText = dialects.Text(m), true
		case k == "data" && i == len(arr)-1:
			c.data = m.Raw
		default:
			return c, false
		}
	}
	return c, true
}

// sole returns the only member of the object p, reading it with doc.
func sole(doc *dialects.Doc, p gjson.Result) (key string, value gjson.Result, ok bool) {
	if !p.IsObject() {
		return "", gjson.Result{}, false
	}
	n := 0
	doc.ForEach(p, func(k, m gjson.Result) bool {
		n++
		key, value = k.Str, m
		return n == 1
	})
	return key, value, n == 1
}

// writeDataParts writes [{"data": raw}].
func writeDataParts(w *jsonw.Writer, raw canonical.JSON) {
	w.OpenArray()
	w.Open()
	w.Name("data")
	w.Raw(string(raw))
	w.Close()
	w.CloseArray()
}

// writeStatusParts writes a status message's parts: its text, then its
// data, each in a part of its own.
func writeStatusParts(w *jsonw.Writer, c content) {
	w.OpenArray()
	if c.hasText {
		w.Open()
		w.Name("text")
		w.String(c.text)
		w.Close()
	}
	if c.data != "" {
		w.Open()
		w.Name("data")
		w.Raw(c.data)
		w.Close()
	}
	w.CloseArray()
}
