package mappings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/located"
	"gopkg.in/yaml.v3"
)

var kindOrder = []string{canonical.KindAct, canonical.KindOutcome, canonical.KindError, canonical.KindPriority}

// Error is a problem in a mapping file, located by file and line.
type Error = located.Error

// Errors are all the problems found in a mapping file.
type Errors = located.Errors

// Add layers one mapping file over the set: its words, aliases, operation
// names, act policies and rewrites are added to, or replace, those already
// there, and a dialect it declares becomes known. name is used in errors.
// A file with problems changes nothing; the error is an Errors listing
// every problem, each with its line.
func (s *Set) Add(name string, data []byte) error {
	l := &loader{s: s, file: name}
	l.load(data)
	if len(l.errs) > 0 {
		return l.errs
	}
	l.commit()
	return nil
}

// loader reads one file into staged changes, committed only when the whole
// file is sound.
type loader struct {
	s    *Set
	file string
	errs Errors

	dialect    string
	tables     map[string]*Table
	aliases    map[string]*Aliases
	operations []Operation
	rewrites   []Rewrite
	acts       map[string]map[canonical.Act]ActPolicy
	decl       *Declaration
}

func (l *loader) fail(line int, key, format string, args ...any) {
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (l *loader) load(data []byte) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		line, msg := yamlErrLine(err)
		l.fail(line, "", "%s", msg)
		return
	}
	if len(doc.Content) == 0 {
		l.fail(1, "", "empty mapping file")
		return
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		l.fail(root.Line, "", "a mapping file is a YAML mapping")
		return
	}
	sections := map[string]*yaml.Node{}
	l.pairs("", root, func(k, v *yaml.Node) {
		switch k.Value {
		case "dialect":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				l.fail(v.Line, "dialect", "must be a dialect name")
				return
			}
			l.dialect = v.Value
		case "vocabulary", "aliases", "operations", "rewrites", "acts", "declare":
			sections[k.Value] = v
		default:
			l.fail(k.Line, k.Value, "unknown key (want dialect, vocabulary, aliases, operations, rewrites, acts, declare)")
		}
	})
	for _, key := range []string{"vocabulary", "declare"} {
		if n := sections[key]; n != nil && l.dialect == "" {
			l.fail(n.Line, "dialect", "missing: %s speaks of one dialect, named by dialect", key)
			return
		}
	}
	// The declaration first: the file's own dialect is then known to the
	// sections below.
	if n := sections["declare"]; n != nil {
		l.declaration(n)
	}
	if n := sections["vocabulary"]; n != nil {
		l.vocabulary(n)
	}
	if n := sections["aliases"]; n != nil {
		l.aliasSection(n)
	}
	if n := sections["operations"]; n != nil {
		l.operationSection(n)
	}
	if n := sections["acts"]; n != nil {
		l.actSection(n)
	}
	if n := sections["rewrites"]; n != nil {
		l.rewriteSection(n)
	}
	if l.decl != nil {
		l.checkDeclaration()
	}
}

// commit applies the staged changes to the set.
func (l *loader) commit() {
	s := l.s
	if s.vocab == nil {
		s.vocab = map[string]*Vocabulary{}
	}
	if l.dialect != "" && (l.tables != nil || l.decl != nil) {
		v := s.vocab[l.dialect]
		if v == nil {
			v = &Vocabulary{Dialect: l.dialect, tables: map[string]*Table{}}
			s.vocab[l.dialect] = v
		}
		for k, t := range l.tables {
			v.tables[k] = t
		}
	}
	for d, a := range l.aliases {
		if s.aliases == nil {
			s.aliases = map[string]*Aliases{}
		}
		s.aliases[d] = a
	}
	s.operations = append(s.operations, l.operations...)
	s.rewrites = append(s.rewrites, l.rewrites...)
	for d, pol := range l.acts {
		if s.acts == nil {
			s.acts = map[string]map[canonical.Act]ActPolicy{}
		}
		if s.acts[d] == nil {
			s.acts[d] = map[canonical.Act]ActPolicy{}
		}
		for a, p := range pol {
			s.acts[d][a] = p
		}
	}
	if l.decl != nil {
		if s.decls == nil {
			s.decls = map[string]*Declaration{}
		}
		s.decls[l.decl.Name] = l.decl
	}
	s.files = append(s.files, l.file)
}

// known reports whether a dialect is known: a built-in one (it has default
// words), one declared by an earlier file, or this file's own declaration.
func (l *loader) known(dialect string) bool {
	if l.decl != nil && l.decl.Name == dialect {
		return true
	}
	_, ok := l.s.vocab[dialect]
	return ok
}

// table returns the effective act (or other kind) table of a dialect,
// counting this file's staged words.
func (l *loader) table(dialect, kind string) *Table {
	if dialect == l.dialect && l.tables[kind] != nil {
		return l.tables[kind]
	}
	return l.s.Vocabulary(dialect).Table(kind)
}

func (l *loader) dialectKey(k *yaml.Node, key string) bool {
	if !l.known(k.Value) {
		l.fail(k.Line, key, "unknown dialect (known: %s)", strings.Join(l.knownNames(), ", "))
		return false
	}
	return true
}

func (l *loader) knownNames() []string {
	names := l.s.Dialects()
	if l.decl != nil && !l.known0(l.decl.Name) {
		names = append(names, l.decl.Name)
		sort.Strings(names)
	}
	return names
}

func (l *loader) known0(d string) bool { _, ok := l.s.vocab[d]; return ok }

// pairs calls fn for each key and value of a mapping node, refusing
// duplicate and non-scalar keys.
func (l *loader) pairs(prefix string, n *yaml.Node, fn func(k, v *yaml.Node)) {
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			l.fail(k.Line, prefix, "keys must be plain words")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			l.fail(k.Line, prefix+k.Value, "duplicate key (first at line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		fn(k, v)
	}
}

// mapping checks that n is a mapping, naming what it should map.
func (l *loader) mapping(n *yaml.Node, key, what string) bool {
	if n.Kind != yaml.MappingNode {
		l.fail(n.Line, key, "must be a mapping of %s", what)
		return false
	}
	return true
}

// scalar returns n's text, failing when n is not a non-empty scalar.
func (l *loader) scalar(n *yaml.Node, key, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Value == "" || n.Tag == "!!null" {
		l.fail(n.Line, key, "must be %s", what)
		return "", false
	}
	return n.Value, true
}

// act reads a canonical act name.
func (l *loader) act(n *yaml.Node, key string) (canonical.Act, bool) {
	a, ok := l.scalar(n, key, "a canonical act")
	if !ok {
		return "", false
	}
	if !canonical.Act(a).Valid() {
		l.fail(n.Line, key, "%q is not a canonical act (want one of %s)", a, strings.Join(canonical.CanonicalValues(canonical.KindAct), ", "))
		return "", false
	}
	return canonical.Act(a), true
}

func (l *loader) vocabulary(n *yaml.Node) {
	if !l.mapping(n, "vocabulary", "table kinds") {
		return
	}
	l.tables = map[string]*Table{}
	l.pairs("vocabulary.", n, func(k, tn *yaml.Node) {
		kind := k.Value
		if canonical.CanonicalValues(kind) == nil {
			l.fail(k.Line, "vocabulary."+kind, "unknown table kind (want %s)", strings.Join(kindOrder, ", "))
			return
		}
		t := l.s.Vocabulary(l.dialect).Table(kind).clone()
		l.loadTable("vocabulary."+kind, tn, t)
		l.tables[kind] = t
	})
}

func (l *loader) loadTable(key string, n *yaml.Node, t *Table) {
	if !l.mapping(n, key, "words, nearest, fold_case") {
		return
	}
	allowed := canonical.CanonicalValues(t.Kind)
	check := func(v *yaml.Node, at string) bool {
		for _, a := range allowed {
			if v.Value == a {
				return true
			}
		}
		l.fail(v.Line, at, "%q is not a canonical %s (want one of %s)", v.Value, t.Kind, strings.Join(allowed, ", "))
		return false
	}
	l.pairs(key+".", n, func(k, v *yaml.Node) {
		at := key + "." + k.Value
		switch k.Value {
		case "fold_case":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
				l.fail(v.Line, at, "must be true or false")
				return
			}
			t.foldCase = b
		case "words":
			if !l.mapping(v, at, "words to canonical values") {
				return
			}
			// The first word this file gives a value is the one written,
			// over any an earlier file gave.
			mine := map[string]string{}
			l.pairs(at+".", v, func(w, c *yaml.Node) {
				wat := at + "." + w.Value
				if c.Kind != yaml.ScalarNode {
					l.fail(c.Line, wat, "must be a canonical value")
					return
				}
				if !check(c, wat) {
					return
				}
				if _, ok := t.decode[w.Value]; !ok {
					t.order = append(t.order, w.Value)
				}
				t.decode[w.Value] = c.Value
				t.folded[strings.ToLower(w.Value)] = c.Value
				if _, ok := mine[c.Value]; !ok {
					mine[c.Value] = w.Value
				}
			})
			t.reindex(mine)
		case "nearest":
			if !l.mapping(v, at, "canonical values to words") {
				return
			}
			l.pairs(at+".", v, func(c, w *yaml.Node) {
				if !check(c, at+"."+c.Value) {
					return
				}
				if word, ok := l.scalar(w, at+"."+c.Value, "a word of the dialect"); ok {
					t.nearest[c.Value] = word
				}
			})
		default:
			l.fail(k.Line, at, "unknown key (want words, nearest, fold_case)")
		}
	})
}

func (l *loader) aliasSection(n *yaml.Node) {
	if !l.mapping(n, "aliases", "dialects to their aliases") {
		return
	}
	l.aliases = map[string]*Aliases{}
	l.pairs("aliases.", n, func(dk, dn *yaml.Node) {
		key := "aliases." + dk.Value
		if !l.dialectKey(dk, key) || !l.mapping(dn, key, "canonical agent ids to the ids "+dk.Value+" uses") {
			return
		}
		a := cloneAliases(l.s.aliases[dk.Value])
		lines := map[string]int{} // dialect id -> line, within this file
		l.pairs(key+".", dn, func(ck, cv *yaml.Node) {
			id, ok := l.scalar(cv, key+"."+ck.Value, "the id "+dk.Value+" uses for "+ck.Value)
			if !ok {
				return
			}
			if other, taken := a.toCanonical[id]; taken && other != ck.Value {
				where := ""
				if line, ok := lines[id]; ok {
					where = fmt.Sprintf(" (line %d)", line)
				}
				l.fail(cv.Line, key+"."+ck.Value, "maps a second id to %q: %s%s already is %q", id, other, where, id)
				return
			}
			if old, had := a.toDialect[ck.Value]; had {
				delete(a.toCanonical, old)
			} else {
				a.order = append(a.order, ck.Value)
			}
			a.toDialect[ck.Value] = id
			a.toCanonical[id] = ck.Value
			lines[id] = cv.Line
		})
		l.aliases[dk.Value] = a
	})
}

func cloneAliases(a *Aliases) *Aliases {
	c := &Aliases{toDialect: map[string]string{}, toCanonical: map[string]string{}}
	if a != nil {
		for k, v := range a.toDialect {
			c.toDialect[k] = v
		}
		for k, v := range a.toCanonical {
			c.toCanonical[k] = v
		}
		c.order = append(c.order, a.order...)
	}
	return c
}

func (l *loader) operationSection(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		l.fail(n.Line, "operations", "must be a list of entries, each naming one operation in several dialects")
		return
	}
	seen := map[string]int{} // dialect + "\x00" + name -> line
	for i, en := range n.Content {
		key := fmt.Sprintf("operations[%d]", i)
		if !l.mapping(en, key, "dialects to the operation's name in each") {
			continue
		}
		op := Operation{Names: map[string]string{}, File: l.file, Line: en.Line}
		l.pairs(key+".", en, func(dk, nv *yaml.Node) {
			at := key + "." + dk.Value
			if !l.dialectKey(dk, at) {
				return
			}
			name, ok := l.scalar(nv, at, "the operation's name in "+dk.Value)
			if !ok {
				return
			}
			id := dk.Value + "\x00" + name
			if first, dup := seen[id]; dup {
				l.fail(nv.Line, at, "duplicate entry: %s operation %q is already mapped at line %d", dk.Value, name, first)
				return
			}
			seen[id] = nv.Line
			op.Names[dk.Value] = name
		})
		if len(op.Names) < 2 {
			l.fail(en.Line, key, "an entry names the operation in at least two dialects")
			continue
		}
		l.operations = append(l.operations, op)
	}
}

func (l *loader) actSection(n *yaml.Node) {
	if !l.mapping(n, "acts", "target dialects to their act policies") {
		return
	}
	l.acts = map[string]map[canonical.Act]ActPolicy{}
	l.pairs("acts.", n, func(dk, dn *yaml.Node) {
		key := "acts." + dk.Value
		if !l.dialectKey(dk, key) || !l.mapping(dn, key, "acts to policies (reject, drop, or {send_as: ACT})") {
			return
		}
		acts := l.table(dk.Value, canonical.KindAct)
		pol := map[canonical.Act]ActPolicy{}
		l.pairs(key+".", dn, func(ak, pv *yaml.Node) {
			at := key + "." + ak.Value
			act, ok := l.act(ak, at)
			if !ok {
				return
			}
			if w, _, ok := acts.Word(string(act)); ok {
				l.fail(ak.Line, at, "never applies: %s writes %s as %q; a policy is for acts it cannot express", dk.Value, act, w)
				return
			}
			p := ActPolicy{File: l.file, Line: pv.Line}
			switch {
			case pv.Kind == yaml.ScalarNode && (pv.Value == PolicyReject || pv.Value == PolicyDrop):
				p.Do = pv.Value
			case pv.Kind == yaml.MappingNode:
				l.pairs(at+".", pv, func(k, v *yaml.Node) {
					if k.Value != PolicySendAs {
						l.fail(k.Line, at+"."+k.Value, "unknown key (want send_as)")
						return
					}
					as, ok := l.act(v, at+".send_as")
					if !ok {
						return
					}
					if _, _, ok := acts.Word(string(as)); !ok {
						l.fail(v.Line, at+".send_as", "%s cannot express %s either", dk.Value, as)
						return
					}
					p.Do, p.As = PolicySendAs, as
				})
				if p.Do == "" {
					return
				}
			default:
				l.fail(pv.Line, at, "must be reject, drop, or {send_as: ACT}")
				return
			}
			pol[act] = p
		})
		l.acts[dk.Value] = pol
	})
}

func (l *loader) rewriteSection(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		l.fail(n.Line, "rewrites", "must be a list of rules, each with when and do")
		return
	}
	for i, rn := range n.Content {
		key := fmt.Sprintf("rewrites[%d]", i)
		if !l.mapping(rn, key, "when and do") {
			continue
		}
		r := Rewrite{File: l.file, Line: rn.Line}
		var hasDo bool
		l.pairs(key+".", rn, func(k, v *yaml.Node) {
			switch k.Value {
			case "when":
				r.When = l.condition(key+".when", v)
			case "do":
				hasDo = true
				r.Do = l.edits(key+".do", v)
			default:
				l.fail(k.Line, key+"."+k.Value, "unknown key (want when, do)")
			}
		})
		if !hasDo {
			l.fail(rn.Line, key, "a rule needs do: a list of edits")
			continue
		}
		l.rewrites = append(l.rewrites, r)
	}
}

func (l *loader) condition(key string, n *yaml.Node) Condition {
	var c Condition
	if !l.mapping(n, key, "from, to, act, operation") {
		return c
	}
	var actLine int
	l.pairs(key+".", n, func(k, v *yaml.Node) {
		at := key + "." + k.Value
		switch k.Value {
		case "from", "to":
			d, ok := l.scalar(v, at, "a dialect")
			if !ok {
				return
			}
			if !l.known(d) {
				l.fail(v.Line, at, "unknown dialect %q (known: %s)", d, strings.Join(l.knownNames(), ", "))
				return
			}
			if k.Value == "from" {
				c.From = d
			} else {
				c.To = d
			}
		case "act":
			c.Act, _ = l.act(v, at)
			actLine = v.Line
		case "operation":
			c.Operation, _ = l.scalar(v, at, "an operation name")
		default:
			l.fail(k.Line, at, "unknown key (want from, to, act, operation)")
		}
	})
	if c.To != "" && c.Act != "" {
		if _, _, ok := l.table(c.To, canonical.KindAct).Word(string(c.Act)); !ok {
			l.fail(actLine, key+".act", "the rule can never match: %s cannot express %s", c.To, c.Act)
		}
	}
	return c
}

func (l *loader) edits(key string, n *yaml.Node) []Edit {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		l.fail(n.Line, key, "must be a list of edits (rename, move, set, delete, wrap, unwrap)")
		return nil
	}
	var out []Edit
	for i, en := range n.Content {
		at := fmt.Sprintf("%s[%d]", key, i)
		if en.Kind != yaml.MappingNode || len(en.Content) != 2 {
			l.fail(en.Line, at, "an edit is one of rename, move, set, delete, wrap, unwrap")
			continue
		}
		op, arg := en.Content[0], en.Content[1]
		at += "." + op.Value
		e := Edit{Op: op.Value}
		ok := true
		switch op.Value {
		case EditDelete, EditUnwrap:
			e.Path, ok = l.payloadPath(arg, at)
			if ok && op.Value == EditUnwrap && e.Path.Sub == "" {
				l.fail(arg.Line, at, "unwrap names a member inside a field (arguments.task_parameters)")
				ok = false
			}
		case EditRename, EditMove, EditSet, EditWrap:
			ok = l.editArgs(&e, arg, at)
		default:
			l.fail(op.Line, at, "unknown edit (want rename, move, set, delete, wrap, unwrap)")
			ok = false
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// editArgs reads the arguments of the edits that take several.
func (l *loader) editArgs(e *Edit, n *yaml.Node, at string) bool {
	want := map[string][]string{
		EditRename: {"path", "to"},
		EditMove:   {"from", "to"},
		EditSet:    {"path", "value"},
		EditWrap:   {"path", "key"},
	}[e.Op]
	if !l.mapping(n, at, strings.Join(want, " and ")) {
		return false
	}
	got := map[string]*yaml.Node{}
	ok := true
	l.pairs(at+".", n, func(k, v *yaml.Node) {
		for _, w := range want {
			if k.Value == w {
				got[w] = v
				return
			}
		}
		l.fail(k.Line, at+"."+k.Value, "unknown key (want %s)", strings.Join(want, ", "))
		ok = false
	})
	for _, w := range want {
		if got[w] == nil {
			l.fail(n.Line, at+"."+w, "missing")
			ok = false
		}
	}
	if !ok {
		return false
	}
	switch e.Op {
	case EditRename:
		if e.Path, ok = l.payloadPath(got["path"], at+".path"); !ok {
			return false
		}
		if e.Path.Sub == "" {
			l.fail(got["path"].Line, at+".path", "rename names a member inside a field")
			return false
		}
		e.Key, ok = l.memberName(got["to"], at+".to")
	case EditMove:
		if e.Path, ok = l.payloadPath(got["from"], at+".from"); !ok {
			return false
		}
		if e.To, ok = l.payloadPath(got["to"], at+".to"); ok && e.To == e.Path {
			l.fail(got["to"].Line, at+".to", "moves %s onto itself", e.Path)
			ok = false
		}
	case EditSet:
		if e.Path, ok = l.payloadPath(got["path"], at+".path"); !ok {
			return false
		}
		var v any
		if err := got["value"].Decode(&v); err != nil {
			l.fail(got["value"].Line, at+".value", "%v", err)
			return false
		}
		raw, err := json.Marshal(v)
		if err != nil {
			l.fail(got["value"].Line, at+".value", "not a JSON value: %v", err)
			return false
		}
		e.Value = canonical.JSON(raw)
	case EditWrap:
		if e.Path, ok = l.payloadPath(got["path"], at+".path"); !ok {
			return false
		}
		e.Key, ok = l.memberName(got["key"], at+".key")
	}
	return ok
}

func (l *loader) payloadPath(n *yaml.Node, at string) (PayloadPath, bool) {
	s, ok := l.scalar(n, at, "a payload path (arguments.x.y)")
	if !ok {
		return PayloadPath{}, false
	}
	p, problem := parsePayloadPath(s)
	if problem != "" {
		l.fail(n.Line, at, "malformed path %q: %s", s, problem)
		return PayloadPath{}, false
	}
	return p, true
}

func (l *loader) memberName(n *yaml.Node, at string) (string, bool) {
	s, ok := l.scalar(n, at, "a member name")
	if ok && strings.ContainsAny(s, `.*?#|@\`) {
		l.fail(n.Line, at, "malformed member name %q: a plain name, no path", s)
		return "", false
	}
	return s, ok
}

// yamlErrLine splits a yaml.v3 syntax error into its line and message.
func yamlErrLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, e := fmt.Sscanf(msg, "line %d:", &line); e == nil {
		_, rest, _ := strings.Cut(msg, ": ")
		return line, rest
	}
	if msg == "EOF" {
		msg = "empty mapping file"
	}
	return 1, msg
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
