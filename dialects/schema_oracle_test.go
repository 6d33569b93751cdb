package dialects

import (
	"bytes"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/internal/schemafast"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CheckBefore is Schema.Check as it was before Check read messages itself:
// encoding/json through jsonschema.UnmarshalJSON, a second walk for
// DuplicateMembers, then jsonschema's Validate on the whole instance. It is
// the oracle Check is compared with.
func CheckBefore(s *Schema, msg []byte) []Problem {
	if err := s.Err(); err != nil {
		return []Problem{{Message: err.Error()}}
	}
	if !utf8.Valid(msg) {
		return []Problem{{Message: "not valid UTF-8"}}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		return []Problem{{Message: "not valid JSON: " + err.Error()}}
	}
	dups := DuplicateMembers(msg)
	return problems(s.sch, inst, msg, dups)
}

// FastCheck is the fast path's verdict on msg alone, without the library.
func FastCheck(s *Schema, msg []byte) schemafast.Verdict {
	if s.Err() != nil {
		return schemafast.Unknown
	}
	return s.fast.Check(msg)
}
