package dialects

import (
	"strconv"
	"sync"
	"unsafe"

	"github.com/mcp-bridge/mcp-bridge/internal/schemafast"
	"github.com/tidwall/gjson"
)

// Doc is a message read once for both a codec's Validate rules and its
// decoder: its root, and, when the schema's fast path vouched for it, the
// values the fast path read (schemafast.Doc). Its ForEach and Get answer
// exactly as gjson's Result.ForEach and Result.Get do, from those values
// where they can, so that no member is parsed, or skipped over, again;
// gjson answers the rest (a Doc without the fast path's values, a Result
// that is not the message's own, a path that is more than a member name).
// FuzzDoc holds the two to the same answers. A nil Doc is gjson alone.
//
// The Results a Doc gives share the message's memory, as the root does;
// none shares the Doc's own, so they outlive Release. The Doc itself must
// not be used once released.
type Doc struct {
	base string // the message, as the string the Results are slices of
	root gjson.Result
	fast *schemafast.Doc
	// rules are the Rules Base.StartDoc hands out with a vouched message.
	rules Rules
	live  bool
}

// docs are the Docs released, for the next message: most messages make
// one.
var docs = sync.Pool{New: func() any { return new(Doc) }}

// newDoc returns msg, a JSON object in UTF-8, read by the fast path as
// fast (nil: not read).
func newDoc(msg []byte, fast *schemafast.Doc) *Doc {
	base := unsafe.String(unsafe.SliceData(msg), len(msg))
	d := docs.Get().(*Doc)
	*d = Doc{base: base, root: gjson.Parse(base), fast: fast, live: true}
	return d
}

// Root returns the message's root value.
func (d *Doc) Root() gjson.Result { return d.root }

// Release gives back the Doc and the fast path's values for the next
// message; a Doc is released once (a nil Doc may be released). The
// second release of a Doc no one took again does nothing, but once taken
// again it is someone else's.
func (d *Doc) Release() {
	if d == nil || !d.live {
		return
	}
	d.fast.Release()
	*d = Doc{}
	docs.Put(d)
}

// ForEach is v.ForEach(fn).
func (d *Doc) ForEach(v gjson.Result, fn func(key, value gjson.Result) bool) {
	at, rawAt, ok := d.locate(v)
	if !ok {
		v.ForEach(fn)
		return
	}
	f := d.fast
	var key gjson.Result
	if f.Kind(at) == schemafast.Array {
		key.Type, key.Num = gjson.Number, -1
	}
	f.Each(at, func(name, value schemafast.Value) bool {
		if name >= 0 {
			key = d.result(name, rawAt, v.Index)
		} else {
			key.Num++
		}
		return fn(key, d.result(value, rawAt, v.Index))
	})
}

// Get is v.Get(key).
func (d *Doc) Get(v gjson.Result, key string) gjson.Result {
	at, rawAt, ok := d.locate(v)
	if !ok || d.fast.Kind(at) != schemafast.Object || !plainPath(key) {
		return v.Get(key)
	}
	found := gjson.Result{Index: v.Index} // gjson adds v's Index to a miss too
	d.fast.Each(at, func(name, value schemafast.Value) bool {
		if string(d.fast.Text(name)) != key {
			return true
		}
		found = d.result(value, rawAt, v.Index)
		return false
	})
	return found
}

// locate returns the fast path's value of v, an array or object whose text
// is the message's own, and where v's text begins in the message.
func (d *Doc) locate(v gjson.Result) (at schemafast.Value, rawAt int, ok bool) {
	if d == nil || d.fast == nil || v.Type != gjson.JSON || v.Indexes != nil || len(v.Raw) == 0 {
		return 0, 0, false
	}
	rawAt = int(uintptr(unsafe.Pointer(unsafe.StringData(v.Raw))) - uintptr(unsafe.Pointer(unsafe.StringData(d.base))))
	if rawAt < 0 || rawAt > len(d.base)-len(v.Raw) {
		return 0, 0, false
	}
	// gjson reads from the first byte past the blanks before the value.
	off := rawAt
	for off < len(d.base) && d.base[off] <= ' ' {
		off++
	}
	if at, ok = d.fast.ValueAt(off); !ok {
		return 0, 0, false
	}
	if k := d.fast.Kind(at); k != schemafast.Object && k != schemafast.Array {
		return 0, 0, false
	}
	return at, rawAt, true
}

// result returns the Result gjson gives for the value at, read from the
// text of a Result that begins at rawAt with Index index: its Index is its
// place in that text plus index.
func (d *Doc) result(at schemafast.Value, rawAt, index int) gjson.Result {
	f := d.fast
	begin, end := f.Span(at)
	r := gjson.Result{Raw: d.base[begin:end], Index: begin - rawAt + index}
	switch f.Kind(at) {
	case schemafast.Object, schemafast.Array:
		r.Type = gjson.JSON
	case schemafast.String:
		r.Type = gjson.String
		if f.Escaped(at) {
			r.Str = gjson.Parse(r.Raw).Str // gjson's own unescaping
		} else {
			r.Str = r.Raw[1 : len(r.Raw)-1]
		}
	case schemafast.Number:
		r.Type = gjson.Number
		r.Num, _ = strconv.ParseFloat(r.Raw, 64)
	case schemafast.True:
		r.Type = gjson.True
	case schemafast.False:
		r.Type = gjson.False
	}
	return r
}

// plainPath reports whether path, to gjson, is just a member's name: no
// separator, wildcard, escape or modifier.
func plainPath(path string) bool {
	if path == "" {
		return false
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
