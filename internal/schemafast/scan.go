package schemafast

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/mcp-bridge/mcp-bridge/internal/jsonvalid"
)

// kind is the JSON type of a token.
type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// token is one JSON value of a message, or one member name. The tokens of
// a message are in document order: an object's are its members' names
// each followed by its value's tokens, an array's are its items'.
type token struct {
	kind kind
	// esc marks a string whose raw text has escapes; inArena one whose
	// text has been read into the pass's arena, at the pass's
	// unescaped[n].
	esc, inArena bool
	// start and end delimit a value's text in the message: a string's
	// between its quotes, a number's or a literal's, an array's or
	// object's from its opening bracket to past its closing one.
	start, end int32
	// next is the index of the token after this value and all of its
	// contents.
	next int32
	// n is how many members or items an object or array has; for a string
	// in the arena, the index of its place there.
	n int32
}

// maxDepth is how deep arrays and objects may nest in a message the fast
// path reads; a deeper one is left to the library.
const maxDepth = 256

// smallObject is how many members an object may have before its names are
// sorted rather than compared pairwise to find one given twice.
const smallObject = 32

// scan reads msg into p's tokens. It returns Valid when msg is one JSON
// value, in UTF-8, with no member given twice in any object; Invalid when
// it is not; Unknown when msg nests past maxDepth or is too large.
func (p *pass) scan(msg []byte) Verdict {
	if len(msg) >= math.MaxInt32 {
		return Unknown
	}
	p.msg = msg
	p.fail = Invalid
	i, ok := p.scanValue(jsonvalid.SkipSpace(msg, 0), 0)
	if !ok {
		return p.fail
	}
	if jsonvalid.SkipSpace(msg, i) != len(msg) {
		return Invalid
	}
	return Valid
}

// scanValue reads the value at msg[i:], at nesting depth, and returns the
// index past it.
func (p *pass) scanValue(i, depth int) (int, bool) {
	msg := p.msg
	if i >= len(msg) {
		return i, false
	}
	switch c := msg[i]; c {
	case '{':
		return p.scanObject(i, depth+1)
	case '[':
		return p.scanArray(i, depth+1)
	case '"':
		return p.scanStr(i)
	case 't':
		return p.scanLiteral(i, "true", kindTrue)
	case 'f':
		return p.scanLiteral(i, "false", kindFalse)
	case 'n':
		return p.scanLiteral(i, "null", kindNull)
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return p.scanNumber(i)
		}
		return i, false
	}
}

func (p *pass) scanLiteral(i int, word string, k kind) (int, bool) {
	if len(p.msg)-i < len(word) || string(p.msg[i:i+len(word)]) != word {
		return i, false
	}
	p.push(k, false, int32(i), int32(i+len(word)))
	return i + len(word), true
}

// scanNumber reads a number of JSON's grammar.
func (p *pass) scanNumber(i int) (int, bool) {
	end, ok := jsonvalid.Number(p.msg, i)
	if ok {
		p.push(kindNumber, false, int32(i), int32(end))
	}
	return end, ok
}

// push appends a token of kind k whose text is msg[start:end], with
// escapes if esc, and returns its index. An array or object's n and next
// are set when its contents have been read; any other token ends at itself.
// The fields are stored into the slice one by one: a token built whole
// and copied in is read back with one wide load over narrow stores, which
// stalls (store forwarding fails), and scanning is mostly pushing tokens.
func (p *pass) push(k kind, esc bool, start, end int32) int {
	at := len(p.toks)
	p.toks = append(p.toks, token{})
	t := &p.toks[at]
	t.kind, t.esc, t.start, t.end, t.next = k, esc, start, end, int32(at+1)
	return at
}

// scanStr reads a string at msg[i], its opening quote.
func (p *pass) scanStr(i int) (int, bool) {
	end, esc, ok := jsonvalid.String(p.msg, i)
	if ok {
		p.push(kindString, esc, int32(i+1), int32(end-1))
	}
	return end, ok
}

func (p *pass) scanArray(i, depth int) (int, bool) {
	if depth > maxDepth {
		p.fail = Unknown
		return i, false
	}
	msg := p.msg
	at := p.push(kindArray, false, int32(i), 0)
	i = jsonvalid.SkipSpace(msg, i+1)
	n := int32(0)
	if i < len(msg) && msg[i] == ']' {
		i++
	} else {
		for {
			var ok bool
			if i, ok = p.scanValue(i, depth); !ok {
				return i, false
			}
			n++
			i = jsonvalid.SkipSpace(msg, i)
			if i >= len(msg) {
				return i, false
			}
			if msg[i] == ']' {
				i++
				break
			}
			if msg[i] != ',' {
				return i, false
			}
			i = jsonvalid.SkipSpace(msg, i+1)
		}
	}
	p.toks[at].n = n
	p.toks[at].end = int32(i)
	p.toks[at].next = int32(len(p.toks))
	return i, true
}

func (p *pass) scanObject(i, depth int) (int, bool) {
	if depth > maxDepth {
		p.fail = Unknown
		return i, false
	}
	msg := p.msg
	at := p.push(kindObject, false, int32(i), 0)
	i = jsonvalid.SkipSpace(msg, i+1)
	mark := len(p.names)
	if i < len(msg) && msg[i] == '}' {
		i++
	} else {
		for {
			if i >= len(msg) || msg[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = p.scanStr(i); !ok {
				return i, false
			}
			name := p.text(int32(len(p.toks) - 1))
			p.names = append(p.names, name)
			p.prints = append(p.prints, fingerprint(name))
			i = jsonvalid.SkipSpace(msg, i)
			if i >= len(msg) || msg[i] != ':' {
				return i, false
			}
			if i, ok = p.scanValue(jsonvalid.SkipSpace(msg, i+1), depth); !ok {
				return i, false
			}
			i = jsonvalid.SkipSpace(msg, i)
			if i >= len(msg) {
				return i, false
			}
			if msg[i] == '}' {
				i++
				break
			}
			if msg[i] != ',' {
				return i, false
			}
			i = jsonvalid.SkipSpace(msg, i+1)
		}
	}
	n := len(p.names) - mark
	if p.repeats(mark) {
		return i, false
	}
	p.names, p.prints = p.names[:mark], p.prints[:mark]
	p.toks[at].n = int32(n)
	p.toks[at].end = int32(i)
	p.toks[at].next = int32(len(p.toks))
	return i, true
}

// repeats reports whether a name is given twice among the names from mark
// on, those of one object. Names whose fingerprints differ differ.
func (p *pass) repeats(mark int) bool {
	names, prints := p.names[mark:], p.prints[mark:]
	if len(names) <= smallObject {
		for i := 1; i < len(names); i++ {
			for j, fp := range prints[:i] {
				if fp == prints[i] && bytes.Equal(names[i], names[j]) {
					return true
				}
			}
		}
		return false
	}
	p.sorted = p.sorted[:0]
	for i, fp := range prints {
		p.sorted = append(p.sorted, printAt{fp, i})
	}
	slices.SortFunc(p.sorted, func(a, b printAt) int { return cmp.Compare(a.fp, b.fp) })
	for i := 1; i < len(p.sorted); i++ {
		for j := i - 1; j >= 0 && p.sorted[j].fp == p.sorted[i].fp; j-- {
			if bytes.Equal(names[p.sorted[i].at], names[p.sorted[j].at]) {
				return true
			}
		}
	}
	return false
}

// printAt is a member name's fingerprint and its place among its object's
// names.
type printAt struct {
	fp uint64
	at int
}

// fingerprint returns a number that is the same for equal names: their
// length and their first and last eight bytes mixed.
func fingerprint(name []byte) uint64 {
	n := len(name)
	var head, tail uint64
	switch {
	case n >= 8:
		head = binary.LittleEndian.Uint64(name)
		tail = binary.LittleEndian.Uint64(name[n-8:])
	default:
		for i, c := range name {
			head |= uint64(c) << (8 * i)
		}
	}
	return (head^bits.RotateLeft64(tail, 31))*0x9e3779b97f4a7c15 ^ uint64(n)
}

// text returns the text of the string token at i, its escapes read.
func (p *pass) text(i int32) []byte {
	t := &p.toks[i]
	if !t.esc {
		return p.msg[t.start:t.end]
	}
	return p.escaped(t)
}

// escaped returns the text of t, a string token with escapes, reading it
// into the arena the first time.
func (p *pass) escaped(t *token) []byte {
	if !t.inArena {
		start := len(p.arena)
		p.arena = unescape(p.arena, p.msg[t.start:t.end])
		t.inArena, t.n = true, int32(len(p.unescaped))
		p.unescaped = append(p.unescaped, [2]int32{int32(start), int32(len(p.arena))})
	}
	at := p.unescaped[t.n]
	return p.arena[at[0]:at[1]]
}
