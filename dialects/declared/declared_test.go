package declared_test

import (
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects/declared"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// hookFile is the example declared dialect these tests serve.
const hookFile = "../../examples/hook.yaml"

// hookDecl returns the declaration of examples/hook.yaml, written out in Go
// (the loader of the declare section is not the codec's).
func hookDecl() *mappings.Declaration {
	f := func(c canonical.Concept, p string) mappings.FieldPath { return mappings.FieldPath{Concept: c, Path: p} }
	return &mappings.Declaration{
		Name:   "hook",
		File:   "examples/hook.yaml",
		Line:   10,
		Detect: []mappings.Match{{Path: "hook", Value: "1"}},
		Fields: []mappings.FieldPath{
			f(canonical.CID, "id"),
			f(canonical.CAct, "event"),
			f(canonical.CSender, "from"),
			f(canonical.CSenderName, "from_name"),
			f(canonical.CReceiver, "to"),
			f(canonical.CInReplyTo, "reply_to"),
			f(canonical.CCorrelationID, "correlation"),
			f(canonical.CTaskID, "task"),
			f(canonical.CTime, "sent_at"),
			f(canonical.CPriority, "urgency"),
			f(canonical.CTTL, "ttl_ms"),
			f(canonical.CTraceID, "trace"),
			f(canonical.COperation, "action"),
			f(canonical.CDescription, "text"),
			f(canonical.CArguments, "data"),
			f(canonical.CResult, "result"),
			f(canonical.COutcome, "status"),
			f(canonical.CErrorCode, "error.code"),
			f(canonical.CErrorMessage, "error.message"),
			f(canonical.CErrorDetails, "error.details"),
			f(canonical.CContext, "context"),
			f(canonical.CMetadata, "meta"),
		},
		Required: []string{"hook", "id", "event", "from", "sent_at"},
	}
}

// vocabulary loads the vocabulary of a mapping file. While the loader does
// not know the declare section, it is cut out first.
func vocabulary(tb testing.TB, name string, data []byte) *mappings.Vocabulary {
	tb.Helper()
	s := &mappings.Set{}
	if err := s.Add(name, data); err != nil {
		if err := s.Add(name, withoutDeclare(data)); err != nil {
			tb.Fatal(err)
		}
	}
	return s.Vocabulary(dialectOf(data))
}

// withoutDeclare cuts the top-level declare section out of a mapping file.
func withoutDeclare(data []byte) []byte {
	var out []string
	skip := false
	for line := range strings.SplitSeq(string(data), "\n") {
		top := line != "" && line[0] != ' ' && line[0] != '#'
		if top {
			skip = strings.HasPrefix(line, "declare:")
		}
		if !skip {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

// dialectOf returns the dialect key of a mapping file.
func dialectOf(data []byte) string {
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "dialect:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// hookVocab returns the vocabulary of examples/hook.yaml.
func hookVocab(tb testing.TB) *mappings.Vocabulary {
	tb.Helper()
	data, err := os.ReadFile(hookFile)
	if err != nil {
		tb.Fatal(err)
	}
	return vocabulary(tb, "examples/hook.yaml", data)
}

// codec returns the hook codec.
func codec(tb testing.TB) *declared.Codec {
	tb.Helper()
	c, err := declared.New(hookDecl(), hookVocab(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestContract(t *testing.T) { dialecttest.Run(t, codec(t)) }

func FuzzDecode(f *testing.F) { dialecttest.Fuzz(f, codec(f)) }

// equal reports whether a and b are deeply equal.
func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

// equalJSON reports whether a and b hold the same JSON value.
func equalJSON(a, b []byte) bool { return dialecttest.JSONEqual(a, b) }

// problems renders validation problems as one line.
func problems(list []dialects.Problem) string {
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = p.String()
	}
	return strings.Join(out, "; ")
}
