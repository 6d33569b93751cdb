package declared

import (
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Validate checks msg against the declaration: the required paths and the
// detection marks are present (`sent_at: missing`), each mark with its
// value; then the derived schema types every member.
func (c *Codec) Validate(msg []byte) []dialects.Problem {
	problems, d := c.ValidateDoc(msg)
	d.Release()
	return problems
}

// ValidateDoc is Validate that hands over the message as it read it
// (dialects.DocValidator).
func (c *Codec) ValidateDoc(msg []byte) ([]dialects.Problem, *dialects.Doc) {
	d, rules, ok := c.StartDoc(msg)
	if !ok {
		return rules.List, nil
	}
	if root := d.Root(); root.IsObject() {
		for _, p := range c.required {
			v, parentOK := get(d, root, p)
			switch {
			case !parentOK:
				// A parent that is not an object: the schema says so.
			case !v.Exists():
				rules.Add(p, "missing")
			default:
				if n := c.lookup(p); n.mark != nil && (v.Type != gjson.String || dialects.Text(v) != n.mark.value) {
					rules.Add(p, "must be %q, the mark of %s messages, got %s", n.mark.value, c.Name(), describeValue(v))
				}
			}
		}
	}
	if problems := dialects.MergeProblems(rules.List, uncovered(c.SchemaProblems(rules, msg))); len(problems) > 0 {
		d.Release()
		return problems, nil
	}
	return nil, d
}

// uncovered drops the schema's "missing property" problems: the rules
// report each missing member at its own path.
func uncovered(schema []dialects.Problem) []dialects.Problem {
	out := schema[:0:0]
	for _, s := range schema {
		if !strings.HasPrefix(s.Message, "missing property ") && !strings.HasPrefix(s.Message, "missing properties ") {
			out = append(out, s)
		}
	}
	return out
}

// Detect scores msg as the dialect: 0 unless every detection mark is there
// (with its value, or present for a "*" mark); then 1, plus one per mark,
// plus one per declared one-member field path present in the message.
func (c *Codec) Detect(msg []byte) int {
	root := gjson.ParseBytes(msg)
	if !root.IsObject() {
		return 0
	}
	for _, m := range c.marks {
		v, _ := get(nil, root, m.path)
		if v.Type != gjson.String || dialects.Text(v) != m.value {
			return 0
		}
	}
	for _, p := range c.stars {
		if v, _ := get(nil, root, p); !v.Exists() {
			return 0
		}
	}
	score := 1 + len(c.marks) + len(c.stars)
	seen := map[string]bool{}
	root.ForEach(func(k, _ gjson.Result) bool {
		if key := dialects.Key(k); c.top[key] && !seen[key] {
			seen[key] = true
			score++
		}
		return true
	})
	return score
}

// get returns the member at a dotted path of root, walking the objects
// along it with d (nil: gjson alone); parentOK is false when one of them is
// there but is not an object.
func get(d *dialects.Doc, root gjson.Result, path string) (v gjson.Result, parentOK bool) {
	v = root
	for s := range strings.SplitSeq(path, ".") {
		if !v.Exists() {
			return v, true
		}
		if !v.IsObject() {
			return gjson.Result{}, false
		}
		v = member(d, v, s)
	}
	return v, true
}

// member returns the first member named key of obj, reading it with d.
func member(d *dialects.Doc, obj gjson.Result, key string) gjson.Result {
	var out gjson.Result
	d.ForEach(obj, func(k, v gjson.Result) bool {
		if dialects.Key(k) == key {
			out = v
			return false
		}
		return true
	})
	return out
}

// describeValue names a JSON value for a problem: a string quoted, else its
// type.
func describeValue(v gjson.Result) string {
	if v.Type == gjson.String {
		return strconv.Quote(dialects.Text(v))
	}
	return dialects.TypeName(v)
}
