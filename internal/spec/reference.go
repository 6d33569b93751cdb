package spec

import (
	"bytes"
	"fmt"
	"strings"
)

// Reference returns the format's key reference in Markdown: a table of
// each object's keys, with their types, defaults and what they say, the
// root's first ("### Top-level keys"), then each object it holds ("### Keys
// of `path`").
func (s *Spec) Reference() []byte {
	var b bytes.Buffer
	if o, at := s.Root.object(); o != nil {
		referenceSection(&b, o, at)
	}
	return b.Bytes()
}

// referenceSection writes the table of an object's keys, then those of the
// objects it holds.
func referenceSection(b *bytes.Buffer, f *Node, path string) {
	if path == "" {
		b.WriteString("### Top-level keys\n\n")
	} else {
		fmt.Fprintf(b, "### Keys of `%s`\n\n", path)
	}
	intro := f.doc
	if f.choice != nil {
		if f.choice.none != "" {
			intro += fmt.Sprintf(" Exactly one of %s.", OrList(code(f.choice.keys)))
		} else {
			intro += fmt.Sprintf(" At most one of %s.", OrList(code(f.choice.keys)))
		}
	}
	if intro = strings.TrimSpace(intro); intro != "" {
		b.WriteString(intro + "\n\n")
	}
	b.WriteString("| key | type | default | what it says |\n|---|---|---|---|\n")
	for _, c := range f.keys {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", c.key, cell(c.typeName()), cell(c.defaultText()), cell(c.docText()))
	}
	b.WriteString("\n")
	for _, c := range f.keys {
		if o, at := c.object(); o != nil {
			referenceSection(b, o, Join(path, c.key)+at)
		}
	}
}

// object returns the object a node holds: itself, or as the items of a
// list (at "[]") or a map (at ".*"); nil for none.
func (n *Node) object() (*Node, string) {
	switch n.kind {
	case KindObject:
		return n, ""
	case KindList:
		o, at := n.items.object()
		return o, "[]" + at
	case KindMap:
		o, at := n.items.object()
		return o, ".*" + at
	case KindOneOf:
		for _, a := range n.forms {
			if o, at := a.object(); o != nil {
				return o, at
			}
		}
	}
	return nil, ""
}

// typeName names a node's type for the reference.
func (n *Node) typeName() string {
	if n.typ != "" {
		return n.typ
	}
	switch n.kind {
	case KindString:
		if n.path {
			return "path"
		}
		return "string"
	case KindInt:
		return fmt.Sprintf("whole number, at least %v", n.min)
	case KindFloat:
		return fmt.Sprintf("number, at least %v", n.min)
	case KindSize:
		if n.zeroOff {
			return "size (`1MiB`, `64KiB`, `65536`), `0`: none"
		}
		return "size (`1MiB`, `64KiB`, `65536`)"
	case KindDuration:
		if n.zeroOff {
			return "duration, `0s`: off"
		}
		return "duration"
	case KindBool:
		return "`true` or `false`"
	case KindEnum:
		return OrList(code(n.options))
	case KindJSON:
		return "JSON object"
	case KindAny:
		return "any value"
	case KindList:
		t := "list of " + n.items.typeName()
		switch {
		case n.uniqueBy != "":
			t += fmt.Sprintf(", each `%s` once", n.uniqueBy)
		case n.unique:
			t += ", each once"
		}
		return t
	case KindMap:
		return "map of " + n.items.typeName()
	case KindObject:
		return "object"
	case KindOneOf:
		names := make([]string, len(n.forms))
		for i, a := range n.forms {
			names[i] = a.typeName()
		}
		return strings.Join(names, " or ")
	}
	return ""
}

// defaultText says a node's default for the reference.
func (n *Node) defaultText() string {
	switch {
	case n.defDoc != "":
		return n.defDoc
	case n.def != "":
		return "`" + n.def + "`"
	case n.required != "":
		return "required"
	case n.kind == KindObject:
		return "its keys' defaults"
	}
	return "none"
}

// docText is what the reference says of a node: its doc and the rules it
// is under.
func (n *Node) docText() string {
	s := n.doc
	if len(n.with) > 0 {
		s += fmt.Sprintf(" Only with %s.", OrList(code(n.with)))
	}
	return s
}

// code writes each word as Markdown code.
func code(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = "`" + w + "`"
	}
	return out
}

// cell makes text fit in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// Splice returns doc with the text between the lines begin and end
// replaced by generated. It fails when doc lacks the markers.
func Splice(doc []byte, begin, end string, generated []byte) ([]byte, error) {
	i := bytes.Index(doc, []byte(begin))
	j := bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %q ... %q markers", begin, end)
	}
	var b bytes.Buffer
	b.Write(doc[:i+len(begin)])
	b.WriteString("\n\n")
	b.Write(generated)
	b.Write(doc[j:])
	return b.Bytes(), nil
}
