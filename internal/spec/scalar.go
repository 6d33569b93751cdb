package spec

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// parseScalar reads s into v as its node's kind says. It says what is
// wrong, or "".
func parseScalar(v *Value, s string) string {
	f := v.n
	quoted := strconv.Quote(s)
	switch f.kind {
	case KindString:
		v.s = s
	case KindEnum:
		if !slices.Contains(f.options, s) {
			return fmt.Sprintf("%s is not %s", quoted, f.whatOf())
		}
		v.s = s
	case KindBool:
		switch s {
		case "true":
			v.b = true
		case "false":
		default:
			return fmt.Sprintf("%s is not true or false", quoted)
		}
	case KindInt:
		n, err := strconv.Atoi(s)
		if err != nil || float64(n) < f.min {
			return fmt.Sprintf("%s is not a whole number of at least %v", quoted, f.min)
		}
		v.i = n
	case KindFloat:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < f.min {
			return fmt.Sprintf("%s is not a number of at least %v", quoted, f.min)
		}
		v.x = x
	case KindSize:
		if f.zeroOff && s == "0" {
			v.i = 0
			break
		}
		n, problem := parseSize(s)
		if problem != "" {
			return problem
		}
		v.i = n
	case KindDuration:
		if !f.zeroOff {
			dur, problem := parseDuration(s)
			v.d = dur
			return problem
		}
		if s == "0" {
			return ""
		}
		dur, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return fmt.Sprintf("%q is not a duration (30s, 500ms, 2m)", s)
		case dur < 0:
			return fmt.Sprintf("must be 0s (off) or more, got %q", s)
		}
		v.d = dur
	}
	return ""
}

// sizeUnits are the suffixes a size may have, in bytes.
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"KiB", 1 << 10},
	{"MiB", 1 << 20},
	{"KB", 1000},
	{"MB", 1000 * 1000},
}

// parseSize reads a positive size in bytes: an integer, or an integer with
// a KiB, MiB, KB or MB suffix. It says what is wrong, or "".
func parseSize(s string) (int, string) {
	bad := fmt.Sprintf("%q is not a size (integer bytes, or with KiB, MiB, KB, MB: 1MiB)", s)
	num, mult := s, int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Sprintf("%q is too large", s)
		}
		return 0, bad
	}
	if n <= 0 {
		return 0, fmt.Sprintf("must be more than 0 bytes, got %q", s)
	}
	if n > math.MaxInt/mult {
		return 0, fmt.Sprintf("%q is too large", s)
	}
	return int(n * mult), ""
}

// FormatSize writes a size as parseSize reads it, in the largest binary
// unit that divides it.
func FormatSize(n int) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n > 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return strconv.Itoa(n)
}

// parseDuration reads a positive Go duration. It says what is wrong, or "".
func parseDuration(s string) (time.Duration, string) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Sprintf("%q is not a duration (30s, 500ms, 2m)", s)
	}
	if v <= 0 {
		return 0, fmt.Sprintf("must be more than 0, got %q", s)
	}
	return v, ""
}

// FormatDuration writes a duration as a config file would: 1m, not 1m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// expandEnv replaces ${NAME} in s with the environment variable NAME; $$
// writes a literal $. It says what is wrong (an unset variable, an unclosed
// ${), or "".
func expandEnv(s string) (string, string) {
	if !strings.Contains(s, "$") {
		return s, ""
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '$':
			b.WriteByte('$')
			i++
		case i+1 < len(s) && s[i+1] == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Sprintf("%q: ${ without its }", s)
			}
			name := s[i+2 : i+2+end]
			v, ok := os.LookupEnv(name)
			if !ok || name == "" {
				return "", fmt.Sprintf("the environment variable %s is not set (write $$ for a literal $)", name)
			}
			b.WriteString(v)
			i += 2 + end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}
