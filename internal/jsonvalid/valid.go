// Package jsonvalid tells whether bytes are one JSON value in UTF-8. It is
// the fast path in front of gjson.ValidBytes and utf8.Valid (DESIGN.md
// section 9): strings, most of a message, are read eight bytes at a time,
// and nothing is built. It answers true only where those two both would
// (FuzzValid holds it to them); false sends the caller to them, for the
// answer and for the error to report. Its pieces of JSON's grammar
// (String, Number, SkipSpace) are also those of the schema's fast path
// (internal/schemafast), which reads the same grammar into tokens.
package jsonvalid

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// maxDepth is how deep arrays and objects may nest in a value Valid
// accepts; a deeper one is left to the library.
const maxDepth = 512

// Valid reports whether b is one JSON value in UTF-8, with only JSON's
// whitespace around it. False also for a value nested past maxDepth, which
// may be JSON.
func Valid(b []byte) bool {
	i, ok := value(b, SkipSpace(b, 0), 0)
	return ok && SkipSpace(b, i) == len(b)
}

// SkipSpace returns the index of the first byte of b from i on that is not
// JSON's whitespace (space, tab, line feed, carriage return), or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value reads the value at b[i:], at nesting depth, and returns the index
// past it.
func value(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; c {
	case '{':
		return object(b, i, depth+1)
	case '[':
		return array(b, i, depth+1)
	case '"':
		i, _, ok := String(b, i)
		return i, ok
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return Number(b, i)
		}
		return i, false
	}
}

func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// Number reads the number at b[i:], of JSON's grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and returns the index
// past it; ok is false when b[i:] does not start with one.
func Number(b []byte, i int) (end int, ok bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// String reads the string whose opening quote is at b[i], and returns the
// index past its closing quote and whether it holds escapes; ok is false
// when it is not a string of JSON's grammar in UTF-8.
func String(b []byte, i int) (end int, escaped, ok bool) {
	for i++; i < len(b); {
		// Eight plain bytes at a time, then straight to the first byte
		// of a word that is not plain.
		for i+8 <= len(b) {
			m := jsonw.NotPlain(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		if i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return i, escaped, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, escaped, false
				}
				i += 6
			default:
				return i, escaped, false
			}
		case c < 0x20:
			return i, escaped, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, escaped, false
			}
			i += size
		}
	}
	return i, escaped, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func array(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = value(b, i, depth); !ok {
			return i, false
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return i, false
		}
	}
}

func object(b []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		var ok bool
		if i, _, ok = String(b, i); !ok {
			return i, false
		}
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = value(b, SkipSpace(b, i+1), depth); !ok {
			return i, false
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return i, false
		}
	}
}
