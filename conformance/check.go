package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// check evaluates one condition on frame f, the answer to m; an empty
// status means it holds.
func (r *runner) check(c Check, f *inbound, m *message) outcome {
	root := gjson.ParseBytes(f.Data)
	path, v := c.Path[0], gjson.Result{}
	for _, p := range c.Path {
		if got := at(root, p); got.Exists() {
			path, v = p, got
			break
		}
	}
	bad := func(rule string, args ...any) outcome {
		where := path
		if where == "" {
			where = "the message"
		}
		return failure("%s breaks a condition", where).blame(f, path, fmt.Sprintf(rule, args...))
	}
	if c.Present != nil {
		switch {
		case *c.Present && !v.Exists():
			return bad("must be present")
		case !*c.Present && v.Exists():
			return bad("must be absent; it is %s", v.Raw)
		}
		return outcome{}
	}
	if c.NotContains != "" {
		needle, err := r.resolveText(c.NotContains, m)
		if err != nil {
			return failure("%v", err)
		}
		if strings.Contains(v.Raw, needle) {
			return bad("must not contain %q", needle)
		}
		return outcome{}
	}
	if c.EachHas != "" {
		items := v.Array()
		if !v.IsArray() || len(items) == 0 {
			return bad("must be a non-empty array whose elements have %s; it is %s", c.EachHas, text(v))
		}
		for i, item := range items {
			if !item.Get(gjson.Escape(c.EachHas)).Exists() {
				return bad("every element must have %s; element %d does not", c.EachHas, i)
			}
		}
		return outcome{}
	}
	if c.ItemsHave != "" {
		if !v.IsArray() {
			return bad("must be an array whose elements have %s; it is %s", c.ItemsHave, text(v))
		}
		for i, item := range v.Array() {
			if !item.Get(gjson.Escape(c.ItemsHave)).Exists() {
				return bad("every element must have %s; element %d does not", c.ItemsHave, i)
			}
		}
		return outcome{}
	}
	if c.Matches != "" {
		return r.matches(c.Matches, v, bad)
	}
	if !v.Exists() {
		return bad("must be present")
	}
	switch {
	case c.Equals != nil:
		want, err := r.resolve(c.Equals, m)
		if err != nil {
			return failure("%v", err)
		}
		if !sameJSON(v.Raw, want) {
			return bad("must be %s; it is %s", want, v.Raw)
		}
	case c.OneOf != nil:
		var wants []string
		for _, w := range c.OneOf {
			want, err := r.resolve(w, m)
			if err != nil {
				return failure("%v", err)
			}
			if sameJSON(v.Raw, want) {
				return outcome{}
			}
			wants = append(wants, string(want))
		}
		return bad("must be one of %s; it is %s", strings.Join(wants, ", "), v.Raw)
	case c.AtLeast != nil:
		want, err := r.resolve(c.AtLeast, m)
		if err != nil {
			return failure("%v", err)
		}
		low := gjson.ParseBytes(want)
		if v.Type != gjson.Number || low.Type != gjson.Number || v.Num < low.Num {
			return bad("must be a number of at least %s; it is %s", want, v.Raw)
		}
	}
	return outcome{}
}

// matches checks that v is a string matching the regular expression re,
// or an array of them (an empty one holds); bad makes the failure.
func (r *runner) matches(re string, v gjson.Result, bad func(string, ...any) outcome) outcome {
	rx, err := regexp.Compile(re)
	if err != nil {
		return failure("matches %q: %v (a requirement file bug)", re, err)
	}
	items := []gjson.Result{v}
	if v.IsArray() {
		items = v.Array()
	}
	for i, it := range items {
		if it.Type != gjson.String || !rx.MatchString(it.Str) {
			if v.IsArray() {
				return bad("every element must be a string matching %s; element %d is %s", re, i, text(it))
			}
			return bad("must be a string matching %s; it is %s", re, text(it))
		}
	}
	return outcome{}
}

// at returns the member of root at a dotted path; "" is root itself.
func at(root gjson.Result, path string) gjson.Result {
	if path == "" {
		return root
	}
	return root.Get(path)
}

// present reports whether frame has a member at path.
func present(frame []byte, path string) bool {
	return at(gjson.ParseBytes(frame), path).Exists()
}

// text shows a member's value, or says it is absent.
func text(v gjson.Result) string {
	if !v.Exists() {
		return "absent"
	}
	return v.Raw
}

// resolve returns a check's value as JSON. A string that is a placeholder
// stands for the suite's id ("{{suite}}") or for the member of the message
// sent at a path ("{{sent:trace.spanId}}").
func (r *runner) resolve(v any, m *message) (json.RawMessage, error) {
	if s, ok := v.(string); ok && strings.HasPrefix(s, "{{") && strings.HasSuffix(s, "}}") {
		name := strings.TrimSuffix(strings.TrimPrefix(s, "{{"), "}}")
		switch {
		case name == "suite":
			return json.Marshal(r.suiteID)
		case name == "task":
			if r.lastTask == "" {
				return nil, fmt.Errorf("%s: the agent answered with no task", s)
			}
			return json.Marshal(r.lastTask)
		case strings.HasPrefix(name, "sent:"):
			if m == nil {
				return nil, fmt.Errorf("%s: nothing was sent to compare with", s)
			}
			got := at(gjson.ParseBytes(m.frame), strings.TrimPrefix(name, "sent:"))
			if !got.Exists() {
				return nil, fmt.Errorf("%s: the suite's own message has no such member (a requirement file bug)", s)
			}
			return json.RawMessage(got.Raw), nil
		}
		return nil, fmt.Errorf("unknown placeholder %s", s)
	}
	return json.Marshal(v)
}

// resolveText returns a check's string value, placeholders replaced by the
// text of what they stand for.
func (r *runner) resolveText(s string, m *message) (string, error) {
	v, err := r.resolve(s, m)
	if err != nil {
		return "", err
	}
	return gjson.ParseBytes(v).String(), nil
}

// sameJSON reports whether two JSON texts are the same value.
func sameJSON(a string, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
