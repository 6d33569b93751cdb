package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"
)

// YAML writes a decoded value as YAML, indented by two: every key in the
// spec's order, a default marked "# default". Secrets are shown as
// written (${VAR} unexpanded), other strings as decoded; paths absolute.
func (v *Value) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(render(v, nil)); err != nil {
		return nil, fmt.Errorf("write %s as YAML: %w", v.path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write %s as YAML: %w", v.path, err)
	}
	return b.Bytes(), nil
}

// render is the YAML node of a decoded value. A default is marked with a
// "default" comment, on the value, or on key where the value is a block.
func render(v *Value, key *yaml.Node) *yaml.Node {
	var n *yaml.Node
	switch v.n.kind {
	case KindObject, KindMap:
		n = &yaml.Node{Kind: yaml.MappingNode}
		for _, it := range v.items {
			k := &yaml.Node{Kind: yaml.ScalarNode, Value: it.key}
			if v.n.kind == KindObject {
				k.Value = it.keyNode().key
			}
			n.Content = append(n.Content, k, render(it, k))
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle // {}, on the key's line
		}
	case KindList:
		n = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, it := range v.items {
			c := render(it, nil)
			if c.Kind != yaml.ScalarNode {
				n.Style = 0
			}
			n.Content = append(n.Content, c)
		}
	case KindJSON, KindAny:
		x := v.any
		if v.n.kind == KindJSON {
			if err := json.Unmarshal(v.raw, &x); err != nil {
				panic(fmt.Sprintf("spec: %s: the JSON decoded cannot be shown: %v", v.path, err))
			}
		}
		n = &yaml.Node{}
		if err := n.Encode(x); err != nil {
			panic(fmt.Sprintf("spec: %s: the value decoded cannot be shown: %v", v.path, err))
		}
		n.Style = yaml.FlowStyle
	default:
		n = scalarNode(v)
	}
	if !v.given && v.pos.Line == 0 {
		switch {
		case n.Kind == yaml.ScalarNode || n.Style == yaml.FlowStyle:
			n.LineComment = "default"
		case key != nil:
			key.LineComment = "default"
		}
		unmark(n)
	}
	return n
}

// unmark takes the default marks off what a default holds: the mark on the
// default itself says it.
func unmark(n *yaml.Node) {
	for _, c := range n.Content {
		c.LineComment = ""
		unmark(c)
	}
}

// scalarNode is the YAML scalar of a decoded value.
func scalarNode(v *Value) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}
	switch v.n.kind {
	case KindString, KindEnum:
		n.Value = v.s
		if v.n.secret && v.given {
			n.Value = v.text
		}
		if v.n.path {
			if abs, err := filepath.Abs(v.s); err == nil {
				n.Value = abs
			}
		}
	case KindInt:
		n.Tag, n.Value = "", strconv.Itoa(v.i)
	case KindFloat:
		n.Tag, n.Value = "", strconv.FormatFloat(v.x, 'g', -1, 64)
	case KindSize:
		n.Value = FormatSize(v.i)
		if _, err := strconv.Atoi(n.Value); err == nil {
			n.Tag = ""
		}
	case KindDuration:
		n.Value = FormatDuration(v.d)
	case KindBool:
		n.Tag, n.Value = "", strconv.FormatBool(v.b)
	}
	return n
}
