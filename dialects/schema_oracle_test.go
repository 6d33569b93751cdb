package dialects

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/dialects/schemafast"
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
	err = s.sch.Validate(inst)
	if err == nil {
		return dups
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Problem{{Message: err.Error()}}
	}
	var out []Problem
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
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
	out = append(dups, out...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// FastCheck is the fast path's verdict on msg alone, without the library.
func FastCheck(s *Schema, msg []byte) schemafast.Verdict {
	if s.Err() != nil {
		return schemafast.Unknown
	}
	return s.fast.Check(msg)
}
