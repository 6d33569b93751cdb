package mcpface

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Policy grants the access tokens that hold Scope, or whose Claim has
// Value (or, an array claim, holds it), the tools of Allow less those of
// Deny. A pattern is AGENT:TOOL, globs as mcp.expose reads them, or a
// glob of MCP tool names (*__search).
type Policy struct {
	Scope        string
	Claim, Value string
	Allow, Deny  []string
}

// toolPattern is one compiled tool pattern.
type toolPattern struct {
	agentTool *pattern       // AGENT:TOOL; nil for a name glob
	name      *regexp.Regexp // a glob of MCP tool names
}

// compileToolPattern compiles AGENT:TOOL, or a glob of MCP tool names.
func compileToolPattern(s string) (toolPattern, error) {
	if strings.Contains(s, ":") {
		ps, err := compilePatterns([]string{s})
		if err != nil {
			return toolPattern{}, err
		}
		return toolPattern{agentTool: &ps[0]}, nil
	}
	re, err := glob(s)
	if err != nil {
		return toolPattern{}, fmt.Errorf("%q: %w", s, err)
	}
	return toolPattern{name: re}, nil
}

func compileToolPatterns(list []string) ([]toolPattern, error) {
	out := make([]toolPattern, 0, len(list))
	for _, s := range list {
		p, err := compileToolPattern(s)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// matches reports whether the pattern matches the tool of e.
func (p toolPattern) matches(e *entry) bool {
	if p.agentTool != nil {
		return p.agentTool.matchesNames(e.tool.Agent, e.tool.Name)
	}
	return p.name.MatchString(e.name)
}

func matchesAnyTool(ps []toolPattern, e *entry) bool {
	return slices.ContainsFunc(ps, func(p toolPattern) bool { return p.matches(e) })
}

// policy is a compiled Policy.
type policy struct {
	Policy
	allow, deny []toolPattern
}

// compilePolicies compiles the policies' patterns.
func compilePolicies(list []Policy) ([]policy, error) {
	out := make([]policy, 0, len(list))
	for i, p := range list {
		c := policy{Policy: p}
		var err error
		if c.allow, err = compileToolPatterns(p.Allow); err != nil {
			return nil, fmt.Errorf("mcp.policies[%d].allow: %w", i, err)
		}
		if c.deny, err = compileToolPatterns(p.Deny); err != nil {
			return nil, fmt.Errorf("mcp.policies[%d].deny: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// applies reports whether the policy is for the token of g.
func (p *policy) applies(g *Grant) bool {
	if p.Scope != "" {
		return slices.Contains(g.Scopes, p.Scope)
	}
	return claimHolds(g.Claims[p.Claim], p.Value)
}

// claimHolds reports whether a claim's value is want, or (an array)
// holds it; numbers and booleans are compared as their JSON text.
func claimHolds(v any, want string) bool {
	switch v := v.(type) {
	case nil:
		return false
	case string:
		return v == want
	case []any:
		return slices.ContainsFunc(v, func(x any) bool { return claimHolds(x, want) })
	case []string:
		return slices.Contains(v, want)
	case map[string]any:
		return false
	}
	return fmt.Sprint(v) == want
}

// toolsOf returns which tools the token of g may see and call: those a
// policy for it allows and does not deny; nil (all of them) when there are
// no policies.
func (a *authState) toolsOf(g *Grant) func(*entry) bool {
	if len(a.policies) == 0 {
		return nil
	}
	var mine []*policy
	for i := range a.policies {
		if a.policies[i].applies(g) {
			mine = append(mine, &a.policies[i])
		}
	}
	return func(e *entry) bool {
		return slices.ContainsFunc(mine, func(p *policy) bool { return matchesAnyTool(p.allow, e) && !matchesAnyTool(p.deny, e) })
	}
}
