// Package located is the error of a problem in a file, located by file,
// line and key, as the config and mapping loaders report them: every
// problem found, at once.
package located

import (
	"fmt"
	"sort"
	"strings"
)

// Error is a problem in a file, located by file and line.
type Error struct {
	File string
	Line int
	// Key is the key path, as in agents[0].url; "" for the file as a
	// whole.
	Key string
	Msg string
}

func (e *Error) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
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

// Sort orders es by file, then line; the problems of one line keep their
// order.
func (es Errors) Sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].File != es[j].File {
			return es[i].File < es[j].File
		}
		return es[i].Line < es[j].Line
	})
}
