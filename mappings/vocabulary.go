package mappings

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Table maps one dialect's words for one vocabulary kind onto canonical
// values and back.
type Table struct {
	// Kind is the vocabulary kind (canonical.KindAct, ...).
	Kind     string
	foldCase bool
	decode   map[string]string // word -> canonical
	folded   map[string]string // lower-cased word -> canonical
	encode   map[string]string // canonical -> preferred word
	nearest  map[string]string // canonical without a word -> word written instead
	order    []string          // words in file order, for display

	// The same lookups as decode and encode+nearest, as short lists
	// scanned in order comparing a signature first (the length and three
	// bytes of the key), which beat a map's hashing at a dozen entries:
	// set by index once the table is loaded, when it is small; nil lists
	// leave the lookups to the maps.
	decodeList []pair
	encodeList []pair
}

// pair is an entry of a Table's lists: a key and its value; for the
// encode list, exact is false for a nearest word. sig is the key's
// signature, compared before the key.
type pair struct {
	sig        uint32
	exact      bool
	key, value string
}

// signature packs a key's length and its first, middle and last bytes:
// keys that differ there differ without a string comparison.
func signature(k string) uint32 {
	n := len(k)
	if n == 0 {
		return 0
	}
	return uint32(n)&0xff | uint32(k[0])<<8 | uint32(k[n/2])<<16 | uint32(k[n-1])<<24
}

// maxList is the most entries a Table keeps as a list.
const maxList = 24

// index sets t's lists from its maps, or clears them when t is too big.
func (t *Table) index() {
	t.decodeList, t.encodeList = nil, nil
	if len(t.decode) > maxList || len(t.encode)+len(t.nearest) > maxList {
		return
	}
	t.decodeList = make([]pair, 0, len(t.decode))
	for _, w := range sortedKeys(t.decode) {
		t.decodeList = append(t.decodeList, pair{sig: signature(w), key: w, value: t.decode[w]})
	}
	t.encodeList = make([]pair, 0, len(t.encode)+len(t.nearest))
	for _, c := range sortedKeys(t.encode) {
		t.encodeList = append(t.encodeList, pair{sig: signature(c), key: c, value: t.encode[c], exact: true})
	}
	for _, c := range sortedKeys(t.nearest) {
		if _, ok := t.encode[c]; !ok {
			t.encodeList = append(t.encodeList, pair{sig: signature(c), key: c, value: t.nearest[c]})
		}
	}
}

// find returns the entry of list whose key is k.
func find(list []pair, k string) (*pair, bool) {
	sig := signature(k)
	for i := range list {
		if p := &list[i]; p.sig == sig && p.key == k {
			return p, true
		}
	}
	return nil, false
}

func newTable(kind string) *Table {
	return &Table{
		Kind:    kind,
		decode:  map[string]string{},
		folded:  map[string]string{},
		encode:  map[string]string{},
		nearest: map[string]string{},
	}
}

// reindex sets the word written for each canonical value: preferred's word
// where it names one, else the word written so far if it still means the
// value, else the first word, in declaration order, that means it.
func (t *Table) reindex(preferred map[string]string) {
	old := t.encode
	t.encode = make(map[string]string, len(old))
	for c, w := range preferred {
		t.encode[c] = w
	}
	for c, w := range old {
		if _, set := t.encode[c]; !set && t.decode[w] == c {
			t.encode[c] = w
		}
	}
	for _, w := range t.order {
		c := t.decode[w]
		if _, set := t.encode[c]; !set {
			t.encode[c] = w
		}
	}
}

// Canonical returns the canonical value a dialect word means.
func (t *Table) Canonical(word string) (string, bool) {
	if t == nil {
		return "", false
	}
	if t.decodeList != nil {
		if p, ok := find(t.decodeList, word); ok {
			return p.value, true
		}
	} else if c, ok := t.decode[word]; ok {
		return c, true
	}
	if t.foldCase {
		c, ok := t.folded[strings.ToLower(word)]
		return c, ok
	}
	return "", false
}

// Word returns the word to write for a canonical value. exact is false when
// the dialect has no word for it and a nearest word stands in; ok is false
// when there is neither.
func (t *Table) Word(canonical string) (word string, exact, ok bool) {
	if t == nil {
		return "", false, false
	}
	if t.encodeList != nil {
		if p, ok := find(t.encodeList, canonical); ok {
			return p.value, p.exact, true
		}
		return "", false, false
	}
	if w, ok := t.encode[canonical]; ok {
		return w, true, true
	}
	if w, ok := t.nearest[canonical]; ok {
		return w, false, true
	}
	return "", false, false
}

// Words returns the table's words in the order they were declared.
func (t *Table) Words() []string {
	if t == nil {
		return nil
	}
	return append([]string(nil), t.order...)
}

// Nearest returns the canonical values that have no word of their own,
// mapped to the word written in their place.
func (t *Table) Nearest() map[string]string {
	out := make(map[string]string, len(t.nearest))
	for k, v := range t.nearest {
		out[k] = v
	}
	return out
}

// Vocabulary is one dialect's set of tables.
type Vocabulary struct {
	Dialect string
	tables  map[string]*Table
}

// Table returns the table of a vocabulary kind; it is empty, never nil, when
// the dialect declares none.
func (v *Vocabulary) Table(kind string) *Table {
	if v != nil {
		if t, ok := v.tables[kind]; ok {
			return t
		}
	}
	return newTable(kind)
}

// Kinds returns the kinds the vocabulary has tables for.
func (v *Vocabulary) Kinds() []string {
	var out []string
	for _, k := range kindOrder {
		if _, ok := v.tables[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// Set is the effective mapping: the defaults and every file layered over
// them.
type Set struct {
	vocab      map[string]*Vocabulary
	aliases    map[string]*Aliases
	operations []Operation
	rewrites   []Rewrite
	acts       map[string]map[canonical.Act]ActPolicy
	decls      map[string]*Declaration
	files      []string
}

// Files returns the names of the files layered into the set, in order.
func (s *Set) Files() []string { return s.files }

// Vocabulary returns a dialect's vocabulary (empty if the set has none).
func (s *Set) Vocabulary(dialect string) *Vocabulary {
	if v, ok := s.vocab[dialect]; ok {
		return v
	}
	return &Vocabulary{Dialect: dialect, tables: map[string]*Table{}}
}

// HasAct reports whether dialect has a word of its own for act, not a
// nearest stand-in.
func (s *Set) HasAct(dialect string, act canonical.Act) bool {
	_, exact, ok := s.Vocabulary(dialect).Table(canonical.KindAct).Word(string(act))
	return ok && exact
}

// Dialects returns the names of the dialects the set has vocabularies for.
func (s *Set) Dialects() []string { return sortedKeys(s.vocab) }

// clone returns a copy of t that can be changed without changing t.
func (t *Table) clone() *Table {
	c := newTable(t.Kind)
	c.foldCase = t.foldCase
	for k, v := range t.decode {
		c.decode[k] = v
	}
	for k, v := range t.folded {
		c.folded[k] = v
	}
	for k, v := range t.encode {
		c.encode[k] = v
	}
	for k, v := range t.nearest {
		c.nearest[k] = v
	}
	c.order = append([]string(nil), t.order...)
	return c
}

// FoldCase reports whether the table's words match whatever their case.
func (t *Table) FoldCase() bool { return t != nil && t.foldCase }
