package config

import (
	"fmt"
	"strings"
)

// Error is a problem in a config file, located by file and line.
type Error struct {
	File string
	Line int
	Key  string // the key path, as in agents[0].url; "" for the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Errors are all the problems found in a config file, in line order.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}
