package declared

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// word returns the word to write for value, a canonical value of f's
// table: the source's own spelling or the table's word (a nearest word is
// reported as approximated); with neither, the stand-in fallback picks,
// reported as approximated too.
func (e *encoder) word(f *field, value string) string {
	if w, ok := dialects.Word(e.ctx, e.env, e.c.Name(), f.table, value, f.concept); ok {
		return w
	}
	w := fallback(f.table, value, e.env.Act)
	dialects.Approximate(e.ctx, f.concept, e.c.Name(), value, w)
	return w
}

// fallback returns the word a table offers for value when it has neither a
// word nor a nearest word for it: for a priority, the word of the closest
// level (the more urgent one on a tie); for an outcome or an error code,
// the word of the default fill for act; else the table's first word.
func fallback(t *mappings.Table, value string, act canonical.Act) string {
	if t.Kind == canonical.KindPriority {
		p, _ := canonical.ParsePriority(value)
		best, dist := "", 99
		for _, q := range canonical.Priorities {
			w, _, ok := t.Word(q.String())
			if d := abs(q.Level() - p.Level()); ok && d <= dist {
				best, dist = w, d
			}
		}
		if best != "" {
			return best
		}
	}
	if w, ok := defaultWord(t, act); ok {
		return w
	}
	return t.Words()[0]
}

// defaultWord returns the word written for a required word concept an
// envelope from another dialect lacks: priority normal; outcome failure
// for error acts and success for others; error code the act's default
// (canonical.DefaultErrorCode). ok is false when the table has no word for
// it, exact or nearest.
func defaultWord(t *mappings.Table, act canonical.Act) (string, bool) {
	var value string
	switch t.Kind {
	case canonical.KindPriority:
		value = canonical.PriorityNormal.String()
	case canonical.KindOutcome:
		value = string(canonical.OutcomeSuccess)
		if act.IsError() {
			value = string(canonical.OutcomeFailure)
		}
	case canonical.KindError:
		value = string(canonical.DefaultErrorCode(act))
	}
	w, _, ok := t.Word(value)
	return w, ok
}

// fillWord returns the stand-in word for a required word concept: the
// default word, else the table's first word.
func fillWord(t *mappings.Table, act canonical.Act) string {
	if w, ok := defaultWord(t, act); ok {
		return w
	}
	return t.Words()[0]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
