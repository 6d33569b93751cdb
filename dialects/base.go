package dialects

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// Base is what every codec is built on: its vocabulary tables, a Reader
// that words errors in the dialect's name, and its schema. Codecs embed it;
// it supplies their Name and Schema methods.
type Base struct {
	// The dialect's words for the canonical vocabularies.
	Acts, Outcomes, Errors, Priorities *mappings.Table
	// Read type-checks the members a decoder reads.
	Read   Reader
	schema *Schema
}

// NewBase returns the base of dialect name, with its JSON Schema document
// and its vocabulary v (the dialect's tables of a mapping set). A schema
// node marked "x-vocabulary": KIND gets the words of v's KIND table as its
// enum, so that words a mapping file adds validate.
func NewBase(name string, schema []byte, v *mappings.Vocabulary) Base {
	schema = VocabularySchema(schema, v)
	return Base{
		Acts:       v.Table(canonical.KindAct),
		Outcomes:   v.Table(canonical.KindOutcome),
		Errors:     v.Table(canonical.KindError),
		Priorities: v.Table(canonical.KindPriority),
		Read:       Reader{Dialect: name},
		schema:     NewSchema(name, schema),
	}
}

// Name returns the dialect's name.
func (b *Base) Name() string { return b.Read.Dialect }

// Schema returns the dialect's JSON Schema document.
func (b *Base) Schema() []byte { return b.schema.Source }

// Prepare compiles the dialect's JSON Schema now, rather than at the first
// message that needs it (Preparer).
func (b *Base) Prepare() error { return b.schema.Err() }

// CheckSchema validates msg against the dialect's JSON Schema.
func (b *Base) CheckSchema(msg []byte) []Problem { return b.schema.Check(msg) }

// StartRules starts a codec's Validate, as CheckRules does, asking the
// schema's fast path first: a message it finds valid is JSON text in UTF-8,
// so that check is not made again, and FinishRules has no schema problem
// to add. The root of such a message shares msg's memory (no copy is made
// on the hot path): what Validate keeps of it must be a copy, as the
// problems Rules.Add formats are.
func (b *Base) StartRules(msg []byte) (root gjson.Result, rules *Rules, ok bool) {
	if b.schema.Vouches(msg) {
		return parseInPlace(msg), &Rules{vouched: true}, true
	}
	return CheckRules(msg)
}

// StartDoc is StartRules that also keeps what the schema's fast path read
// of a message it vouches for: the Doc's ForEach and Get then read the
// message's members without parsing them again, for the codec's rules and
// its DocDecoder alike. The Doc of a message that is not JSON in UTF-8 is
// nil (ok is false); the caller releases the Doc, and with it the Rules of
// a vouched message (what Rules.List holds stays).
func (b *Base) StartDoc(msg []byte) (doc *Doc, rules *Rules, ok bool) {
	if fast := b.schema.VouchDoc(msg); fast != nil {
		d := newDoc(msg, fast)
		d.rules.vouched = true
		return d, &d.rules, true
	}
	if _, rules, ok = CheckRules(msg); !ok {
		return nil, rules, false
	}
	return newDoc(msg, nil), rules, true
}

// FinishDoc ends a codec's ValidateDoc begun with StartDoc: the problems
// FinishRules finds, with d released, or none and d for the decoder.
func (b *Base) FinishDoc(d *Doc, rules *Rules, msg []byte) ([]Problem, *Doc) {
	if problems := b.FinishRules(rules, msg); len(problems) > 0 {
		d.Release()
		return problems, nil
	}
	return nil, d
}

// FinishRules ends a codec's Validate begun with StartRules: the problems
// its rules recorded, and the schema's on other paths (MergeProblems).
func (b *Base) FinishRules(rules *Rules, msg []byte) []Problem {
	return MergeProblems(rules.List, b.SchemaProblems(rules, msg))
}

// SchemaProblems returns what the dialect's JSON Schema finds wrong with
// msg, whose Validate StartRules began: nothing when the fast path has
// already found it valid.
func (b *Base) SchemaProblems(rules *Rules, msg []byte) []Problem {
	if rules.vouched {
		return nil
	}
	return b.CheckSchema(msg)
}

// VocabularyKeyword marks a schema node whose enum is a vocabulary table's
// words; its value is the table's kind.
const VocabularyKeyword = "x-vocabulary"

// VocabularySchema returns schema with the enum of every node marked with
// VocabularyKeyword replaced by the words of v's table of that kind: as
// numbers where the schema's enum held numbers, and in upper and lower case
// too for a table that matches any case. A schema with no mark, or that is
// not JSON, is returned as it is.
func VocabularySchema(schema []byte, v *mappings.Vocabulary) []byte {
	if !bytes.Contains(schema, []byte(VocabularyKeyword)) {
		return schema
	}
	var doc any
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return schema
	}
	var walk func(n any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			if kind, ok := x[VocabularyKeyword].(string); ok {
				x["enum"] = enumOf(v.Table(kind), x["enum"])
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return schema
	}
	return out
}

// enumOf returns t's words as enum values, numbers when old's were.
func enumOf(t *mappings.Table, old any) []any {
	numeric := false
	if list, ok := old.([]any); ok && len(list) > 0 {
		_, numeric = list[0].(json.Number)
	}
	var out []any
	seen := map[string]bool{}
	add := func(w string) {
		if seen[w] {
			return
		}
		seen[w] = true
		if numeric {
			if _, err := strconv.ParseFloat(w, 64); err == nil {
				out = append(out, json.Number(w))
				return
			}
		}
		out = append(out, w)
	}
	for _, w := range t.Words() {
		add(w)
		if t.FoldCase() {
			add(strings.ToLower(w))
			add(strings.ToUpper(w))
		}
	}
	return out
}
