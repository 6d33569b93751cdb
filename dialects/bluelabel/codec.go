// Package bluelabel is the codec of the bluelabel dialect (specs/bluelabel.md
// and the upstream schemas in realworld/bluelabel): the MCP-compatible
// envelope of the Bluelabel Agent OS, four message types (task_assignment,
// task_result, error, needs_input) in a flat envelope with no message id,
// upper-case agent and task ids, and a typed payload that some v1.3 senders
// nest one level deeper.
package bluelabel

import (
	_ "embed"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Name is the dialect's name.
const Name = "bluelabel"

//go:embed schema.json
var schemaJSON []byte

// Codec reads and writes bluelabel messages.
type Codec struct {
	dialects.Base
}

// New returns a bluelabel codec using the vocabulary v (the bluelabel tables
// of a mapping set).
func New(v *mappings.Vocabulary) *Codec {
	return &Codec{Base: dialects.NewBase(Name, schemaJSON, v)}
}

// Layout variants recorded in Origin.Form.
const (
	// formNested is the v1.3 layout {"type": ..., "payload": {...}} inside
	// the message's payload.
	formNested = "nested"
	// formBare is a message with no payload member at all (a fragment);
	// it is written back without one.
	formBare = "bare"
)

// Protocol versions written for envelopes from other dialects.
const (
	version10 = "1.0"
	version13 = "1.3" // adds success, score, duration_sec and notes to task results
)

// metadataContext is the member of a task assignment's metadata that holds
// the message's context: the task assignment schema refuses a top-level
// context.
const metadataContext = "context"

// unknownID stands in for a required id the envelope lacks; it matches the
// bluelabel id pattern.
const unknownID = "UNKNOWN"

// Holds says which concepts a bluelabel message of each act can carry.
func (c *Codec) Holds(act canonical.Act) canonical.ConceptSet {
	s := canonical.SetOf(canonical.CAct, canonical.CSender, canonical.CReceiver, canonical.CTime,
		canonical.CTaskID, canonical.CTraceID, canonical.CContext, canonical.CExtra)
	switch act {
	case canonical.ActRequest:
		s = s.With(canonical.COperation, canonical.CDescription, canonical.CArguments, canonical.CPriority,
			canonical.CDeadline, canonical.CTTL, canonical.CMetadata)
	case canonical.ActResult:
		s = s.With(canonical.COutcome, canonical.CResult, canonical.CDescription)
	case canonical.ActRefuse, canonical.ActFailure, canonical.ActNotUnderstood:
		s = s.With(canonical.CErrorCode, canonical.CErrorMessage, canonical.CErrorDetails,
			canonical.CErrorRetryable, canonical.CErrorSuggestions)
	case canonical.ActNeedsInput:
		s = s.With(canonical.CInputs, canonical.CDescription, canonical.CTTL)
	}
	return s
}
