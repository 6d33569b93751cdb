package refagent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// tool is one operation the agent offers: its declaration and its code.
type tool struct {
	canonical.Tool
	run func(ctx context.Context, args canonical.JSON) answer
}

// answer is what a tool gives back: a result with a one-line summary, or an
// error.
type answer struct {
	result  canonical.JSON
	summary string
	err     *canonical.Error
}

// failed returns an answer that reports an error of code with message.
func failed(code canonical.ErrorCode, format string, a ...any) answer {
	return answer{err: &canonical.Error{Code: code, Message: fmt.Sprintf(format, a...)}}
}

// ok returns an answer with result v (marshalled to JSON) and summary.
func ok(v any, summary string) answer {
	b, err := json.Marshal(v)
	if err != nil {
		return failed(canonical.ErrInternal, "cannot write the result: %v", err)
	}
	return answer{result: canonical.JSON(b), summary: summary}
}

// toolVersion is the version each tool is declared with, where a dialect
// carries one (fuse versions each capability): the version of its
// arguments and result, which have not changed since it was first written.
const toolVersion = "1.0"

// catalogue lists every tool the agent package offers, in the order they
// are declared.
func catalogue() []*tool {
	tools := []*tool{echoTool(), addTool(), sleepTool(), failTool(), debugCodeTool(), sentimentTool()}
	for _, t := range tools {
		t.Version = toolVersion
	}
	return tools
}

// ToolNames returns the names of every tool a reference agent can offer,
// in the order they are declared.
func ToolNames() []string {
	var out []string
	for _, t := range catalogue() {
		out = append(out, t.Name)
	}
	return out
}

// selectTools returns the tools named (nil: all of them); an unknown or
// repeated name is an error.
func selectTools(names []string) ([]*tool, error) {
	all := catalogue()
	if names == nil {
		return all, nil
	}
	byName := map[string]*tool{}
	for _, t := range all {
		byName[t.Name] = t
	}
	var out []*tool
	seen := map[string]bool{}
	for _, n := range names {
		t, found := byName[n]
		if !found {
			return nil, fmt.Errorf("unknown tool %q (the tools are %s)", n, strings.Join(ToolNames(), ", "))
		}
		if seen[n] {
			return nil, fmt.Errorf("tool %q listed twice", n)
		}
		seen[n] = true
		out = append(out, t)
	}
	return out, nil
}

// find returns the tool op asks for. A dialect with one level of names may
// put the tool's name in Capability alone; a two-level name must match the
// tool's capability when both name one.
func find(tools []*tool, op canonical.Operation) *tool {
	name := op.Name
	if name == "" {
		name = op.Capability
	}
	for _, t := range tools {
		if t.Name != name {
			continue
		}
		if op.Name != "" && op.Capability != "" && t.Capability != "" && op.Capability != t.Capability {
			continue
		}
		return t
	}
	return nil
}

// opName is how an operation is named in messages: "capability/name" when
// it has both.
func opName(op canonical.Operation) string {
	switch {
	case op.Capability == "":
		return op.Name
	case op.Name == "":
		return op.Capability
	}
	return op.Capability + "/" + op.Name
}

// args are a request's arguments as a JSON object, member by member.
type args struct {
	tool    string
	members map[string]json.RawMessage
}

// readArgs reads raw as a JSON object; no arguments is an empty object.
func readArgs(toolName string, raw canonical.JSON) (args, *answer) {
	a := args{tool: toolName, members: map[string]json.RawMessage{}}
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		return a, nil
	}
	if err := json.Unmarshal([]byte(text), &a.members); err != nil || a.members == nil {
		bad := failed(canonical.ErrInvalidArguments, "%s: the arguments must be a JSON object, got %s", toolName, clip(text))
		return a, &bad
	}
	return a, nil
}

// has reports whether the argument name is given (null counts as absent).
func (a args) has(name string) bool {
	v, found := a.members[name]
	return found && strings.TrimSpace(string(v)) != "null"
}

// first returns the first of names that is given, or "" when none is.
func (a args) first(names ...string) string {
	for _, n := range names {
		if a.has(n) {
			return n
		}
	}
	return ""
}

// number reads the argument name as a JSON number.
func (a args) number(name string) (float64, *answer) {
	if !a.has(name) {
		bad := failed(canonical.ErrInvalidArguments, "%s: argument %q is missing: it must be a number", a.tool, name)
		return 0, &bad
	}
	raw := a.members[name]
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	_ = d.Decode(&v) // a is already valid JSON
	n, isNumber := v.(json.Number)
	f, err := n.Float64()
	if !isNumber || err != nil {
		bad := failed(canonical.ErrInvalidArguments, "%s: argument %q must be a number, got %s", a.tool, name, clip(string(raw)))
		return 0, &bad
	}
	return f, nil
}

// text reads the argument name as a JSON string; absent is "".
func (a args) text(name string) (string, *answer) {
	if !a.has(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(a.members[name], &s); err != nil {
		bad := failed(canonical.ErrInvalidArguments, "%s: argument %q must be a string, got %s", a.tool, name, clip(string(a.members[name])))
		return "", &bad
	}
	return s, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
