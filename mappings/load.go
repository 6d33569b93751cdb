package mappings

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/located"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

var kindOrder = []string{canonical.KindAct, canonical.KindOutcome, canonical.KindError, canonical.KindPriority}

// Error is a problem in a mapping file, located by file, line and column
// (its text says file:line).
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
	d    *spec.Decoder
	errs Errors

	dialect    string
	tables     map[string]*Table
	aliases    map[string]*Aliases
	operations []Operation
	rewrites   []Rewrite
	acts       map[string]map[canonical.Act]ActPolicy
	decl       *Declaration
}

func (l *loader) fail(at spec.Pos, key, format string, args ...any) {
	l.d.Fail(at, key, format, args...)
}

// load decodes the file against the spec, then reads what it says, with
// the checks that need the set it is layered over.
func (l *loader) load(data []byte) {
	l.d = file.NewDecoder(l.file)
	if root := l.d.Decode(data); root != nil {
		l.read(root)
	}
	l.errs = l.d.Errors()
}

func (l *loader) read(root *spec.Value) {
	l.dialect = root.Str("dialect")
	for _, key := range []string{"vocabulary", "declare"} {
		if v := root.Get(key); v != nil && !root.Wrote("dialect") {
			l.fail(v.Pos(), "dialect", "missing: %s speaks of one dialect, named by dialect", key)
			return
		}
	}
	if l.dialect == "" && (root.Wrote("vocabulary") || root.Wrote("declare")) {
		return // dialect is there, but not a name
	}
	// The declaration first: the file's own dialect is then known to the
	// sections below.
	if v := root.Get("declare"); v != nil {
		l.declaration(v)
	}
	if v := root.Get("vocabulary"); v != nil {
		l.vocabulary(v)
	}
	if v := root.Get("aliases"); v != nil {
		l.aliasSection(v)
	}
	if v := root.Get("operations"); v != nil {
		l.operationSection(v)
	}
	if v := root.Get("acts"); v != nil {
		l.actSection(v)
	}
	if v := root.Get("rewrites"); v != nil {
		l.rewriteSection(v)
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

// dialectKey checks that a key naming a dialect names a known one.
func (l *loader) dialectKey(v *spec.Value) bool {
	if !l.known(v.Key()) {
		l.fail(v.KeyPos(), v.Path(), "unknown dialect (known: %s)", strings.Join(l.knownNames(), ", "))
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

func (l *loader) vocabulary(v *spec.Value) {
	l.tables = map[string]*Table{}
	for _, tv := range v.Items() {
		kind := tv.Node().Key()
		t := l.s.Vocabulary(l.dialect).Table(kind).clone()
		loadTable(tv, t)
		l.tables[kind] = t
	}
}

// loadTable layers a table's words, nearest words and fold_case over t.
func loadTable(v *spec.Value, t *Table) {
	if fc := v.Get("fold_case"); fc != nil {
		t.foldCase = fc.Boolean()
	}
	if words := v.Get("words"); words != nil {
		// The first word this file gives a value is the one written, over
		// any an earlier file gave.
		mine := map[string]string{}
		for _, w := range words.Items() {
			word, c := w.Key(), w.String()
			if _, ok := t.decode[word]; !ok {
				t.order = append(t.order, word)
			}
			t.decode[word] = c
			t.folded[strings.ToLower(word)] = c
			if _, ok := mine[c]; !ok {
				mine[c] = word
			}
		}
		t.reindex(mine)
	}
	for _, n := range v.List("nearest") {
		t.nearest[n.Key()] = n.String()
	}
	t.index()
}

func (l *loader) aliasSection(v *spec.Value) {
	l.aliases = map[string]*Aliases{}
	for _, dv := range v.Items() {
		if !l.dialectKey(dv) {
			continue
		}
		dialect := dv.Key()
		a := cloneAliases(l.s.aliases[dialect])
		lines := map[string]int{} // dialect id -> line, within this file
		for _, cv := range dv.Items() {
			canon, id := cv.Key(), cv.String()
			if other, taken := a.toCanonical[id]; taken && other != canon {
				where := ""
				if line, ok := lines[id]; ok {
					where = fmt.Sprintf(" (line %d)", line)
				}
				l.fail(cv.Pos(), cv.Path(), "maps a second id to %q: %s%s already is %q", id, other, where, id)
				continue
			}
			if old, had := a.toDialect[canon]; had {
				delete(a.toCanonical, old)
			} else {
				a.order = append(a.order, canon)
			}
			a.toDialect[canon] = id
			a.toCanonical[id] = canon
			lines[id] = cv.Pos().Line
		}
		l.aliases[dialect] = a
	}
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

func (l *loader) operationSection(v *spec.Value) {
	seen := map[string]int{} // dialect + "\x00" + name -> line
	for _, ev := range v.Items() {
		op := Operation{Names: map[string]string{}, File: l.file, Line: ev.Pos().Line}
		for _, nv := range ev.Items() {
			if !l.dialectKey(nv) {
				continue
			}
			dialect, name := nv.Key(), nv.String()
			id := dialect + "\x00" + name
			if first, dup := seen[id]; dup {
				l.fail(nv.Pos(), nv.Path(), "duplicate entry: %s operation %q is already mapped at line %d", dialect, name, first)
				continue
			}
			seen[id] = nv.Pos().Line
			op.Names[dialect] = name
		}
		if len(op.Names) < 2 {
			l.fail(ev.Pos(), ev.Path(), "an entry names the operation in at least two dialects")
			continue
		}
		l.operations = append(l.operations, op)
	}
}

func (l *loader) actSection(v *spec.Value) {
	l.acts = map[string]map[canonical.Act]ActPolicy{}
	for _, dv := range v.Items() {
		if !l.dialectKey(dv) {
			continue
		}
		dialect := dv.Key()
		acts := l.table(dialect, canonical.KindAct)
		pol := map[canonical.Act]ActPolicy{}
		for _, pv := range dv.Items() {
			act := canonical.Act(pv.Key())
			if w, _, ok := acts.Word(string(act)); ok {
				l.fail(pv.KeyPos(), pv.Path(), "never applies: %s writes %s as %q; a policy is for acts it cannot express", dialect, act, w)
				continue
			}
			p := ActPolicy{File: l.file, Line: pv.Pos().Line}
			if pv.Node().Kind() == spec.KindEnum {
				p.Do = pv.String()
			} else {
				as := pv.Get(PolicySendAs)
				if as == nil {
					continue
				}
				if _, _, ok := acts.Word(as.String()); !ok {
					l.fail(as.Pos(), as.Path(), "%s cannot express %s either", dialect, as.String())
					continue
				}
				p.Do, p.As = PolicySendAs, canonical.Act(as.String())
			}
			pol[act] = p
		}
		l.acts[dialect] = pol
	}
}

func (l *loader) rewriteSection(v *spec.Value) {
	for _, rv := range v.Items() {
		do := rv.Get("do")
		if do == nil {
			continue
		}
		r := Rewrite{File: l.file, Line: rv.Pos().Line, Do: l.edits(do)}
		if w := rv.Get("when"); w != nil {
			r.When = l.condition(w)
		}
		l.rewrites = append(l.rewrites, r)
	}
}

func (l *loader) condition(v *spec.Value) Condition {
	dialect := func(key string) string {
		d := v.Get(key)
		if d == nil {
			return ""
		}
		if !l.known(d.String()) {
			l.fail(d.Pos(), d.Path(), "unknown dialect %q (known: %s)", d.String(), strings.Join(l.knownNames(), ", "))
			return ""
		}
		return d.String()
	}
	c := Condition{From: dialect("from"), To: dialect("to"), Act: canonical.Act(v.Str("act")), Operation: v.Str("operation")}
	if c.To != "" && c.Act != "" {
		if _, _, ok := l.table(c.To, canonical.KindAct).Word(string(c.Act)); !ok {
			act := v.Get("act")
			l.fail(act.Pos(), act.Path(), "the rule can never match: %s cannot express %s", c.To, c.Act)
		}
	}
	return c
}

func (l *loader) edits(v *spec.Value) []Edit {
	var out []Edit
	for _, ev := range v.Items() {
		items := ev.Items() // the one edit given, when it decoded
		if len(items) != 1 {
			continue
		}
		arg := items[0]
		e := Edit{Op: arg.Node().Key()}
		ok := true
		switch e.Op {
		case EditDelete, EditUnwrap:
			e.Path, ok = l.payloadPath(arg)
			if ok && e.Op == EditUnwrap && e.Path.Sub == "" {
				l.fail(arg.Pos(), arg.Path(), "unwrap names a member inside a field (arguments.task_parameters)")
				ok = false
			}
		default:
			ok = l.editArgs(&e, arg)
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// editArgs reads the arguments of the edits that take several.
func (l *loader) editArgs(e *Edit, v *spec.Value) bool {
	var ok bool
	switch e.Op {
	case EditRename:
		if e.Path, ok = l.payloadPath(v.Get("path")); !ok {
			return false
		}
		if e.Path.Sub == "" {
			l.fail(v.Get("path").Pos(), v.Get("path").Path(), "rename names a member inside a field")
			return false
		}
		e.Key, ok = l.memberName(v.Get("to"))
	case EditMove:
		if e.Path, ok = l.payloadPath(v.Get("from")); !ok {
			return false
		}
		if e.To, ok = l.payloadPath(v.Get("to")); ok && e.To == e.Path {
			l.fail(v.Get("to").Pos(), v.Get("to").Path(), "moves %s onto itself", e.Path)
			ok = false
		}
	case EditSet:
		if e.Path, ok = l.payloadPath(v.Get("path")); !ok {
			return false
		}
		value := v.Get("value")
		if value == nil {
			return false
		}
		raw, err := json.Marshal(value.Any())
		if err != nil {
			l.fail(value.Pos(), value.Path(), "not a JSON value: %v", err)
			return false
		}
		e.Value = canonical.JSON(raw)
	case EditWrap:
		if e.Path, ok = l.payloadPath(v.Get("path")); !ok {
			return false
		}
		e.Key, ok = l.memberName(v.Get("key"))
	}
	return ok
}

// payloadPath reads a payload path; v is nil when it did not decode.
func (l *loader) payloadPath(v *spec.Value) (PayloadPath, bool) {
	if v == nil {
		return PayloadPath{}, false
	}
	p, problem := parsePayloadPath(v.String())
	if problem != "" {
		l.fail(v.Pos(), v.Path(), "malformed path %q: %s", v.String(), problem)
		return PayloadPath{}, false
	}
	return p, true
}

// memberName reads a member name; v is nil when it did not decode.
func (l *loader) memberName(v *spec.Value) (string, bool) {
	if v == nil {
		return "", false
	}
	s := v.String()
	if strings.ContainsAny(s, `.*?#|@\`) {
		l.fail(v.Pos(), v.Path(), "malformed member name %q: a plain name, no path", s)
		return "", false
	}
	return s, true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
