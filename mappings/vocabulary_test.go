package mappings

import (
	"strings"
	"testing"
)

// defaultTables returns every table of the default mappings, and one a
// file layers over a default (new words, a nearest word, fold_case).
func defaultTables(tb testing.TB) []*Table {
	tb.Helper()
	s := testDefaults(tb)
	over := "dialect: swarm\nvocabulary:\n  act:\n    words: {ask: request, tell: event}\n    nearest: {needs-input: tell, refuse: ask}\n    fold_case: true\n"
	if err := s.Add("over.yaml", []byte(over)); err != nil {
		tb.Fatal(err)
	}
	var out []*Table
	for _, d := range s.Dialects() {
		v := s.Vocabulary(d)
		for _, k := range v.Kinds() {
			out = append(out, v.Table(k))
		}
	}
	if len(out) == 0 {
		tb.Fatal("no tables")
	}
	return out
}

// checkLists fails unless t's lists answer word as its maps do.
func checkLists(t *testing.T, tb *Table, word string) {
	t.Helper()
	maps := *tb
	maps.decodeList, maps.encodeList = nil, nil
	c1, ok1 := tb.Canonical(word)
	c2, ok2 := maps.Canonical(word)
	if c1 != c2 || ok1 != ok2 {
		t.Errorf("%s: Canonical(%q) = %q, %v from the list, %q, %v from the map", tb.Kind, word, c1, ok1, c2, ok2)
	}
	w1, e1, ok1 := tb.Word(word)
	w2, e2, ok2 := maps.Word(word)
	if w1 != w2 || e1 != e2 || ok1 != ok2 {
		t.Errorf("%s: Word(%q) = %q, %v, %v from the list, %q, %v, %v from the map", tb.Kind, word, w1, e1, ok1, w2, e2, ok2)
	}
}

// TestTableLists checks the lists against the maps for every word and
// canonical value of every default table.
func TestTableLists(t *testing.T) {
	for _, tb := range defaultTables(t) {
		if tb.encodeList == nil || tb.decodeList == nil {
			t.Errorf("%s table of %d words has no lists", tb.Kind, len(tb.decode))
		}
		var keys []string
		for w, c := range tb.decode {
			keys = append(keys, w, c, strings.ToLower(w), strings.ToUpper(w), w+"x")
		}
		for c, w := range tb.nearest {
			keys = append(keys, c, w)
		}
		for c := range tb.encode {
			keys = append(keys, c)
		}
		keys = append(keys, "", "nothing", "request", "REQUEST")
		for _, k := range keys {
			checkLists(t, tb, k)
		}
	}
}

// FuzzTableLists feeds the lists and the maps of every default table the
// same word.
func FuzzTableLists(f *testing.F) {
	for _, s := range []string{"", "request", "REQUEST", "inform", "ask", "high", "4", "timeout"} {
		f.Add(s)
	}
	tables := defaultTables(f)
	f.Fuzz(func(t *testing.T, word string) {
		for _, tb := range tables {
			checkLists(t, tb, word)
		}
	})
}
