package schemafast

import (
	"unicode/utf16"
	"unicode/utf8"
)

// unescape appends to dst the text of raw, the contents of a JSON string
// between its quotes, already checked by the scanner, as encoding/json
// reads it: a UTF-16 surrogate pair is one character and every other
// surrogate escape U+FFFD.
func unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := i + 1
			for j < len(raw) && raw[j] != '\\' {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
			continue
		}
		switch raw[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if d := utf16.DecodeRune(r, hex4(raw[i+2:])); d != utf8.RuneError {
						dst = utf8.AppendRune(dst, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, raw[i+1])
		}
		i += 2
	}
	return dst
}

// hex4 returns the value of the four hex digits that b starts with; the
// scanner has checked them.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// maxDigits bounds the significant digits of a number compared exactly;
// a longer one is left to the library.
const maxDigits = 40

// maxExponent and maxNumber bound the exponent and the length of a number
// compared exactly: math/big refuses a number whose exponent, less its
// digits after the point, is past 1e6, and the library with it.
const (
	maxExponent = 10000
	maxNumber   = 1000
)

// decimal is an exact decimal number: 0.d[:n] x 10^exp, negative when neg,
// zero when n is 0. d has no leading or trailing zeros.
type decimal struct {
	neg bool
	n   int
	exp int
	d   [maxDigits]byte
}

// parseDecimal reads raw, a number of JSON's grammar or as fmt prints Go
// numbers. ok is false when raw is not one, or is past maxDigits,
// maxExponent or maxNumber.
func parseDecimal(raw []byte) (x decimal, ok bool) {
	if len(raw) > maxNumber {
		return x, false
	}
	i := 0
	if i < len(raw) && raw[i] == '-' {
		x.neg = true
		i++
	}
	// point is how many digits come before the decimal point, lead how
	// many zeros before the first other digit, zeros how many zeros since
	// the last other digit: kept only when another digit follows.
	point, seen, lead, zeros, read := 0, false, 0, 0, 0
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == '.' {
			if seen {
				return x, false
			}
			seen = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		read++
		if !seen {
			point++
		}
		switch {
		case c == '0' && x.n == 0:
			lead++
		case c == '0':
			zeros++
		default:
			if x.n+zeros >= maxDigits {
				return x, false
			}
			for ; zeros > 0; zeros-- {
				x.d[x.n] = '0'
				x.n++
			}
			x.d[x.n] = c
			x.n++
		}
	}
	if read == 0 {
		return x, false
	}
	e := 0
	if i < len(raw) {
		if raw[i] != 'e' && raw[i] != 'E' {
			return x, false
		}
		i++
		eneg := false
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			eneg = raw[i] == '-'
			i++
		}
		if i == len(raw) {
			return x, false
		}
		for ; i < len(raw); i++ {
			c := raw[i]
			if c < '0' || c > '9' {
				return x, false
			}
			e = e*10 + int(c-'0')
			if e > maxExponent {
				return x, false
			}
		}
		if eneg {
			e = -e
		}
	}
	if x.n == 0 {
		return decimal{}, true
	}
	// The first significant digit is digit lead of the digits read.
	x.exp = point - lead + e
	return x, true
}

// integer reports whether x is a whole number.
func (x *decimal) integer() bool { return x.n <= x.exp }

// cmp compares x and y: -1, 0 or +1.
func (x *decimal) cmp(y *decimal) int {
	switch {
	case x.n == 0 && y.n == 0:
		return 0
	case x.n == 0:
		if y.neg {
			return 1
		}
		return -1
	case y.n == 0:
		if x.neg {
			return -1
		}
		return 1
	case x.neg != y.neg:
		if x.neg {
			return -1
		}
		return 1
	}
	c := x.cmpAbs(y)
	if x.neg {
		return -c
	}
	return c
}

// cmpAbs compares the magnitudes of x and y, neither zero.
func (x *decimal) cmpAbs(y *decimal) int {
	if x.exp != y.exp {
		if x.exp < y.exp {
			return -1
		}
		return 1
	}
	for i := 0; i < x.n && i < y.n; i++ {
		if x.d[i] != y.d[i] {
			if x.d[i] < y.d[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case x.n < y.n:
		return -1
	case x.n > y.n:
		return 1
	}
	return 0
}

// canonicalDateTime reports whether s is a date-time of the form
// YYYY-MM-DD(T|t)hh:mm:ss[.f+](Z|z|(+|-)hh:mm), every field in range and
// no leap second: a form the library's date-time check accepts. Other
// texts are left to the library's own check.
func canonicalDateTime(s []byte) bool {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return false
	}
	rest := s[19:]
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	if len(rest) == 1 {
		return rest[0] == 'Z' || rest[0] == 'z'
	}
	if len(rest) != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':' {
		return false
	}
	zh, ok1 := digits(rest[1:3])
	zm, ok2 := digits(rest[4:6])
	return ok1 && ok2 && zh <= 23 && zm <= 59
}

// digits returns the value of b, ASCII digits only.
func digits(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// daysIn returns the days of a month of the proleptic Gregorian calendar,
// as package time counts them.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
