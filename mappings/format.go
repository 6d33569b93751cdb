package mappings

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Format writes the effective mapping as mapping-file YAML: for each dialect
// (or only dialect, when not empty) its vocabulary tables and its aliases,
// then the operation names, act policies, rewrites and declarations that
// concern it. Each file the output shows could be loaded again.
func (s *Set) Format(w io.Writer, dialect string) error {
	names := s.Dialects()
	if dialect != "" {
		if _, ok := s.vocab[dialect]; !ok {
			return fmt.Errorf("unknown dialect %q (known: %s)", dialect, strings.Join(names, ", "))
		}
		names = []string{dialect}
	}
	p := &printer{w: w}
	for i, d := range names {
		if i > 0 {
			p.line(0, "---")
		}
		p.line(0, "dialect: %s", d)
		if decl := s.decls[d]; decl != nil {
			p.declaration(decl)
		}
		v := s.Vocabulary(d)
		if kinds := v.Kinds(); len(kinds) > 0 {
			p.line(0, "vocabulary:")
			for _, k := range kinds {
				p.table(v.Table(k))
			}
		}
		if a := s.aliases[d]; a != nil && len(a.order) > 0 {
			p.line(0, "aliases:")
			p.line(1, "%s:", d)
			for _, id := range a.order {
				p.line(2, "%s: %s", quote(id), quote(a.toDialect[id]))
			}
		}
		if pol := s.acts[d]; len(pol) > 0 {
			p.line(0, "acts:")
			p.line(1, "%s:", d)
			for _, act := range canonical.Acts {
				if ap, ok := pol[act]; ok {
					if ap.Do == PolicySendAs {
						p.line(2, "%s: {send_as: %s}   # %s:%d", act, ap.As, ap.File, ap.Line)
					} else {
						p.line(2, "%s: %s   # %s:%d", act, ap.Do, ap.File, ap.Line)
					}
				}
			}
		}
		var ops []Operation
		for _, op := range s.operations {
			if _, ok := op.Names[d]; ok {
				ops = append(ops, op)
			}
		}
		if len(ops) > 0 {
			p.line(0, "operations:")
			for _, op := range ops {
				p.line(1, "- {%s}   # %s:%d", joinNames(op.Names), op.File, op.Line)
			}
		}
		var rws []Rewrite
		for _, r := range s.rewrites {
			if r.When.From == "" || r.When.To == "" || r.When.From == d || r.When.To == d {
				rws = append(rws, r)
			}
		}
		if len(rws) > 0 {
			p.line(0, "rewrites:")
			for _, r := range rws {
				p.rewrite(r)
			}
		}
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(indent int, format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, "%s%s\n", strings.Repeat("  ", indent), fmt.Sprintf(format, args...))
	}
}

func (p *printer) table(t *Table) {
	p.line(1, "%s:", t.Kind)
	if t.foldCase {
		p.line(2, "fold_case: true")
	}
	p.line(2, "words:")
	for _, w := range t.order {
		p.line(3, "%s: %s", quote(w), t.decode[w])
	}
	if len(t.nearest) > 0 {
		p.line(2, "nearest:")
		for _, c := range sortedKeys(t.nearest) {
			p.line(3, "%s: %s", c, quote(t.nearest[c]))
		}
	}
}

func (p *printer) declaration(d *Declaration) {
	p.line(0, "declare:   # %s:%d", d.File, d.Line)
	p.line(1, "detect:")
	for _, m := range d.Detect {
		p.line(2, "%s: %s", m.Path, quote(m.Value))
	}
	p.line(1, "fields:")
	for _, f := range d.Fields {
		p.line(2, "%s: %s", f.Concept, f.Path)
	}
	if len(d.Required) > 0 {
		p.line(1, "required: [%s]", strings.Join(d.Required, ", "))
	}
}

func (p *printer) rewrite(r Rewrite) {
	var when []string
	for _, kv := range [][2]string{{"from", r.When.From}, {"to", r.When.To}, {"act", string(r.When.Act)}, {"operation", r.When.Operation}} {
		if kv[1] != "" {
			when = append(when, kv[0]+": "+quote(kv[1]))
		}
	}
	p.line(1, "- when: {%s}   # %s:%d", strings.Join(when, ", "), r.File, r.Line)
	p.line(2, "do:")
	for _, e := range r.Do {
		switch e.Op {
		case EditDelete, EditUnwrap:
			p.line(3, "- %s: %s", e.Op, e.Path)
		case EditRename:
			p.line(3, "- rename: {path: %s, to: %s}", e.Path, quote(e.Key))
		case EditMove:
			p.line(3, "- move: {from: %s, to: %s}", e.Path, e.To)
		case EditSet:
			p.line(3, "- set: {path: %s, value: %s}", e.Path, e.Value)
		case EditWrap:
			p.line(3, "- wrap: {path: %s, key: %s}", e.Path, quote(e.Key))
		}
	}
}

func joinNames(names map[string]string) string {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + quote(names[k])
	}
	return strings.Join(parts, ", ")
}

// quote returns s as a YAML scalar: plain when that reads back as the same
// string, double-quoted otherwise.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\\\n") || strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		return strconv.Quote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil || s[0] == '-' {
		return strconv.Quote(s)
	}
	return s
}
