// Package archtest holds the tests that pin the project's structure: the
// size of the core's types, the absence of large cycles between the files
// of a package, and the direction of dependencies. They read the module's
// packages with their type information (golang.org/x/tools/go/packages).
package archtest

import (
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/mcp-bridge/mcp-bridge"

var (
	loadOnce sync.Once
	loaded   []*packages.Package
	loadErr  error
)

// load returns every non-test package of the module, with syntax and
// types.
func load(t *testing.T) []*packages.Package {
	t.Helper()
	loadOnce.Do(func() {
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports |
			packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Dir: "../.."}
		loaded, loadErr = packages.Load(cfg, "./...")
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	for _, p := range loaded {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
	}
	return loaded
}

func find(t *testing.T, path string) *packages.Package {
	t.Helper()
	for _, p := range load(t) {
		if p.PkgPath == path {
			return p
		}
	}
	t.Fatalf("no package %s", path)
	return nil
}

// TestCoreSurface: the routing core's type and the bridge's front each
// have at most 40 methods.
func TestCoreSurface(t *testing.T) {
	for _, tc := range []struct{ pkg, typ string }{
		{module + "/bridge/route", "Router"},
		{module + "/bridge", "Bridge"},
	} {
		obj := find(t, tc.pkg).Types.Scope().Lookup(tc.typ)
		if obj == nil {
			t.Fatalf("%s has no %s", tc.pkg, tc.typ)
		}
		if n := obj.Type().(*types.Named).NumMethods(); n > 40 {
			t.Errorf("%s.%s has %d methods, more than 40: give a job of it a type or a package of its own", tc.pkg, tc.typ, n)
		}
	}
}

// TestFileCycles: no set of more than 10 files of one package all use
// each other (a file uses another when it names something declared
// there).
func TestFileCycles(t *testing.T) {
	for _, p := range load(t) {
		for _, c := range fileCycles(p) {
			if len(c) > 10 {
				t.Errorf("%s: %d files use each other: %s", p.PkgPath, len(c), strings.Join(c, ", "))
			}
		}
	}
}

// fileCycles returns the strongly connected sets of p's files, by the
// names each file uses that another declares.
func fileCycles(p *packages.Package) [][]string {
	edges := map[string]map[string]bool{}
	var files []string
	for _, f := range p.Syntax {
		from := filepath.Base(p.Fset.File(f.Pos()).Name())
		files = append(files, from)
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types || !obj.Pos().IsValid() {
				return true
			}
			if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != p.Types.Scope() {
				return true // a local variable
			}
			to := filepath.Base(p.Fset.File(obj.Pos()).Name())
			if to != from {
				if edges[from] == nil {
					edges[from] = map[string]bool{}
				}
				edges[from][to] = true
			}
			return true
		})
	}
	sort.Strings(files)
	return strongSets(files, edges)
}

// strongSets returns the strongly connected sets of the graph (Tarjan's
// algorithm).
func strongSets(nodes []string, edges map[string]map[string]bool) [][]string {
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for w := range edges[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var set []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				set = append(set, w)
				if w == v {
					break
				}
			}
			sort.Strings(set)
			out = append(out, set)
		}
	}
	for _, v := range nodes {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return out
}

// TestStrongSets checks the cycle finder on a small graph.
func TestStrongSets(t *testing.T) {
	e := map[string]map[string]bool{
		"a": {"b": true}, "b": {"c": true}, "c": {"a": true, "d": true}, "d": {}, "e": {"d": true},
	}
	got := strongSets([]string{"a", "b", "c", "d", "e"}, e)
	var sizes []int
	for _, s := range got {
		sizes = append(sizes, len(s))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{1, 1, 3}) {
		t.Errorf("sets %v, want one of three and two alone", got)
	}
}

// importers returns the non-test packages of the module that import path.
func importers(t *testing.T, path string) []string {
	var out []string
	for _, p := range load(t) {
		if _, ok := p.Imports[path]; ok {
			out = append(out, p.PkgPath)
		}
	}
	return out
}

// TestOneYAMLReader: only the spec engine reads YAML.
func TestOneYAMLReader(t *testing.T) {
	if got := importers(t, "gopkg.in/yaml.v3"); !slices.Equal(got, []string{module + "/internal/spec"}) {
		t.Errorf("gopkg.in/yaml.v3 is imported by %v; only internal/spec should", got)
	}
}

// TestWebSocketDialers: the agent side of the wire dials through
// agentclient; only it and the bridge's own dialer call websocket.Dial.
func TestWebSocketDialers(t *testing.T) {
	var callers []string
	for _, p := range load(t) {
		for _, obj := range p.TypesInfo.Uses {
			if f, ok := obj.(*types.Func); ok && f.Pkg() != nil && f.Pkg().Path() == "github.com/coder/websocket" && f.Name() == "Dial" {
				callers = append(callers, p.PkgPath)
				break
			}
		}
	}
	sort.Strings(callers)
	want := []string{module + "/agentclient", module + "/transports/ws"}
	if !slices.Equal(callers, want) {
		t.Errorf("websocket.Dial is called by %v, want %v", callers, want)
	}
}

// TestDependencyDirection: codecs never import the core, transports,
// the server or a front door; the core never imports a transport, the
// server or a front door; subscribers of the event stream do not import
// the core.
func TestDependencyDirection(t *testing.T) {
	rules := []struct {
		from  string   // a package path prefix
		never []string // package path prefixes it must not import, directly or not
	}{
		{module + "/dialects", []string{module + "/bridge", module + "/transports", module + "/server", module + "/mcpface", module + "/a2aface", module + "/console"}},
		{module + "/translate", []string{module + "/bridge", module + "/transports", module + "/server"}},
		{module + "/bridge", []string{module + "/transports", module + "/server", module + "/mcpface", module + "/a2aface", module + "/console", module + "/cluster"}},
		{module + "/mcpface", []string{module + "/a2aface"}},
		{module + "/a2aface", []string{module + "/server", module + "/transports"}},
		{module + "/bridge/event", []string{module + "/bridge/route"}},
		{module + "/bridge/msglog", []string{module + "/bridge/route"}},
		{module + "/bridge/tap", []string{module + "/bridge/route"}},
		{module + "/bridge/route", []string{module + "/bridge/peer", module + "/bridge/msglog", module + "/bridge/tap"}},
		{module + "/agentclient", []string{module + "/bridge", module + "/server", module + "/transports"}},
	}
	all := map[string]*packages.Package{}
	for _, p := range load(t) {
		all[p.PkgPath] = p
	}
	for _, p := range load(t) {
		for _, r := range rules {
			if p.PkgPath != r.from && !strings.HasPrefix(p.PkgPath, r.from+"/") {
				continue
			}
			for dep := range deps(p) {
				for _, bad := range r.never {
					if dep == bad || strings.HasPrefix(dep, bad+"/") {
						t.Errorf("%s imports %s", p.PkgPath, dep)
					}
				}
			}
		}
	}
}

// deps returns every package p imports, directly or not.
func deps(p *packages.Package) map[string]bool {
	seen := map[string]bool{}
	var walk func(q *packages.Package)
	walk = func(q *packages.Package) {
		for path, imp := range q.Imports {
			if !seen[path] {
				seen[path] = true
				walk(imp)
			}
		}
	}
	walk(p)
	return seen
}
