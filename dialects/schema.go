package dialects

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/internal/schemafast"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/tidwall/gjson"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled JSON Schema (draft 2020-12 unless the document says
// otherwise), compiled on first use.
type Schema struct {
	Dialect string
	// Source is the schema document.
	Source []byte

	once sync.Once
	sch  *jsonschema.Schema
	// shape is what sch can read of a message.
	shape *shape
	// branches are sch for each message type, if it states types.
	branches *branches
	// fast says whether a message is valid without the library, when
	// it can.
	fast *schemafast.Validator
	err  error
}

// NewSchema returns the schema of a dialect from its document.
func NewSchema(dialect string, source []byte) *Schema {
	return &Schema{Dialect: dialect, Source: source}
}

func (s *Schema) compile() {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.Source))
	if err != nil {
		s.err = fmt.Errorf("%s: schema: %w", s.Dialect, err)
		return
	}
	c := newCompiler()
	url := "urn:mcp-bridge:schema:" + s.Dialect
	if err := c.AddResource(url, doc); err != nil {
		s.err = fmt.Errorf("%s: schema: %w", s.Dialect, err)
		return
	}
	s.sch, s.err = c.Compile(url)
	if s.err != nil {
		s.err = fmt.Errorf("%s: schema: %w", s.Dialect, s.err)
		return
	}
	s.shape = shapeOf(s.sch)
	s.fast = schemafast.New(s.sch)
	if s.branches, s.err = branchesOf(url, doc); s.err != nil {
		s.err = fmt.Errorf("%s: schema: %w", s.Dialect, s.err)
	}
}

// newCompiler returns a compiler of draft 2020-12 (unless a document says
// otherwise) that asserts formats.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	return c
}

// Err reports whether the schema compiles.
func (s *Schema) Err() error {
	s.once.Do(s.compile)
	return s.err
}

var printer = message.NewPrinter(language.English)

// Vouches reports whether the fast path finds msg valid: msg is then JSON
// text in UTF-8 (CheckInput finds nothing) and Check has no problem to
// report.
func (s *Schema) Vouches(msg []byte) bool {
	return s.Err() == nil && s.fast.Check(msg) == schemafast.Valid
}

// VouchDoc is Vouches that also returns what the fast path read of a
// message it finds valid, for reading the message without parsing it again
// (Doc); nil when it does not vouch for msg. The caller releases it.
func (s *Schema) VouchDoc(msg []byte) *schemafast.Doc {
	if s.Err() != nil {
		return nil
	}
	_, d := s.fast.CheckDoc(msg)
	return d
}

// Check validates msg and returns each failing leaf as a Problem located by
// dotted JSON path, sorted by path.
func (s *Schema) Check(msg []byte) []Problem {
	if err := s.Err(); err != nil {
		return []Problem{{Message: err.Error()}}
	}
	// The fast path's Valid is the library's; on anything else the
	// library words the problems.
	if s.fast.Check(msg) == schemafast.Valid {
		return nil
	}
	if !utf8.Valid(msg) {
		// Parsers replace invalid bytes differently, so two distinct
		// member names could become one.
		return []Problem{{Message: "not valid UTF-8"}}
	}
	// A member given twice is read differently by different parsers (gjson
	// takes the first, most others the last): such a message is not valid.
	inst, dups, ok := readInstance(msg, s.shape)
	if !ok {
		// Not JSON, or nested past encoding/json's limit: encoding/json
		// words the refusal.
		var err error
		inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(msg))
		if err != nil {
			return []Problem{{Message: "not valid JSON: " + err.Error()}}
		}
		dups = DuplicateMembers(msg)
	}
	return problems(s.branches.of(s.sch, inst), inst, msg, dups)
}

// problems validates inst, the instance of msg, against sch and returns
// dups and each failing leaf as a Problem located by dotted JSON path,
// sorted by path.
func problems(sch *jsonschema.Schema, inst any, msg []byte, dups []Problem) []Problem {
	err := validate(sch, inst)
	if err == nil {
		return dups
	}
	var out []Problem
	ve, ok := err.(*jsonschema.ValidationError)
	switch {
	case ok:
		seen := map[string]bool{}
		var walk func(e *jsonschema.ValidationError)
		walk = func(e *jsonschema.ValidationError) {
			if len(e.Causes) == 0 {
				if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
					// The library lists them in map order: the same
					// message would be refused in different words.
					slices.Sort(ap.Properties)
				}
				p := Problem{Path: strings.Join(e.InstanceLocation, "."), Message: e.ErrorKind.LocalizedString(printer)}
				if k := p.Path + "\x00" + p.Message; !seen[k] {
					seen[k] = true
					out = append(out, p)
				}
				return
			}
			for _, c := range e.Causes {
				walk(c)
			}
		}
		walk(ve)
	case errors.Is(err, errPanic):
		out = unreadableNumbers(msg)
	}
	if len(out) == 0 {
		out = []Problem{{Message: err.Error()}}
	}
	out = append(dups, out...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// errPanic marks a panic of the library as an error.
var errPanic = errors.New("schema check failed")

// validate is sch.Validate(inst), a panic of the library returned as an
// error: it panics on a number math/big cannot read (an exponent past a
// million) under minimum, maximum or multipleOf.
func validate(sch *jsonschema.Schema, inst any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	return sch.Validate(inst)
}

// unreadableNumbers returns a problem for every number of msg that
// math/big cannot read, as the library reads numbers.
func unreadableNumbers(msg []byte) []Problem {
	var out []Problem
	var walk func(v gjson.Result, path string)
	walk = func(v gjson.Result, path string) {
		switch {
		case v.Type == gjson.Number:
			if _, ok := new(big.Rat).SetString(v.Raw); !ok {
				out = append(out, Problem{Path: path, Message: "number out of range: " + v.Raw})
			}
		case v.IsObject():
			v.ForEach(func(k, m gjson.Result) bool {
				walk(m, Join(path, Key(k)))
				return true
			})
		case v.IsArray():
			i := 0
			v.ForEach(func(_, m gjson.Result) bool {
				walk(m, Join(path, strconv.Itoa(i)))
				i++
				return true
			})
		}
	}
	walk(gjson.ParseBytes(msg), "")
	return out
}

// DuplicateMembers returns a problem for every object member of msg whose
// name appears more than once in its object.
func DuplicateMembers(msg []byte) []Problem {
	var out []Problem
	var walk func(v gjson.Result, path string)
	walk = func(v gjson.Result, path string) {
		switch {
		case v.IsObject():
			var seen map[string]bool
			v.ForEach(func(k, m gjson.Result) bool {
				if seen == nil {
					seen = map[string]bool{}
				}
				name := Key(k)
				p := Join(path, name)
				if seen[name] {
					out = append(out, Problem{Path: p, Message: "member given more than once"})
				}
				seen[name] = true
				walk(m, p)
				return true
			})
		case v.IsArray():
			i := 0
			v.ForEach(func(_, m gjson.Result) bool {
				walk(m, Join(path, strconv.Itoa(i)))
				i++
				return true
			})
		}
	}
	walk(gjson.ParseBytes(msg), "")
	return out
}
