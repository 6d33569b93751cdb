package config

import (
	"bytes"
	"fmt"
	"strings"
)

// The markers around the key reference in docs/config.md.
const (
	referenceBegin = "<!-- BEGIN key reference: generated from config/spec.go; `go test ./config -run TestReference -update` rewrites it -->"
	referenceEnd   = "<!-- END key reference -->"
)

// reference returns the key reference of the serve config in Markdown: a
// table of each object's keys, with their types, defaults and what they
// say, generated from the spec.
func reference() []byte {
	var b bytes.Buffer
	referenceSection(&b, spec, "")
	return b.Bytes()
}

// referenceSection writes the table of an object's keys, then those of the
// objects it holds.
func referenceSection(b *bytes.Buffer, f *field, path string) {
	if path == "" {
		b.WriteString("### Top-level keys\n\n")
	} else {
		fmt.Fprintf(b, "### Keys of `%s`\n\n", path)
	}
	intro := f.doc
	if f.choice != nil {
		if f.choice.none != "" {
			intro += fmt.Sprintf(" Exactly one of %s.", orList(code(f.choice.keys)))
		} else {
			intro += fmt.Sprintf(" At most one of %s.", orList(code(f.choice.keys)))
		}
	}
	if intro = strings.TrimSpace(intro); intro != "" {
		b.WriteString(intro + "\n\n")
	}
	b.WriteString("| key | type | default | what it says |\n|---|---|---|---|\n")
	for _, c := range f.fields {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", c.key, cell(c.typeName()), cell(c.defaultText()), cell(c.docText()))
	}
	b.WriteString("\n")
	for _, c := range f.fields {
		if o, at := c.object(); o != nil {
			referenceSection(b, o, join(path, c.key)+at)
		}
	}
}

// object returns the object a field holds, itself or as the items of a
// list (at "[]"), nil for none.
func (f *field) object() (*field, string) {
	switch f.kind {
	case kindObject:
		return f, ""
	case kindList:
		o, at := f.elem.object()
		return o, "[]" + at
	case kindOneOf:
		for _, a := range f.alts {
			if o, at := a.object(); o != nil {
				return o, at
			}
		}
	}
	return nil, ""
}

// typeName names a field's type for the reference.
func (f *field) typeName() string {
	if f.typ != "" {
		return f.typ
	}
	switch f.kind {
	case kindString:
		if f.path {
			return "path"
		}
		return "string"
	case kindInt:
		return fmt.Sprintf("whole number, at least %v", f.min)
	case kindFloat:
		return fmt.Sprintf("number, at least %v", f.min)
	case kindSize:
		if f.zeroOff {
			return "size (`1MiB`, `64KiB`, `65536`), `0`: none"
		}
		return "size (`1MiB`, `64KiB`, `65536`)"
	case kindDuration:
		if f.zeroOff {
			return "duration, `0s`: off"
		}
		return "duration"
	case kindBool:
		return "`true` or `false`"
	case kindEnum:
		return orList(code(f.options))
	case kindJSON:
		return "JSON object"
	case kindList:
		t := "list of " + f.elem.typeName()
		switch {
		case f.uniqueBy != "":
			t += fmt.Sprintf(", each `%s` once", f.uniqueBy)
		case f.unique:
			t += ", each once"
		}
		return t
	case kindMap:
		return "map of " + f.elem.typeName()
	case kindObject:
		return "object"
	case kindOneOf:
		names := make([]string, len(f.alts))
		for i, a := range f.alts {
			names[i] = a.typeName()
		}
		return strings.Join(names, " or ")
	}
	return ""
}

// defaultText says a field's default for the reference.
func (f *field) defaultText() string {
	switch {
	case f.defDoc != "":
		return f.defDoc
	case f.def != "":
		return "`" + f.def + "`"
	case f.required != "":
		return "required"
	case f.kind == kindObject:
		return "its keys' defaults"
	}
	return "none"
}

// docText is what the reference says of a field: its doc and the rules
// it is under.
func (f *field) docText() string {
	s := f.doc
	if len(f.with) > 0 {
		s += fmt.Sprintf(" Only with %s.", orList(code(f.with)))
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

// spliceReference returns doc with the text between the reference markers
// replaced by the generated reference. It fails when doc lacks the
// markers.
func spliceReference(doc []byte) ([]byte, error) {
	begin := bytes.Index(doc, []byte(referenceBegin))
	end := bytes.Index(doc, []byte(referenceEnd))
	if begin < 0 || end < begin {
		return nil, fmt.Errorf("no %q ... %q markers", referenceBegin, referenceEnd)
	}
	var b bytes.Buffer
	b.Write(doc[:begin+len(referenceBegin)])
	b.WriteString("\n\n")
	b.Write(reference())
	b.Write(doc[end:])
	return b.Bytes(), nil
}
