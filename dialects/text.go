package dialects

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// Text returns the text of v, a JSON string value or member name, as
// standard JSON readers read it. gjson reads a UTF-16 surrogate escape
// together with the escape after it even when the two make no pair
// ("\ud800\u0041" becomes one U+FFFD, the "A" lost); such text, rare, is read
// again with encoding/json, every lone surrogate one U+FFFD, so that a member
// is written back as it was and schema checks see the same text.
func Text(v gjson.Result) string {
	if !hasSurrogateEscape(v.Raw) {
		return v.Str
	}
	var s string
	if err := json.Unmarshal([]byte(v.Raw), &s); err != nil {
		return v.Str
	}
	return s
}

// Key returns the name of an object member k, as Text reads it.
func Key(k gjson.Result) string { return Text(k) }

// hasSurrogateEscape reports whether raw, a JSON string, holds a
// \uD800-\uDFFF escape. It jumps from backslash to backslash.
func hasSurrogateEscape(raw string) bool {
	for {
		i := strings.IndexByte(raw, '\\')
		if i < 0 || i+3 >= len(raw) {
			return false
		}
		if raw[i+1] == 'u' && raw[i+2]|0x20 == 'd' {
			switch raw[i+3] | 0x20 {
			case '8', '9', 'a', 'b', 'c', 'd', 'e', 'f':
				return true
			}
		}
		raw = raw[i+2:] // past the escaped character: "\\ud800" is no escape
	}
}
