package mappings

import (
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"gopkg.in/yaml.v3"
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

func (l *loader) declaration(n *yaml.Node) {
	name := l.dialect
	if l.known0(name) && l.s.decls[name] == nil {
		l.fail(n.Line, "declare", "%q is a built-in dialect; a declaration names a new one", name)
		return
	}
	if !l.mapping(n, "declare", "detect, fields, required") {
		return
	}
	d := &Declaration{Name: name, File: l.file, Line: n.Line}
	var requiredNode *yaml.Node
	l.pairs("declare.", n, func(k, v *yaml.Node) {
		at := "declare." + k.Value
		switch k.Value {
		case "detect":
			if !l.mapping(v, at, "member paths to the values that mark the dialect") {
				return
			}
			l.pairs(at+".", v, func(pk, pv *yaml.Node) {
				if !l.declPath(pk.Value, pk.Line, at+"."+pk.Value) {
					return
				}
				if val, ok := l.scalar(pv, at+"."+pk.Value, `the value that marks the dialect ("*": present)`); ok {
					d.Detect = append(d.Detect, Match{Path: pk.Value, Value: val})
				}
			})
		case "fields":
			if !l.mapping(v, at, "canonical concepts to member paths") {
				return
			}
			seen := map[string]string{}
			l.pairs(at+".", v, func(ck, pv *yaml.Node) {
				fat := at + "." + ck.Value
				c, ok := canonical.ParseConcept(ck.Value)
				if _, can := DeclarableConcepts[c]; !ok || !can {
					l.fail(ck.Line, fat, "not a concept a declared dialect can place (want one of %s)", strings.Join(declarableNames(), ", "))
					return
				}
				p, ok := l.scalar(pv, fat, "a member path")
				if !ok || !l.declPath(p, pv.Line, fat) {
					return
				}
				for other, oc := range seen {
					switch {
					case other == p:
						l.fail(pv.Line, fat, "path %q already holds %s", p, oc)
						return
					case strings.HasPrefix(other, p+"."), strings.HasPrefix(p, other+"."):
						l.fail(pv.Line, fat, "path %q and %s's path %q overlap: a member is a value or an object, not both", p, oc, other)
						return
					}
				}
				seen[p] = ck.Value
				d.Fields = append(d.Fields, FieldPath{Concept: c, Path: p})
			})
		case "required":
			requiredNode = v
		default:
			l.fail(k.Line, at, "unknown key (want detect, fields, required)")
		}
	})
	if requiredNode != nil {
		if requiredNode.Kind != yaml.SequenceNode {
			l.fail(requiredNode.Line, "declare.required", "must be a list of member paths")
		} else {
			for _, rn := range requiredNode.Content {
				p, ok := l.scalar(rn, "declare.required", "a member path")
				if !ok {
					continue
				}
				if conceptAt(d, p) == noConcept && !marked(d, p) {
					l.fail(rn.Line, "declare.required", "%q is neither a field path nor a detect mark", p)
					continue
				}
				d.Required = append(d.Required, p)
			}
		}
	}
	if len(d.Detect) == 0 {
		l.fail(n.Line, "declare.detect", "missing: at least one member must mark the dialect's messages")
	}
	if d.Path(canonical.CAct) == "" {
		l.fail(n.Line, "declare.fields.act", "missing: a declared dialect says where a message's act is")
	}
	for _, m := range d.Detect {
		if m.Value == "*" && conceptAt(d, m.Path) == noConcept {
			l.fail(n.Line, "declare.detect."+m.Path, `a "*" mark must also be a field path`)
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
			l.fail(l.decl.Line, "declare.fields."+f.Concept.String(), "needs words: add vocabulary.%s", kind)
		}
	}
}

// declPath checks a member path of a declaration: plain names joined by dots.
func (l *loader) declPath(p string, line int, at string) bool {
	for _, seg := range strings.Split(p, ".") {
		if seg == "" || strings.ContainsAny(seg, `*?#|@\"`) {
			l.fail(line, at, "malformed path %q: plain member names joined by dots", p)
			return false
		}
	}
	return true
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
