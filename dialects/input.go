package dialects

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/internal/jsonvalid"
	"github.com/tidwall/gjson"
)

// CheckInput returns nil when msg is JSON text in UTF-8, the check every
// decoder and validator makes first. Otherwise it returns the one problem,
// as an *Error of dialect: a syntax error with the byte offset (from 0) where
// it was found ("not valid JSON: invalid character 'x' after object key at
// byte 17"), or, for bytes that are not UTF-8, the JSON path of the string
// or member name holding them and the offset of the first such byte. JSON
// readers replace such bytes (gjson with U+FFFD): a message carrying them
// would reach its receiver changed.
func CheckInput(dialect string, msg []byte) *Error {
	if jsonvalid.Valid(msg) {
		return nil // what gjson and utf8 below would find (jsonvalid.FuzzValid), sooner
	}
	if err := checkSyntax(dialect, msg); err != nil {
		return err
	}
	if utf8.Valid(msg) {
		return nil
	}
	at := invalidUTF8(msg)
	path, name := stringAt(gjson.ParseBytes(msg), "", at)
	what := "not valid UTF-8"
	if name {
		what = "a member name is not valid UTF-8"
	}
	return &Error{Dialect: dialect, Path: path, Problem: fmt.Sprintf("%s: 0x%02x at byte %d", what, msg[at], at)}
}

// checkSyntax returns nil when msg is JSON text, else the error with the
// offset of the syntax error.
func checkSyntax(dialect string, msg []byte) *Error {
	if gjson.ValidBytes(msg) {
		return nil
	}
	return &Error{Dialect: dialect, Problem: syntaxProblem(msg)}
}

// syntaxProblem words why msg, which gjson refuses, is not JSON, with the
// offset encoding/json finds the error at.
func syntaxProblem(msg []byte) string {
	var discard struct{}
	err := json.Unmarshal(msg, &discard)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		// The readers disagree (encoding/json takes it): no offset to give.
		return "not valid JSON"
	}
	at, why := se.Offset, se.Error()
	if at > 0 && why != "unexpected end of JSON input" {
		// Offset counts the bytes read, the offending one included.
		at--
	}
	return "not valid JSON: " + why + " at byte " + strconv.FormatInt(at, 10)
}

// invalidUTF8 returns the offset of the first byte of msg that does not
// start a valid UTF-8 sequence; msg is known to hold one.
func invalidUTF8(msg []byte) int {
	for i := 0; i < len(msg); {
		if msg[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(msg[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(msg)
}

// stringAt returns the dotted path of the string value of v (found at
// path) that covers offset at in the message, or of the object whose member
// name covers it (name is then true).
func stringAt(v gjson.Result, path string, at int) (p string, name bool) {
	if !v.IsObject() && !v.IsArray() {
		return path, false
	}
	p = path
	i := 0
	v.ForEach(func(k, m gjson.Result) bool {
		key := strconv.Itoa(i)
		if k.Type == gjson.String {
			key = Key(k)
			if at >= k.Index && at < k.Index+len(k.Raw) {
				name = true
				return false
			}
		}
		i++
		if at >= m.Index && at < m.Index+len(m.Raw) {
			p, name = stringAt(m, Join(path, key), at)
			return false
		}
		return true
	})
	return p, name
}
