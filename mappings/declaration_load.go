package mappings

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

// wordKinds are the vocabulary tables that word concepts take their words
// from.
var wordKinds = map[canonical.Concept]string{
	canonical.CAct:       canonical.KindAct,
	canonical.CPriority:  canonical.KindPriority,
	canonical.COutcome:   canonical.KindOutcome,
	canonical.CErrorCode: canonical.KindError,
}

// WordKind returns the vocabulary kind a word concept of a declaration
// takes its words from.
func WordKind(c canonical.Concept) string { return wordKinds[c] }

func (l *loader) declaration(v *spec.Value) {
	name := l.dialect
	if l.known0(name) && l.s.decls[name] == nil {
		l.fail(v.Pos(), "declare", "%q is a built-in dialect; a declaration names a new one", name)
		return
	}
	d := &Declaration{Name: name, File: l.file, Line: v.Pos().Line}
	for _, m := range v.List("detect") {
		d.Detect = append(d.Detect, Match{Path: m.Key(), Value: m.String()})
	}
	seen := map[string]string{}
fields:
	for _, fv := range v.List("fields") {
		c, _ := canonical.ParseConcept(fv.Key())
		p := fv.String()
		for other, oc := range seen {
			switch {
			case other == p:
				l.fail(fv.Pos(), fv.Path(), "path %q already holds %s", p, oc)
				continue fields
			case strings.HasPrefix(other, p+"."), strings.HasPrefix(p, other+"."):
				l.fail(fv.Pos(), fv.Path(), "path %q and %s's path %q overlap: a member is a value or an object, not both", p, oc, other)
				continue fields
			}
		}
		seen[p] = fv.Key()
		d.Fields = append(d.Fields, FieldPath{Concept: c, Path: p})
	}
	for _, rv := range v.List("required") {
		p := rv.String()
		if conceptAt(d, p) == noConcept && !marked(d, p) {
			l.fail(rv.Pos(), "declare.required", "%q is neither a field path nor a detect mark", p)
			continue
		}
		d.Required = append(d.Required, p)
	}
	if len(d.Detect) == 0 {
		l.fail(v.Pos(), "declare.detect", "missing: at least one member must mark the dialect's messages")
	}
	if d.Path(canonical.CAct) == "" {
		l.fail(v.Pos(), "declare.fields.act", "missing: a declared dialect says where a message's act is")
	}
	for _, m := range d.Detect {
		if m.Value == "*" && conceptAt(d, m.Path) == noConcept {
			l.fail(v.Pos(), "declare.detect."+m.Path, `a "*" mark must also be a field path`)
		}
	}
	l.decl = d
}

// checkDeclaration checks, once the file's vocabulary is read, that every
// word concept the declaration places has words.
func (l *loader) checkDeclaration() {
	for _, f := range l.decl.Fields {
		kind, isWord := wordKinds[f.Concept]
		if isWord && len(l.table(l.decl.Name, kind).Words()) == 0 {
			l.fail(spec.Pos{Line: l.decl.Line}, "declare.fields."+f.Concept.String(), "needs words: add vocabulary.%s", kind)
		}
	}
}

const noConcept = canonical.Concept(255)

// conceptAt returns the concept placed at path p, or noConcept.
func conceptAt(d *Declaration, p string) canonical.Concept {
	for _, f := range d.Fields {
		if f.Path == p {
			return f.Concept
		}
	}
	return noConcept
}

func marked(d *Declaration, p string) bool {
	for _, m := range d.Detect {
		if m.Path == p {
			return true
		}
	}
	return false
}

func declarableNames() []string {
	var out []string
	for _, c := range canonical.Concepts {
		if _, ok := DeclarableConcepts[c]; ok {
			out = append(out, c.String())
		}
	}
	return out
}
