package schemafast

import (
	"fmt"
	"regexp"
	"testing"
)

// dfaPatterns are the built-in dialects' patterns and others that try the
// automaton's edges: both ends of the text, alternation across an anchor,
// case folding, any character with and without newlines.
var dfaPatterns = []string{
	`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}([.,]\d+)?(Z|[+-]\d{2}:\d{2})?$`,
	`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$`,
	`^\d+\.\d+$`, `^\d+\.\d+\.\d+$`, `^[A-Z0-9_-]+$`,
	`^P(\d+(\.\d+)?D)?(T(\d+(\.\d+)?[HMS])+)?$`,
	`abc`, `a+b*$`, `^$`, `$`, `^`, `x|^y`, `(?i)ab`, `.`, `a.c`, `(?s)a.c`, `a{2,3}`, `[^a-c]x`, `\Aa\z`,
}

var dfaTexts = []string{
	"", "2026-11-21T10:00:00Z", "2026-11-21 10:00", "2026-11-21T10:00:00.5+01:00", "1.2", "1.2.3", "ABC_-", "abc",
	"xabcx", "aab", "ab\n", "y", "zy", "AB", "a\nc", "P1DT2H", "PT", "aa", "aaaa", "dx", "ax", "é", "aé", "é2026",
}

// TestDFA: where the automaton answers, it answers as regexp does; it
// answers every ASCII text; it is made for each pattern above.
func TestDFA(t *testing.T) {
	for _, p := range dfaPatterns {
		d := newDFA(p)
		if d == nil {
			t.Errorf("no automaton for %q", p)
			continue
		}
		re := regexp.MustCompile(p)
		for _, s := range dfaTexts {
			if msg := sameAsRegexp(d, re, s); msg != "" {
				t.Error(msg)
			}
		}
	}
	// What it does not take: line ends, word boundaries, and automata past
	// the bound.
	for _, p := range []string{`(?m)^a$`, `\bword\b`, `\Bx`, `(a|b)*a(a|b){9}`} {
		if newDFA(p) != nil {
			t.Errorf("an automaton for %q", p)
		}
	}
}

// TestDFASmall: the built-in dialects' timestamp patterns make automata
// of a few byte classes, whose tables fit a few cache lines.
func TestDFASmall(t *testing.T) {
	for _, p := range dfaPatterns[:2] {
		d := newDFA(p)
		if d.classes > 12 || len(d.next) > 512 {
			t.Errorf("%q: %d classes, %d bytes of next states", p, d.classes, len(d.next))
		}
		t.Logf("%q: %d states, %d classes", p, len(d.flags), d.classes)
	}
}

func ascii(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzDFA holds the automaton to regexp: for any pattern regexp compiles
// and the automaton is made for, and any text, they agree wherever the
// automaton answers, and it answers every ASCII text.
func FuzzDFA(f *testing.F) {
	for _, p := range dfaPatterns {
		for _, s := range dfaTexts {
			f.Add(p, s)
		}
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		re, err := regexp.Compile(p)
		if err != nil {
			return
		}
		if d := newDFA(re.String()); d != nil {
			if msg := sameAsRegexp(d, re, s); msg != "" {
				t.Fatal(msg)
			}
		}
	})
}

// sameAsRegexp says how d's answer on s differs from re's: it must answer
// an ASCII text, and where it answers it must agree.
func sameAsRegexp(d *dfa, re *regexp.Regexp, s string) string {
	got, known := d.match([]byte(s))
	switch {
	case !known && ascii(s):
		return fmt.Sprintf("%q on %q: no answer for an ASCII text", re, s)
	case known && got != re.MatchString(s):
		return fmt.Sprintf("%q on %q: %v, regexp says %v", re, s, got, !got)
	}
	return ""
}

func BenchmarkPattern(b *testing.B) {
	p := dfaPatterns[0]
	text := []byte("2026-11-21T10:00:00Z")
	re := regexp.MustCompile(p)
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			re.Match(text)
		}
	})
	b.Run("dfa", func(b *testing.B) {
		d := newDFA(p)
		for b.Loop() {
			d.match(text)
		}
	})
}

// BenchmarkNewDFA builds automata: a timestamp's, and one near the bound
// on states.
func BenchmarkNewDFA(b *testing.B) {
	for _, p := range []string{dfaPatterns[0], `(a|b)*a(a|b){5}`} {
		b.Run(fmt.Sprintf("%d", len(p)), func(b *testing.B) {
			for b.Loop() {
				if newDFA(p) == nil {
					b.Fatal("no automaton")
				}
			}
		})
	}
}
