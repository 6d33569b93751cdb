package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Effective returns the config the bridge would run on, as YAML: the file
// at path checked whole as LoadAll does (path "" for the embedded
// default), every key in the spec's order with its default filled in and
// marked "# default". ${VAR} is shown replaced, but for tokens, env and
// headers, which are shown as written; relative paths are shown absolute.
func Effective(path string, extra []string) ([]byte, error) {
	var root *value
	if path == "" {
		var errs Errors
		if root, errs = checkAll(defaultName, defaultFile, extra); len(errs) > 0 {
			return nil, errs
		}
	} else {
		var err error
		if _, root, err = loadAll(path, extra); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(render(root, nil)); err != nil {
		return nil, fmt.Errorf("show the config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("show the config: %w", err)
	}
	return b.Bytes(), nil
}

// render is the YAML node of a decoded value. A default is marked with a
// "default" comment, on the value, or on key where the value is a block.
func render(v *value, key *yaml.Node) *yaml.Node {
	var n *yaml.Node
	switch v.f.kind {
	case kindObject, kindMap:
		n = &yaml.Node{Kind: yaml.MappingNode}
		for _, it := range v.items {
			k := &yaml.Node{Kind: yaml.ScalarNode, Value: it.key}
			if v.f.kind == kindObject {
				k.Value = it.f.key
			}
			n.Content = append(n.Content, k, render(it, k))
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle // {}, on the key's line
		}
	case kindList:
		n = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, it := range v.items {
			c := render(it, nil)
			if c.Kind != yaml.ScalarNode {
				n.Style = 0
			}
			n.Content = append(n.Content, c)
		}
	case kindJSON:
		var x any
		n = &yaml.Node{}
		if err := json.Unmarshal(v.raw, &x); err != nil || n.Encode(x) != nil {
			panic(fmt.Sprintf("config: %s: the JSON decoded cannot be shown: %v", v.path, err))
		}
		n.Style = yaml.FlowStyle
	default:
		n = scalarNode(v)
	}
	if !v.given && (v.line == 0) {
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

// unmark takes the default marks off what a default holds: the mark on
// the default itself says it.
func unmark(n *yaml.Node) {
	for _, c := range n.Content {
		c.LineComment = ""
		unmark(c)
	}
}

// scalarNode is the YAML scalar of a decoded value.
func scalarNode(v *value) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}
	switch v.f.kind {
	case kindString, kindEnum:
		n.Value = v.s
		if v.f.secret && v.given {
			n.Value = v.text
		}
		if v.f.path {
			if abs, err := filepath.Abs(v.s); err == nil {
				n.Value = abs
			}
		}
	case kindInt:
		n.Tag, n.Value = "", strconv.Itoa(v.n)
	case kindFloat:
		n.Tag, n.Value = "", strconv.FormatFloat(v.x, 'g', -1, 64)
	case kindSize:
		n.Value = formatSize(v.n)
		if _, err := strconv.Atoi(n.Value); err == nil {
			n.Tag = ""
		}
	case kindDuration:
		n.Value = formatDuration(v.d)
	case kindBool:
		n.Tag, n.Value = "", strconv.FormatBool(v.b)
	}
	return n
}
