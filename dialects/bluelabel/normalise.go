package bluelabel

import (
	"strings"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// idPattern is the form of sender_id, recipient_id and task_id.
const idPattern = "^[A-Z0-9_-]+$"

// notAnID is the rule an id from another dialect can break.
const notAnID = "is not a bluelabel id (" + idPattern + ")"

// broadcastID is the recipient_id written for a message to all agents.
const broadcastID = "BROADCAST"

func idByte(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

// validID reports whether s matches idPattern.
func validID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !idByte(s[i]) {
			return false
		}
	}
	return true
}

// normalID returns s in bluelabel's id form: ASCII letters upper-cased, any
// other character not allowed replaced by "_", cut to limit characters when
// limit > 0.
func normalID(s string, limit int) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if limit > 0 && len(b) == limit {
			break
		}
		switch {
		case r >= 'a' && r <= 'z':
			b = append(b, byte(r-'a'+'A'))
		case r < utf8.RuneSelf && idByte(byte(r)):
			b = append(b, byte(r))
		default:
			b = append(b, '_')
		}
	}
	return string(b)
}

// dateTime returns t as an RFC 3339 date-time: as it is when it is one, in
// UTC with "Z" when it has no zone (the same instant), ok false when it is
// not a time at all.
func dateTime(t canonical.Timestamp) (canonical.Timestamp, bool) {
	if t.HasZone() && !strings.ContainsRune(string(t), ',') && t.Valid() {
		return t, true // as below, without making the time
	}
	v, ok := t.Parse()
	switch {
	case !ok:
		return "", false
	case t.HasZone() && !strings.ContainsRune(string(t), ','):
		return t, true
	}
	return canonical.NewTimestamp(v), true // no zone: the same instant in UTC
}

// clipRunes returns s cut to at most n characters, ending in "…" when cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// clip shortens s for a loss report.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return clipRunes(s, n)
}
