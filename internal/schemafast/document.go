package schemafast

import "sort"

// Doc is a message Check found Valid, as the check read it: its values in
// document order, each with its place in the message. Reading a value's
// members from it costs no parsing, where a JSON library would scan the
// text again (and scan each nested value once more to skip it). A Doc is
// for one goroutine, and must not be used after Release.
type Doc struct {
	p *pass
	v *Validator
}

// Release gives the Doc's memory back for the next check. A nil Doc may be
// released.
func (d *Doc) Release() {
	if d == nil || d.p == nil {
		return
	}
	p, v := d.p, d.v
	d.p = nil // the Doc lives in the pass: cleared before the pass is given back
	v.done(p)
}

// Kind is the JSON type of a value of a Doc.
type Kind uint8

// The kinds of value.
const (
	Null   = Kind(kindNull)
	False  = Kind(kindFalse)
	True   = Kind(kindTrue)
	Number = Kind(kindNumber)
	String = Kind(kindString)
	Array  = Kind(kindArray)
	Object = Kind(kindObject)
)

// Value is a value of a Doc: an index into its values in document order.
// Member names are values too: the name of an object's member is the
// string just before the member's value.
type Value int32

// ValueAt returns the value whose text begins at byte off of the message
// (a string's at its opening quote), or false when no value begins there.
func (d *Doc) ValueAt(off int) (Value, bool) {
	toks := d.p.toks
	i := sort.Search(len(toks), func(i int) bool { return begin(&toks[i]) >= off })
	if i == len(toks) || begin(&toks[i]) != off {
		return 0, false
	}
	return Value(i), true
}

// begin returns the offset of the first byte of t's text in the message.
func begin(t *token) int {
	if t.kind == kindString {
		return int(t.start) - 1
	}
	return int(t.start)
}

// Kind returns v's JSON type.
func (d *Doc) Kind(v Value) Kind { return Kind(d.p.toks[v].kind) }

// Span returns where v's text is in the message: [begin, end), a string's
// with its quotes.
func (d *Doc) Span(v Value) (begin, end int) {
	t := &d.p.toks[v]
	if t.kind == kindString {
		return int(t.start) - 1, int(t.end) + 1
	}
	return int(t.start), int(t.end)
}

// Escaped reports whether v, a string, has escapes in its text.
func (d *Doc) Escaped(v Value) bool { return d.p.toks[v].esc }

// Text returns the text of v, a string, its escapes read. It is valid
// until the Doc is released: keep a copy.
func (d *Doc) Text(v Value) []byte { return d.p.text(int32(v)) }

// Each calls fn with each member of v, an object, in order (name and
// value), or each item of v, an array (name -1), until fn returns false.
func (d *Doc) Each(v Value, fn func(name, value Value) bool) {
	toks := d.p.toks
	obj := toks[v].kind == kindObject
	end := toks[v].next
	for k := int32(v) + 1; k < end; {
		name := Value(-1)
		if obj {
			name, k = Value(k), k+1
		}
		if !fn(name, Value(k)) {
			return
		}
		k = toks[k].next
	}
}
