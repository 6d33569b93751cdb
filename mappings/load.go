package mappings

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"gopkg.in/yaml.v3"
)

//go:embed defaults/*.yaml
var defaultFiles embed.FS

var kindOrder = []string{canonical.KindAct, canonical.KindOutcome, canonical.KindError, canonical.KindPriority}

// Error is a problem in a mapping file, located by file and line.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Defaults returns the embedded default mappings of the built-in dialects.
func Defaults() (*Set, error) {
	s := &Set{vocab: map[string]*Vocabulary{}}
	names, err := fs.Glob(defaultFiles, "defaults/*.yaml")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		data, err := defaultFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		if err := s.Add("mappings/"+n, data); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// MustDefaults is Defaults for the embedded files, which are known good.
func MustDefaults() *Set {
	s, err := Defaults()
	if err != nil {
		panic(err)
	}
	return s
}

// DefaultFile returns the text of the embedded default mapping of a dialect.
func DefaultFile(dialect string) ([]byte, error) {
	return defaultFiles.ReadFile(path.Join("defaults", dialect+".yaml"))
}

// Add layers one mapping file over the set: its words are added to, or
// replace, those already there. name is used in errors.
func (s *Set) Add(name string, data []byte) error {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		line, msg := yamlErrLine(err)
		return &Error{File: name, Line: line, Msg: msg}
	}
	if len(doc.Content) == 0 {
		return &Error{File: name, Line: 1, Msg: "empty mapping file"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &Error{File: name, Line: root.Line, Msg: "a mapping file is a YAML mapping"}
	}
	var dialect string
	var vocabNode *yaml.Node
	if err := eachPair(name, "", root, func(k, v *yaml.Node) error {
		switch k.Value {
		case "dialect":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return &Error{File: name, Line: v.Line, Key: "dialect", Msg: "must be a dialect name"}
			}
			dialect = v.Value
		case "vocabulary":
			if v.Kind != yaml.MappingNode {
				return &Error{File: name, Line: v.Line, Key: "vocabulary", Msg: "must be a mapping of table kinds"}
			}
			vocabNode = v
		default:
			return &Error{File: name, Line: k.Line, Key: k.Value, Msg: "unknown key (want dialect, vocabulary)"}
		}
		return nil
	}); err != nil {
		return err
	}
	if dialect == "" {
		return &Error{File: name, Line: root.Line, Key: "dialect", Msg: "missing"}
	}
	v := s.vocab[dialect]
	if v == nil {
		v = &Vocabulary{Dialect: dialect, tables: map[string]*Table{}}
	}
	if vocabNode != nil {
		if err := eachPair(name, "vocabulary.", vocabNode, func(k, tn *yaml.Node) error {
			kind := k.Value
			if canonical.CanonicalValues(kind) == nil {
				return &Error{File: name, Line: k.Line, Key: "vocabulary." + kind, Msg: "unknown table kind (want " + strings.Join(kindOrder, ", ") + ")"}
			}
			t := v.tables[kind]
			if t == nil {
				t = newTable(kind)
			}
			if err := loadTable(name, "vocabulary."+kind, tn, t); err != nil {
				return err
			}
			v.tables[kind] = t
			return nil
		}); err != nil {
			return err
		}
	}
	if s.vocab == nil {
		s.vocab = map[string]*Vocabulary{}
	}
	s.vocab[dialect] = v
	return nil
}

func loadTable(file, key string, n *yaml.Node, t *Table) error {
	if n.Kind != yaml.MappingNode {
		return &Error{File: file, Line: n.Line, Key: key, Msg: "must be a mapping with words, nearest, fold_case"}
	}
	allowed := canonical.CanonicalValues(t.Kind)
	check := func(v *yaml.Node, at string) error {
		for _, a := range allowed {
			if v.Value == a {
				return nil
			}
		}
		return &Error{File: file, Line: v.Line, Key: at, Msg: fmt.Sprintf("%q is not a canonical %s (want one of %s)", v.Value, t.Kind, strings.Join(allowed, ", "))}
	}
	return eachPair(file, key+".", n, func(k, v *yaml.Node) error {
		at := key + "." + k.Value
		switch k.Value {
		case "fold_case":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
				return &Error{File: file, Line: v.Line, Key: at, Msg: "must be true or false"}
			}
			t.foldCase = b
		case "words":
			if v.Kind != yaml.MappingNode {
				return &Error{File: file, Line: v.Line, Key: at, Msg: "must map words to canonical values"}
			}
			return eachPair(file, at+".", v, func(w, c *yaml.Node) error {
				wat := at + "." + w.Value
				if c.Kind != yaml.ScalarNode {
					return &Error{File: file, Line: c.Line, Key: wat, Msg: "must be a canonical value"}
				}
				if err := check(c, wat); err != nil {
					return err
				}
				if _, ok := t.decode[w.Value]; !ok {
					t.order = append(t.order, w.Value)
				}
				t.decode[w.Value] = c.Value
				t.folded[strings.ToLower(w.Value)] = c.Value
				t.reindex()
				return nil
			})
		case "nearest":
			if v.Kind != yaml.MappingNode {
				return &Error{File: file, Line: v.Line, Key: at, Msg: "must map canonical values to words"}
			}
			return eachPair(file, at+".", v, func(c, w *yaml.Node) error {
				if err := check(c, at+"."+c.Value); err != nil {
					return err
				}
				if w.Kind != yaml.ScalarNode || w.Value == "" {
					return &Error{File: file, Line: w.Line, Key: at + "." + c.Value, Msg: "must be a word of the dialect"}
				}
				t.nearest[c.Value] = w.Value
				return nil
			})
		default:
			return &Error{File: file, Line: k.Line, Key: at, Msg: "unknown key (want words, nearest, fold_case)"}
		}
		return nil
	})
}

// eachPair calls fn for each key/value of a mapping node, refusing duplicate
// and non-scalar keys.
func eachPair(file, prefix string, n *yaml.Node, fn func(k, v *yaml.Node) error) error {
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return &Error{File: file, Line: k.Line, Msg: "keys must be plain words"}
		}
		if first, dup := seen[k.Value]; dup {
			return &Error{File: file, Line: k.Line, Key: prefix + k.Value, Msg: fmt.Sprintf("duplicate key (first at line %d)", first)}
		}
		seen[k.Value] = k.Line
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
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

func sortStrings(s []string) { sort.Strings(s) }
