package translate

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The fields the random edits go into.
var testFields = []string{"arguments", "context", "result"}

// docGen writes random JSON objects: members from a small set of names
// (some escaped, some named twice), values of every kind, compact or with
// whitespace between the tokens.
type docGen struct {
	r      *rand.Rand
	pretty bool
	plain  bool // no escaped names, no name twice: JSON readers agree on it
}

var plainNames = []string{`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"x-y"`}

var oddNames = []string{`"\u0062"`, `"q\"u"`, `"a"`, `"\ud800\u0041"`}

func (g *docGen) space(b *strings.Builder) {
	if g.pretty && g.r.Intn(3) > 0 {
		b.WriteString([]string{" ", "\n  ", "\t", "  \r\n"}[g.r.Intn(4)])
	}
}

func (g *docGen) object(b *strings.Builder, depth int) {
	b.WriteString("{")
	n := g.r.Intn(6)
	used := map[string]bool{}
	for i := 0; i < n; i++ {
		name := plainNames[g.r.Intn(len(plainNames))]
		if !g.plain && g.r.Intn(6) == 0 {
			name = oddNames[g.r.Intn(len(oddNames))]
		}
		if g.plain && used[name] {
			continue
		}
		if len(used) > 0 {
			b.WriteString(",")
		}
		used[name] = true
		g.space(b)
		b.WriteString(name)
		g.space(b)
		b.WriteString(":")
		g.space(b)
		g.value(b, depth)
		g.space(b)
	}
	b.WriteString("}")
}

func (g *docGen) value(b *strings.Builder, depth int) {
	k := g.r.Intn(8)
	if depth == 0 && k >= 5 {
		k = g.r.Intn(5)
	}
	switch k {
	case 0:
		b.WriteString([]string{"1", "-2.5", "0", "1e3"}[g.r.Intn(4)])
	case 1:
		b.WriteString([]string{`"s"`, `"t\"x"`, `""`, `"{\"a\":1}"`}[g.r.Intn(4)])
	case 2:
		b.WriteString([]string{"true", "false", "null"}[g.r.Intn(3)])
	case 3, 4:
		b.WriteString(`"v"`)
	case 5:
		b.WriteString("[")
		for i, n := 0, g.r.Intn(3); i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			g.space(b)
			g.value(b, depth-1)
		}
		b.WriteString("]")
	default:
		g.object(b, depth-1)
	}
}

func (g *docGen) doc() string {
	if !g.plain && g.r.Intn(5) == 0 {
		return ""
	}
	var b strings.Builder
	if g.pretty && g.r.Intn(2) == 0 {
		b.WriteString(" ")
	}
	g.object(&b, 3)
	return b.String()
}

// editGen writes random edit sequences over paths into testFields.
type editGen struct{ r *rand.Rand }

var pathSegments = []string{"a", "b", "c", "d", "e", "x-y", "q", "0"}

func (g editGen) path() mappings.PayloadPath {
	p := mappings.PayloadPath{Field: testFields[g.r.Intn(len(testFields))]}
	if g.r.Intn(20) == 0 {
		return p
	}
	segs := make([]string, 1+g.r.Intn(3))
	for i := range segs {
		segs[i] = pathSegments[g.r.Intn(len(pathSegments)-1)]
		if g.r.Intn(25) == 0 {
			segs[i] = "0"
		}
	}
	p.Sub = strings.Join(segs, ".")
	return p
}

func (g editGen) name() string {
	return []string{"a", "b", "c", "n", `q"u`, "<&>"}[g.r.Intn(6)]
}

func (g editGen) edits() []mappings.Edit {
	out := make([]mappings.Edit, 1+g.r.Intn(6))
	for i := range out {
		e := mappings.Edit{Path: g.path()}
		switch g.r.Intn(11) {
		case 0, 1:
			e.Op = mappings.EditSet
			e.Value = canonical.JSON([]string{`1`, `"s"`, `{"z":[true]}`, `[1,2]`, `null`}[g.r.Intn(5)])
		case 2, 3:
			e.Op = mappings.EditDelete
		case 4, 5:
			e.Op, e.Key = mappings.EditRename, g.name()
			if e.Path.Sub == "" {
				e.Path.Sub = "a"
			}
		case 6, 7:
			e.Op, e.To = mappings.EditMove, g.path()
			if e.To == e.Path {
				e.To.Sub = strings.TrimPrefix(e.To.Sub+".m", ".")
			}
		case 8, 9:
			e.Op, e.Key = mappings.EditWrap, g.name()
		default:
			e.Op = mappings.EditUnwrap
			if e.Path.Sub == "" {
				e.Path.Sub = "a"
			}
		}
		out[i] = e
	}
	return out
}

func testEnvelope(docs []string) *canonical.Envelope {
	return &canonical.Envelope{Arguments: canonical.JSON(docs[0]), Context: canonical.JSON(docs[1]), Result: canonical.JSON(docs[2])}
}

func fieldTexts(env *canonical.Envelope) [3]string {
	return [3]string{string(env.Arguments), string(env.Context), string(env.Result)}
}

// byNodes applies edits one by one with the node engine, as applyMappings
// does when there is no plan, and counts the edits that failed.
func byNodes(docs []string, edits []mappings.Edit) ([3]string, int) {
	env := testEnvelope(docs)
	p := payload{env: env}
	failed := 0
	for _, e := range edits {
		if p.apply(e) != nil {
			failed++
		}
	}
	if p.n > 0 {
		p.commit()
	}
	return fieldTexts(env), failed
}

// planned is what the random cases exercised of the fast path.
type planned struct {
	cases, plans, passes int
	ops                  map[string]int // edits applied by passes that did not give up
	features             map[string]int // kinds of object plans in those passes
}

func (c *planned) note(p *plan, edits []mappings.Edit) {
	c.passes++
	for _, e := range edits {
		c.ops[e.Op]++
	}
	var walk func(o *objPlan)
	walk = func(o *objPlan) {
		switch {
		case o.splice:
			c.features["splice"]++
		case o.open:
			c.features["rebuilt"]++
		default:
			c.features["rebuilt if compact"]++
		}
		if o.made != "" {
			c.features["made"]++
		}
		if o.drops {
			c.features["drops"]++
		}
		for _, e := range o.entries {
			if e.child != nil {
				walk(e.child)
			}
		}
	}
	for _, f := range p.fields {
		walk(f.root)
	}
	if p.slots > 0 {
		c.features["move"]++
	}
}

// TestPlanMatchesNodes: on random documents (compact and spaced, with
// escaped and repeated names) and random edit sequences, a plan's pass
// either gives up leaving the envelope as it was, or writes every field to
// the byte as the node engine does, and only when the node engine reports
// no failed edit.
func TestPlanMatchesNodes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	c := planned{ops: map[string]int{}, features: map[string]int{}}
	for i := 0; i < 30000; i++ {
		g := docGen{r: r, pretty: r.Intn(3) == 0}
		docs := []string{g.doc(), g.doc(), g.doc()}
		if r.Intn(3) == 0 {
			docs[1] = ""
		}
		edits := editGen{r}.edits()
		c.cases++
		p := newPlan(edits)
		if p == nil {
			continue
		}
		c.plans++
		env := testEnvelope(docs)
		if !p.run(env) {
			if got := fieldTexts(env); got != [3]string(docs) {
				t.Fatalf("case %d: a pass that gave up changed the fields:\n%q\nedits %v", i, got, edits)
			}
			continue
		}
		want, failed := byNodes(docs, edits)
		if failed > 0 {
			t.Fatalf("case %d: the pass applied edits the node engine fails %d of:\ndocs %q\nedits %v", i, failed, docs, edits)
		}
		if got := fieldTexts(env); got != want {
			t.Fatalf("case %d:\ndocs  %q\nedits %v\n got  %q\nwant  %q", i, docs, edits, got, want)
		}
		c.note(p, edits)
	}
	t.Logf("%d cases, %d plans, %d passes; edits %v; objects %v", c.cases, c.plans, c.passes, c.ops, c.features)
	// The comparison is only worth something if the pass ran often, with
	// every kind of edit and object plan.
	if c.passes < c.cases/5 {
		t.Errorf("only %d of %d cases ran a pass", c.passes, c.cases)
	}
	for _, op := range []string{mappings.EditSet, mappings.EditDelete, mappings.EditRename, mappings.EditMove, mappings.EditWrap} {
		if c.ops[op] < 500 {
			t.Errorf("%s: only %d edits in passes", op, c.ops[op])
		}
	}
	for _, f := range []string{"splice", "rebuilt", "rebuilt if compact", "made", "drops", "move"} {
		if c.features[f] < 100 {
			t.Errorf("%s: only %d object plans in passes", f, c.features[f])
		}
	}
}

// bySjson applies edits with gjson and sjson, one text edit each: the
// reference for what the edits mean, member order aside.
func bySjson(docs []string, edits []mappings.Edit) [3]string {
	texts := [3]string(docs)
	field := func(name string) *string {
		for i, f := range testFields {
			if f == name {
				return &texts[i]
			}
		}
		panic(name)
	}
	get := func(p mappings.PayloadPath) (string, bool) {
		text := *field(p.Field)
		if p.Sub == "" {
			return text, text != ""
		}
		v := gjson.Get(text, p.Sub)
		return v.Raw, v.Exists()
	}
	set := func(p mappings.PayloadPath, v string) {
		f := field(p.Field)
		if p.Sub == "" {
			*f = v
			return
		}
		*f, _ = sjson.SetRaw(*f, p.Sub, v)
	}
	del := func(p mappings.PayloadPath) {
		f := field(p.Field)
		if p.Sub == "" {
			*f = ""
			return
		}
		*f, _ = sjson.Delete(*f, p.Sub)
	}
	for _, e := range edits {
		v, ok := get(e.Path)
		switch e.Op {
		case mappings.EditSet:
			set(e.Path, string(e.Value))
		case mappings.EditDelete:
			del(e.Path)
		case mappings.EditRename:
			if ok {
				del(e.Path)
				to := parentPath(e.Path)
				to.Sub = strings.TrimPrefix(to.Sub+"."+e.Key, ".")
				set(to, v)
			}
		case mappings.EditMove:
			if ok {
				del(e.Path)
				set(e.To, v)
			}
		case mappings.EditWrap:
			if ok {
				set(e.Path, `{`+quoted(e.Key)+`:`+v+`}`)
			}
		case mappings.EditUnwrap:
			if ok {
				set(parentPath(e.Path), v)
			}
		}
	}
	return texts
}

// TestEditSequencesMatchSjson: random edit sequences on random objects
// that JSON readers agree on (absent fields, which the node engine edits as
// "{}", left to TestPlanMatchesNodes) give, through applyMappings' two ways (a
// plan's pass, or the node engine when there is none or it gives up), the
// JSON values gjson and sjson give.
func TestEditSequencesMatchSjson(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	compared, passes := 0, 0
	for i := 0; i < 20000; i++ {
		g := docGen{r: r, pretty: r.Intn(3) == 0, plain: true}
		docs := []string{g.doc(), g.doc(), g.doc()}
		edits := editGen{r}.edits()
		for j := range edits {
			// Names sjson reads as path syntax; indexes, which sjson
			// reads as arrays to create where the node engine creates
			// objects.
			if strings.ContainsAny(edits[j].Key, `"<&>`) {
				edits[j].Key = "k"
			}
			edits[j].Path.Sub = strings.ReplaceAll(edits[j].Path.Sub, "0", "e")
			edits[j].To.Sub = strings.ReplaceAll(edits[j].To.Sub, "0", "e")
			// A field deleted or moved away is absent, and an absent
			// field the node engine edits as "{}".
			if op := edits[j].Op; edits[j].Path.Sub == "" && (op == mappings.EditDelete || op == mappings.EditMove) {
				edits[j].Path.Sub = "b"
			}
		}
		want, failed := byNodes(docs, edits)
		if failed > 0 {
			continue // sjson goes where the node engine refuses to
		}
		env := testEnvelope(docs)
		if p := newPlan(edits); p != nil && p.run(env) {
			passes++
		} else {
			got, _ := byNodes(docs, edits)
			env = testEnvelope(got[:])
		}
		got := fieldTexts(env)
		if got != want {
			t.Fatalf("case %d: the pass and the node engine differ:\n%q\n%q", i, got, want)
		}
		ref := bySjson(docs, edits)
		for f := range got {
			a, b := got[f], ref[f]
			if a == b {
				continue
			}
			if a == "" || b == "" || !sameJSON(t, a, b) {
				t.Fatalf("case %d, %s:\ndocs  %q\nedits %v\n got  %s\nsjson %s", i, testFields[f], docs, edits, got[f], ref[f])
			}
		}
		compared++
	}
	t.Logf("%d sequences compared, %d through a pass", compared, passes)
	if compared < 5000 || passes < 1000 {
		t.Errorf("only %d sequences compared, %d through a pass", compared, passes)
	}
}

// TestPlans: which edit lists get a plan, and what a pass does with texts
// it cannot handle the node engine's way.
func TestPlans(t *testing.T) {
	set := func(p, v string) mappings.Edit {
		return mappings.Edit{Op: mappings.EditSet, Path: args(p), Value: canonical.JSON(v)}
	}
	del := func(p string) mappings.Edit { return mappings.Edit{Op: mappings.EditDelete, Path: args(p)} }
	rename := func(p, k string) mappings.Edit { return mappings.Edit{Op: mappings.EditRename, Path: args(p), Key: k} }
	move := func(from, to mappings.PayloadPath) mappings.Edit {
		return mappings.Edit{Op: mappings.EditMove, Path: from, To: to}
	}
	ctx := func(sub string) mappings.PayloadPath { return mappings.PayloadPath{Field: "context", Sub: sub} }
	cases := []struct {
		name  string
		edits []mappings.Edit
		plan  bool
	}{
		{"members apart", []mappings.Edit{rename("a", "b"), set("c", "1"), del("d.e"), move(args("f"), ctx("f"))}, true},
		{"two edits on one member", []mappings.Edit{set("a", "1"), del("a")}, false},
		{"an edit inside a member another replaces", []mappings.Edit{set("a", "1"), del("a.b")}, false},
		{"a rename onto a member another edits", []mappings.Edit{rename("a", "b"), set("b", "1")}, false},
		{"an array index", []mappings.Edit{del("a.0")}, false},
		{"a name gjson reads as syntax", []mappings.Edit{del("a:b")}, false},
		{"a whole field", []mappings.Edit{del("")}, false},
		{"unwrap", []mappings.Edit{{Op: mappings.EditUnwrap, Path: args("a.b")}}, false},
		{"a move within a field", []mappings.Edit{move(args("a"), args("b"))}, false},
		{"moves in a circle", []mappings.Edit{move(args("a"), ctx("a")), move(ctx("b"), args("b"))}, false},
		{"moves in a chain", []mappings.Edit{move(ctx("b"), mappings.PayloadPath{Field: "result", Sub: "b"}), move(args("a"), ctx("a"))}, true},
		{"a set without a value", []mappings.Edit{set("a", "")}, false},
		{"an unknown edit", []mappings.Edit{{Op: "frobnicate", Path: args("a")}}, false},
	}
	for _, c := range cases {
		if got := newPlan(c.edits) != nil; got != c.plan {
			t.Errorf("%s: plan %v, want %v", c.name, got, c.plan)
		}
	}

	// Texts a pass gives up on, leaving them to the node engine, and texts
	// it handles.
	texts := []struct {
		name  string
		docs  []string
		edits []mappings.Edit
		ran   bool
	}{
		{"an edit into a string", []string{`{"a":"s"}`, "", ""}, []mappings.Edit{del("a.b")}, false},
		{"an edit into an array", []string{`{"a":[{"b":1}]}`, "", ""}, []mappings.Edit{del("a.b")}, false},
		{"a member named twice", []string{`{"c":1,"c":2}`, "", ""}, []mappings.Edit{del("c"), del("d")}, false},
		{"spaced text the node engine cuts twice", []string{`{ "c": 1, "d": 2 }`, "", ""}, []mappings.Edit{del("c"), del("d")}, false},
		{"spaced text the node engine cuts once", []string{`{ "c": 1, "d": 2 }`, "", ""}, []mappings.Edit{del("c")}, true},
		{"spaced text the node engine rebuilds", []string{`{ "c": 1, "d": 2 }`, "", ""}, []mappings.Edit{del("c"), set("e", "1")}, true},
		{"not an object", []string{`[1]`, "", ""}, []mappings.Edit{del("c")}, false},
		{"a rename whose name is taken, of a member not there", []string{`{"x":1,"b":2}`, "", ""}, []mappings.Edit{rename("a", "b")}, false},
		{"an object a move would create", []string{`{}`, `{"s":1}`, ""}, []mappings.Edit{move(ctx("s"), args("n.s"))}, false},
		{"an object a move would create, source not there", []string{`{}`, `{"t":1}`, ""}, []mappings.Edit{move(ctx("s"), args("n.s"))}, true},
		{"objects sets create", []string{`{}`, "", ""}, []mappings.Edit{set("n.s", "1"), set("b", "2"), set("n.t.u", "3")}, true},
		{"nested edits", []string{`{"a":{"b":1},"d":{"x":1},"c":null}`, "", ""}, []mappings.Edit{del("a.b"), del("c"), del("d")}, true},
	}
	for _, c := range texts {
		env := testEnvelope(c.docs)
		p := newPlan(c.edits)
		if p == nil {
			t.Errorf("%s: no plan", c.name)
			continue
		}
		ran := p.run(env)
		want, failed := byNodes(c.docs, c.edits)
		switch got := fieldTexts(env); {
		case ran != c.ran:
			t.Errorf("%s: pass ran %v, want %v", c.name, ran, c.ran)
		case ran && (failed > 0 || got != want):
			t.Errorf("%s: pass wrote %q, node engine %q (%d failed)", c.name, got, want, failed)
		case !ran && got != [3]string(c.docs):
			t.Errorf("%s: pass gave up but wrote %q", c.name, got)
		}
	}
}

// TestPlanCache: a plan is made once per combination of a set's rules, and
// again when the set has more rules; a translation no rule matches has
// nothing to do.
func TestPlanCache(t *testing.T) {
	m := BenchRewriteRules(t)
	rules := m.Rewrites()
	a := plans.get(rules, 0b11111)
	if a == nil || a.none || plans.get(rules, 0b11111) != a {
		t.Fatalf("plan %+v not kept", a)
	}
	if b := plans.get(rules, 0b00011); b == a || b.none {
		t.Errorf("another combination has the same plan")
	}
	if plans.get(rules, 0) != noEdits {
		t.Errorf("no rule matched, and yet a plan")
	}
	if err := m.Add("more.yaml", []byte("rewrites:\n  - when: {to: collab}\n    do: [delete: arguments.x]\n")); err != nil {
		t.Fatal(err)
	}
	if plans.get(m.Rewrites(), 0b11111) == a {
		t.Errorf("a set with more rules has the plan of fewer")
	}
	// The edit lists a plan was made from are checked: a cached plan for
	// lists that are not these is made again.
	other := append([]mappings.Rewrite(nil), rules...)
	other[0].Do = []mappings.Edit{{Op: mappings.EditDelete, Path: args("zzz")}}
	if a.madeFrom(other, 0b11111) || !a.madeFrom(rules, 0b11111) {
		t.Errorf("madeFrom does not tell edit lists apart")
	}
}

// TestRewriteFastConcurrent: translations of several kinds at once share
// the plan cache (run with -race).
func TestRewriteFastConcurrent(t *testing.T) {
	m := BenchRewriteRules(t)
	doc := `{"dataset":"d","group_by":["x"],"notify":{"to":["o"]},"options":{"sample":{"rate":1},"limit":5}}`
	kinds := []struct{ from, to, op string }{
		{"swarm", "elizaacl", "build_report"}, {"swarm", "collab", "build_report"},
		{"fuse", "elizaacl", "x"}, {"swarm", "elizaacl", "other"},
	}
	want := make([][3]string, len(kinds))
	for i, k := range kinds {
		var edits []mappings.Edit
		for _, r := range m.Rewrites() {
			if r.When.Matches(k.from, k.to, canonical.ActRequest, k.op) {
				edits = append(edits, r.Do...)
			}
		}
		want[i], _ = byNodes([]string{doc, "", ""}, edits)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 400; i++ {
				k := (g + i) % len(kinds)
				env := &canonical.Envelope{Act: canonical.ActRequest, Arguments: canonical.JSON(doc)}
				if !rewriteFast(m, env, kinds[k].from, kinds[k].to, kinds[k].op) {
					errs <- fmt.Errorf("%v: no pass", kinds[k])
					return
				}
				if got := fieldTexts(env); got != want[k] {
					errs <- fmt.Errorf("%v: got %q, want %q", kinds[k], got, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
