// Package swarm is the codec of the swarm dialect (specs/swarm.md): the
// MCP-to-MCP bridge protocol of mcp-swarm, six message types in a flat
// envelope with a typed payload.
package swarm

import (
	_ "embed"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Name is the dialect's name.
const Name = "swarm"

//go:embed schema.json
var schemaJSON []byte

// Codec reads and writes swarm messages.
type Codec struct {
	dialects.Base
}

// New returns a swarm codec using the vocabulary v (the swarm tables of a
// mapping set).
func New(v *mappings.Vocabulary) *Codec {
	return &Codec{Base: dialects.NewBase(Name, schemaJSON, v)}
}

// The message types.
const (
	typeRequest           = "request"
	typeResponse          = "response"
	typeError             = "error"
	typeNotification      = "notification"
	typeHandshakeRequest  = "handshake_request"
	typeHandshakeResponse = "handshake_response"
)

// Holds says which concepts a swarm message of each act can carry.
func (c *Codec) Holds(act canonical.Act) canonical.ConceptSet {
	s := canonical.SetOf(canonical.CID, canonical.CAct, canonical.CSender, canonical.CReceiver, canonical.CTime, canonical.CPriority, canonical.CExtra)
	if act.IsReply() {
		s = s.With(canonical.CInReplyTo)
	} else {
		s = s.With(canonical.CCorrelationID)
	}
	switch act {
	case canonical.ActRequest, canonical.ActQueryIf, canonical.ActQueryRef:
		s = s.With(canonical.COperation, canonical.CArguments, canonical.CTTL)
	case canonical.ActResult:
		s = s.With(canonical.CResult, canonical.COutcome, canonical.CErrorMessage)
	case canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
		s = s.With(canonical.CErrorCode, canonical.CErrorMessage, canonical.CErrorDetails)
	case canonical.ActEvent:
		s = s.With(canonical.COperation, canonical.CArguments)
	case canonical.ActQueryCapabilities:
		s = s.With(canonical.CCapabilities, canonical.CSenderName)
	case canonical.ActInformCapabilities:
		s = s.With(canonical.CCapabilities, canonical.CSenderName, canonical.COutcome)
	}
	return s
}
