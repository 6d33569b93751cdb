package config

import (
	"fmt"
	"os"
	"strings"
)

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
