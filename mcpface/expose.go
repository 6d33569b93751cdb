package mcpface

import (
	"fmt"
	"path"
	"regexp"
	"strings"

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

// compileExposure compiles the allow and deny patterns.
func compileExposure(allow, deny []string) (exposure, error) {
	var e exposure
	var err error
	if e.allow, err = compilePatterns(allow); err != nil {
		return e, fmt.Errorf("mcp.expose.allow: %w", err)
	}
	if e.deny, err = compilePatterns(deny); err != nil {
		return e, fmt.Errorf("mcp.expose.deny: %w", err)
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
func glob(g string) (*regexp.Regexp, error) {
	if g == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	if _, err := path.Match(g, ""); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(g[i:], ']')
			class := g[i+1 : i+j]
			if strings.HasPrefix(class, "^") {
				class = "^" + regexp.QuoteMeta(class[1:])
			} else {
				class = regexp.QuoteMeta(class)
			}
			// A range "a-z" survives QuoteMeta as "a-z".
			b.WriteString("[" + class + "]")
			i += j
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func (p pattern) matches(t bridge.Tool) bool {
	return p.agent.MatchString(t.Agent) && (p.tool == nil || p.tool.MatchString(t.Name))
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
