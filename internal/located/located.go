// Package located is the error of a problem in a file, located by file,
// line, column and key, as the file formats' decoders report them: every
// problem found, at once.
package located

import (
	"fmt"
	"sort"
	"strings"
)

// Error is a problem in a file, located by file, line and column.
type Error struct {
	File string
	Line int
	// Column is the column of the line, from 1; 0 when unknown.
	Column int
	// Columned makes the error's text say the column: file:line:col.
	Columned bool
	// Key is the key path, as in agents[0].url; "" for the file as a
	// whole.
	Key string
	Msg string
}

func (e *Error) Error() string {
	at := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Columned && e.Column > 0 {
		at += fmt.Sprintf(":%d", e.Column)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", at, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", at, e.Msg)
}

// Errors are problems found in files, one per line of Error.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Sort orders es by file, line, then column; the problems of one place
// keep their order.
func (es Errors) Sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].File != es[j].File {
			return es[i].File < es[j].File
		}
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Column < es[j].Column
	})
}
