package mcpface

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// Which tools MCP clients see (mcp.expose). A pattern is AGENT or
// AGENT:TOOL, each a glob: "*" matches any run of characters ("/" too,
// so "*" covers fuse's capability/action names), "?" one character,
// "[...]" one of a class, as in path.Match. AGENT alone stands for all the
// agent's tools. A tool is shown when it matches an allow pattern (no allow
// patterns allow all) and no deny pattern.

// pattern is one compiled expose pattern.
type pattern struct {
	agent, tool *regexp.Regexp // tool nil: any
}

// exposure is the compiled allow and deny lists.
type exposure struct {
	allow, deny []pattern
}

// Exposure is a compiled pair of allow and deny lists of expose patterns,
// for the bridge's other faces (a2a.expose).
type Exposure = exposure

// compileExposure compiles the allow and deny patterns of mcp.expose.
func compileExposure(allow, deny []string) (exposure, error) {
	return CompileExposure("mcp.expose", allow, deny)
}

// CompileExposure compiles the allow and deny patterns of the config key
// key, which its errors name.
func CompileExposure(key string, allow, deny []string) (Exposure, error) {
	var e exposure
	var err error
	if e.allow, err = compilePatterns(allow); err != nil {
		return e, fmt.Errorf("%s.allow: %w", key, err)
	}
	if e.deny, err = compilePatterns(deny); err != nil {
		return e, fmt.Errorf("%s.deny: %w", key, err)
	}
	return e, nil
}

func compilePatterns(list []string) ([]pattern, error) {
	out := make([]pattern, 0, len(list))
	for _, s := range list {
		agent, tool, two := strings.Cut(s, ":")
		var p pattern
		var err error
		if p.agent, err = glob(agent); err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		if two {
			if p.tool, err = glob(tool); err != nil {
				return nil, fmt.Errorf("%q: %w", s, err)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// glob compiles a glob into a regular expression matching the whole text.
// It reads the glob as path.Match does, a character (a rune) at a time:
// "\" quotes the next character, in a class too.
func glob(g string) (*regexp.Regexp, error) {
	if g == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	if _, err := path.Match(g, ""); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); {
		switch g[i] {
		case '*':
			b.WriteString(".*")
			i++
		case '?':
			b.WriteString(".")
			i++
		case '[':
			i += 1 + class(&b, g[i+1:])
		case '\\':
			i++
			if i < len(g) {
				r, n := utf8.DecodeRuneInString(g[i:])
				b.WriteString(regexp.QuoteMeta(string(r)))
				i += n
			}
		default:
			r, n := utf8.DecodeRuneInString(g[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// class writes the regular expression of the character class g starts
// with (after its "["), and returns its length up to and with its "]":
// "^" first negates it, "\" quotes the next character, "lo-hi" is a range.
// path.Match has checked that it is well formed.
func class(b *strings.Builder, g string) int {
	i := 0
	b.WriteByte('[')
	if i < len(g) && g[i] == '^' {
		b.WriteByte('^')
		i++
	}
	member := func() string {
		if g[i] == '\\' {
			i++
		}
		r, n := utf8.DecodeRuneInString(g[i:])
		i += n
		return fmt.Sprintf(`\x{%x}`, r)
	}
	for i < len(g) && g[i] != ']' {
		b.WriteString(member())
		if i < len(g) && g[i] == '-' {
			i++
			b.WriteString("-" + member())
		}
	}
	b.WriteByte(']')
	return i + 1
}

func (p pattern) matches(t bridge.Tool) bool { return p.matchesNames(t.Agent, t.Name) }

// matchesNames reports whether the pattern matches the tool named tool of
// the agent agent.
func (p pattern) matchesNames(agent, tool string) bool {
	return p.agent.MatchString(agent) && (p.tool == nil || p.tool.MatchString(tool))
}

func matchesAny(ps []pattern, t bridge.Tool) bool {
	for _, p := range ps {
		if p.matches(t) {
			return true
		}
	}
	return false
}

// shows reports whether MCP clients see t.
func (e exposure) shows(t bridge.Tool) bool {
	return (len(e.allow) == 0 || matchesAny(e.allow, t)) && !matchesAny(e.deny, t)
}

// Shows reports whether the patterns show t.
func (e exposure) Shows(t bridge.Tool) bool { return e.shows(t) }

// ShowsAgent reports whether the patterns show an agent with no tools:
// whether a pattern naming the agent alone allows it and none denies it.
func (e exposure) ShowsAgent(agent string) bool {
	agentOnly := func(ps []pattern) bool {
		for _, p := range ps {
			if p.tool == nil && p.agent.MatchString(agent) {
				return true
			}
		}
		return false
	}
	return (len(e.allow) == 0 || agentOnly(e.allow)) && !agentOnly(e.deny)
}
