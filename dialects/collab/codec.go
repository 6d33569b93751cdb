// Package collab is the codec of the collab dialect (specs/collab.md): the
// multi-agent collaboration protocol, four message types (REQUEST, RESPONSE,
// PUBLISH, BROADCAST) in a header/body/trace envelope, with the flat layout
// of the spec's own fragments accepted beside it.
package collab

import (
	_ "embed"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Name is the dialect's name.
const Name = "collab"

//go:embed schema.json
var schemaJSON []byte

// Codec reads and writes collab messages.
type Codec struct {
	dialects.Base
}

// New returns a collab codec using the vocabulary v (the collab tables of a
// mapping set).
func New(v *mappings.Vocabulary) *Codec {
	return &Codec{Base: dialects.NewBase(Name, schemaJSON, v)}
}

// The two message types whose destination rules differ (spec section 2):
// both mean the canonical event; the receiver tells them apart.
const (
	typePublish   = "PUBLISH"
	typeBroadcast = "BROADCAST"
)

// The capability registry's operations (spec section 3), carried as REQUEST
// actions: registering an Agent declares capabilities, finding asks for them.
const (
	actionRegister = "registry.register"
	actionFind     = "registry.find"
)

// Destination spellings (spec section 2.1): "*" is every agent, "topic:x"
// the subscribers of topic x, anything else an agent id.
const (
	destinationAll = "*"
	topicPrefix    = "topic:"
)

// Holds says which concepts a collab message of each act can carry. The
// header, the trace and body.context exist in every message.
func (c *Codec) Holds(act canonical.Act) canonical.ConceptSet {
	s := canonical.SetOf(canonical.CID, canonical.CAct, canonical.CSender, canonical.CReceiver,
		canonical.CTime, canonical.CPriority, canonical.CTTL,
		canonical.CTraceID, canonical.CSpanID, canonical.CParentSpanID,
		canonical.CContext, canonical.CExtra)
	if act.IsReply() {
		s = s.With(canonical.CInReplyTo)
	} else {
		s = s.With(canonical.CCorrelationID)
	}
	switch act {
	case canonical.ActRequest, canonical.ActQueryIf, canonical.ActQueryRef, canonical.ActEvent:
		s = s.With(canonical.COperation, canonical.CArguments)
	case canonical.ActQueryCapabilities:
		s = s.With(canonical.CArguments)
	case canonical.ActInformCapabilities:
		s = s.With(canonical.CCapabilities, canonical.CSenderName)
	case canonical.ActResult:
		s = s.With(canonical.CResult, canonical.COutcome)
	case canonical.ActRefuse, canonical.ActFailure, canonical.ActNotUnderstood:
		s = s.With(canonical.COutcome, canonical.CErrorCode, canonical.CErrorMessage,
			canonical.CErrorRetryable, canonical.CErrorRetryAfter, canonical.CErrorDetails)
	}
	return s
}
