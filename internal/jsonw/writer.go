// Package jsonw is an append-only JSON writer for building whole messages in
// one pass without reflection: each call appends to one byte slice and the
// writer places the commas.
package jsonw

import (
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// Writer appends JSON tokens to Buf.
type Writer struct {
	Buf   []byte
	comma bool
}

// New returns a writer appending to dst.
func New(dst []byte) Writer { return Writer{Buf: dst} }

func (w *Writer) sep() {
	if w.comma {
		w.Buf = append(w.Buf, ',')
	}
}

// Open starts an object.
func (w *Writer) Open() { w.sep(); w.Buf = append(w.Buf, '{'); w.comma = false }

// Close ends an object.
func (w *Writer) Close() { w.Buf = append(w.Buf, '}'); w.comma = true }

// OpenArray starts an array.
func (w *Writer) OpenArray() { w.sep(); w.Buf = append(w.Buf, '['); w.comma = false }

// CloseArray ends an array.
func (w *Writer) CloseArray() { w.Buf = append(w.Buf, ']'); w.comma = true }

// Key writes an object member's name; the value follows.
func (w *Writer) Key(k string) {
	w.sep()
	w.Buf = AppendString(w.Buf, k)
	w.Buf = append(w.Buf, ':')
	w.comma = false
}

// Name writes an object member's name that needs no escaping (Plain is
// true of it: a constant such as "message_id"), as it is, without the
// checks Key makes; the value follows.
func (w *Writer) Name(k string) {
	w.sep()
	w.Buf = append(w.Buf, '"')
	w.Buf = append(w.Buf, k...)
	w.Buf = append(w.Buf, '"', ':')
	w.comma = false
}

// NameString writes the plain name k (as Name does) and s, unless s is
// empty: StringField for a constant name.
func (w *Writer) NameString(k, s string) {
	if s != "" {
		w.Name(k)
		w.String(s)
	}
}

// String writes a string value.
func (w *Writer) String(s string) { w.sep(); w.Buf = AppendString(w.Buf, s); w.comma = true }

// Raw writes a value that is already JSON text.
func (w *Writer) Raw(raw string) { w.sep(); w.Buf = append(w.Buf, raw...); w.comma = true }

// Int writes an integer.
func (w *Writer) Int(n int64) { w.sep(); w.Buf = strconv.AppendInt(w.Buf, n, 10); w.comma = true }

// Float writes a number, in the shortest form that reads back the same.
func (w *Writer) Float(f float64) {
	w.sep()
	w.Buf = strconv.AppendFloat(w.Buf, f, 'f', -1, 64)
	w.comma = true
}

// Bool writes true or false.
func (w *Writer) Bool(b bool) { w.sep(); w.Buf = strconv.AppendBool(w.Buf, b); w.comma = true }

// Null writes null.
func (w *Writer) Null() { w.sep(); w.Buf = append(w.Buf, "null"...); w.comma = true }

// StringField writes key and s, unless s is empty.
func (w *Writer) StringField(key, s string) {
	if s != "" {
		w.Key(key)
		w.String(s)
	}
}

// RawField writes key and the JSON text raw, unless raw is empty.
func (w *Writer) RawField(key, raw string) {
	if raw != "" {
		w.Key(key)
		w.Raw(raw)
	}
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, escaping what JSON requires and
// replacing invalid UTF-8 with U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time, then straight to the first byte of
		// a word that is not plain; the last few bytes (below) likewise.
		for i+8 <= len(s) {
			m := NotPlain(word(s[i : i+8]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		if i == len(s) {
			break
		}
		if n := len(s) - i; n < 8 {
			// The last few bytes as one word too, padded with plain
			// ones: most strings (ids, names, times) end plain.
			m := NotPlain(tail(s[i:]))
			if m == 0 {
				break // all plain: written with the rest, from start
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}

// Plain reports whether s is ASCII that a JSON string holds as it is: no
// quote, backslash or control character, so that AppendString would write
// it between quotes unchanged.
func Plain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if NotPlain(word(s[i:i+8])) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// word reads eight bytes of s as a little-endian word: the first byte in
// the lowest bits, as NotPlain wants them. The compiler makes it one load.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// tail reads the fewer than eight bytes of s as word does, the bytes past
// its end plain (spaces).
func tail(s string) uint64 {
	x := uint64(0x2020202020202020)
	for j := len(s) - 1; j >= 0; j-- {
		x = x<<8 | uint64(s[j])
	}
	return x
}

// NotPlain returns a mask of the eight bytes of the little-endian word x
// that a JSON string cannot hold as they are (a quote, a backslash, a
// control character) or that begin or continue a multi-byte character: zero
// when there is none, and otherwise one whose lowest set bit is the high
// bit of the first such byte (in memory order). Bytes after that one may
// be marked wrongly (a borrow runs on), so only the lowest mark counts.
func NotPlain(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// A byte b of x is below n (n <= 0x80) when (b - n) &^ b has its high
	// bit set; it is zero when it is below 1.
	below := func(x, n uint64) uint64 { return (x - ones*n) &^ x & highs }
	return (x & highs) | below(x, 0x20) | below(x^(ones*'"'), 1) | below(x^(ones*'\\'), 1)
}
