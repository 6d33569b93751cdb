package dialects_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/schemafast"
	"github.com/tidwall/gjson"
)

// shared is where the specs and realworld samples live beside the project.
const shared = "../../shared"

var jsonBlock = regexp.MustCompile("(?s)```json\n(.*?)```")

// fastCorpus returns the messages the fast path is compared with the
// library on: the dialects' testdata samples and decoder fuzz corpora, the
// translate benchmark messages and, when ../shared is beside the project,
// every JSON block of the specs and every realworld file.
func fastCorpus(tb testing.TB) []sample {
	tb.Helper()
	out := testSamples(tb)
	add := func(dialect, file string, data []byte) {
		if dialect == "declared" {
			dialect = declaredDialect
		}
		out = append(out, sample{dialect: dialect, file: file, data: data})
	}
	bench, _ := filepath.Glob("../translate/testdata/bench/*.json")
	text, _ := filepath.Glob("../translate/testdata/bench/text/*.json")
	if len(bench) == 0 || len(text) == 0 {
		tb.Fatal("no translate benchmark messages")
	}
	for _, f := range append(bench, text...) {
		add(strings.TrimSuffix(filepath.Base(f), ".json"), f, readFile(tb, f))
	}
	corpus, _ := filepath.Glob("*/testdata/fuzz/*/*")
	if len(corpus) == 0 {
		tb.Fatal("no fuzz corpus")
	}
	for _, f := range corpus {
		for i, m := range corpusEntries(tb, f) {
			add(strings.Split(filepath.ToSlash(f), "/")[0], f+"#"+strconv.Itoa(i), m)
		}
	}
	if _, err := os.Stat(shared); err != nil {
		tb.Logf("%s not present: compared on the project's messages only", shared)
		return out
	}
	specs, _ := filepath.Glob(filepath.Join(shared, "specs", "*.md"))
	for _, f := range specs {
		dialect := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".md"), "-patterns")
		for i, m := range jsonBlock.FindAllSubmatch(readFile(tb, f), -1) {
			add(dialect, f+"#"+strconv.Itoa(i), m[1])
		}
	}
	realworld := filepath.Join(shared, "realworld")
	err := filepath.WalkDir(realworld, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		rel, _ := filepath.Rel(realworld, path)
		add(strings.Split(filepath.ToSlash(rel), "/")[0], path, readFile(tb, path))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func readFile(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// corpusEntries returns the []byte values of a file of a Go fuzz corpus.
func corpusEntries(tb testing.TB, name string) [][]byte {
	tb.Helper()
	lines := strings.Split(string(readFile(tb, name)), "\n")
	if lines[0] != "go test fuzz v1" {
		tb.Fatalf("%s: not a fuzz corpus file", name)
	}
	var out [][]byte
	for _, l := range lines[1:] {
		q, ok := strings.CutPrefix(l, "[]byte(")
		if !ok {
			continue
		}
		s, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		out = append(out, []byte(s))
	}
	return out
}

// verdicts counts the fast path's answers.
type verdicts map[schemafast.Verdict]int

// compareFast counts the verdict in count, when not nil, and fails t when the fast path's verdict on msg disagrees with
// the library's (CheckBefore: encoding/json, the whole schema, and a walk
// for members given twice): Valid where the library finds a problem, or
// Invalid where it finds none.
func compareFast(t *testing.T, what string, s *dialects.Schema, msg []byte, count verdicts) {
	t.Helper()
	got := dialects.FastCheck(s, msg)
	if count != nil {
		count[got]++
	}
	if got == schemafast.Unknown {
		return
	}
	want := dialects.CheckBefore(s, msg)
	if (got == schemafast.Valid) != (len(want) == 0) {
		t.Errorf("%s, %s schema: fast path says %v, the library %v\nmessage: %.300q", what, s.Dialect, got, want, msg)
	}
	// A codec's Validate takes the fast path's Valid for CheckInput's
	// (Base.StartRules).
	if e := dialects.CheckInput(s.Dialect, msg); got == schemafast.Valid && e != nil {
		t.Errorf("%s, %s schema: fast path says valid, CheckInput %v\nmessage: %.300q", what, s.Dialect, e, msg)
	}
}

// TestFastSchemaAgrees compares the fast path with the library on every
// message of the corpus against every schema, on every variant of each
// message against its dialect's schema, on the edge messages, and on the
// messages and variants of the keyword schemas.
func TestFastSchemaAgrees(t *testing.T) {
	schemas := testSchemas(t)
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	count := verdicts{}
	corpus := fastCorpus(t)
	for _, sm := range corpus {
		for _, n := range names {
			compareFast(t, sm.file, schemas[n], sm.data, count)
		}
		if own, ok := schemas[sm.dialect]; ok {
			for i, v := range variants(sm.data) {
				compareFast(t, sm.file+" variant "+strconv.Itoa(i), own, v, count)
			}
		}
	}
	for i, m := range edgeMessages {
		for _, n := range names {
			compareFast(t, "edge message "+strconv.Itoa(i), schemas[n], []byte(m), count)
		}
	}
	kw := dialects.NewSchema("keywords", []byte(keywordSchema))
	for i, m := range keywordMessages {
		compareFast(t, "keyword message "+strconv.Itoa(i), kw, []byte(m), count)
		for j, v := range variants([]byte(m)) {
			compareFast(t, "keyword message "+strconv.Itoa(i)+" variant "+strconv.Itoa(j), kw, v, count)
		}
	}
	for i, doc := range otherSchemas {
		s := dialects.NewSchema("other"+strconv.Itoa(i), []byte(doc))
		for _, m := range []string{`{"a":{"x":1,"x":2},"b":1}`, `{"a":[1,2],"b":1}`, `{"a":[1,"s",3]}`, `{"a":"!!","c":1}`, `{"a":{"a":{"a":[]}}}`, `{"a":{}}`} {
			compareFast(t, "other schema "+strconv.Itoa(i), s, []byte(m), count)
		}
	}
	t.Logf("%d corpus messages; verdicts: %d valid, %d invalid, %d unknown",
		len(corpus), count[schemafast.Valid], count[schemafast.Invalid], count[schemafast.Unknown])
	if count[schemafast.Valid] < 1000 || count[schemafast.Invalid] < 10000 {
		t.Errorf("too few answers to compare: %v", count)
	}
}

// TestFastSchemaAnswers checks that the fast path answers, without the
// library, for every sample and benchmark message of the built-in
// dialects against its own schema, Valid for each the library accepts:
// it must not fall back to the library for the messages the bridge
// carries.
func TestFastSchemaAnswers(t *testing.T) {
	schemas := testSchemas(t)
	builtins := map[string]bool{}
	for _, n := range dialects.Names() {
		builtins[n] = true
	}
	valid := map[string]int{}
	for _, sm := range fastCorpus(t) {
		s := schemas[sm.dialect]
		if !builtins[sm.dialect] || strings.Contains(sm.file, "testdata/fuzz/") || bytes.Contains(sm.data, []byte("//")) {
			continue // not a message of the dialect: fuzz inputs, commented spec blocks
		}
		got := dialects.FastCheck(s, sm.data)
		want := dialects.CheckBefore(s, sm.data)
		switch {
		case got == schemafast.Unknown:
			t.Errorf("%s: the fast path cannot say (the library: %v)", sm.file, want)
		case len(want) == 0 && got != schemafast.Valid:
			t.Errorf("%s: the fast path says %v, the library valid", sm.file, got)
		case len(want) == 0:
			valid[sm.dialect]++
		}
	}
	for _, n := range dialects.Names() {
		if valid[n] < 5 {
			t.Errorf("%s: only %d messages found valid by the fast path", n, valid[n])
		}
	}
}

// fuzzValues are values the fuzzer starts from to put in place of one
// value of a message.
var fuzzValues = []string{
	`7`, `1.0`, `1e400`, `-0`, `300.0000001`, `"x"`, `""`, `"\u0041"`, `"\ud800"`, `"A_B-1"`,
	`"2026-01-10T14:30:00Z"`, `"2024-02-30T14:30:00+01:00"`, `[]`, `["a","a"]`, `{}`, `{"a":1,"a":2}`, `null`, `true`,
}

// spliceValue returns msg with its at-th value (in document order, modulo
// their number), member or item at any depth, replaced by with; nil when
// msg has none.
func spliceValue(msg []byte, at int, with []byte) []byte {
	var spans [][2]int
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		if v.Type != gjson.JSON {
			return
		}
		v.ForEach(func(_, m gjson.Result) bool {
			spans = append(spans, [2]int{m.Index, m.Index + len(m.Raw)})
			walk(m)
			return true
		})
	}
	if !gjson.ValidBytes(msg) {
		return nil
	}
	walk(gjson.ParseBytes(msg))
	if len(spans) == 0 {
		return nil
	}
	sp := spans[at%len(spans)]
	out := append([]byte{}, msg[:sp[0]]...)
	out = append(out, with...)
	return append(out, msg[sp[1]:]...)
}

// FuzzFastSchema feeds the fast path and the library the same messages
// against the schemas of every dialect and the keyword schema, and fails
// on any disagreement: each input message, grown from the corpus and the
// edge messages, and the message with one of its values replaced by a
// value the fuzzer grows.
func FuzzFastSchema(f *testing.F) {
	schemas := testSchemas(f)
	check := []*dialects.Schema{dialects.NewSchema("keywords", []byte(keywordSchema))}
	for _, n := range append(dialects.Names(), declaredDialect) {
		check = append(check, schemas[n])
	}
	seeds := 0
	add := func(msg []byte) {
		if len(msg) <= 4096 {
			f.Add(msg, uint16(seeds*7), []byte(fuzzValues[seeds%len(fuzzValues)]))
			seeds++
		}
	}
	for _, sm := range fastCorpus(f) {
		add(sm.data)
	}
	for _, m := range append(edgeMessages, keywordMessages...) {
		add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, msg []byte, at uint16, with []byte) {
		spliced := spliceValue(msg, int(at), with)
		for _, s := range check {
			compareFast(t, "fuzz input", s, msg, nil)
			if spliced != nil {
				compareFast(t, "fuzz input with a value replaced", s, spliced, nil)
			}
		}
	})
}
