// Package elizaacl is the codec of the elizaacl dialect (specs/elizaacl.md,
// specs/elizaacl-patterns.md): the FIPA-ACL-like Multi-Agent Communication
// Protocol draft of ElizaOS, ten performatives in one envelope whose payload
// shape depends on the performative.
package elizaacl

import (
	_ "embed"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Name is the dialect's name.
const Name = "elizaacl"

//go:embed schema.json
var schemaJSON []byte

// Codec reads and writes elizaacl messages.
type Codec struct {
	dialects.Base
}

// New returns an elizaacl codec using the vocabulary v (the elizaacl tables
// of a mapping set).
func New(v *mappings.Vocabulary) *Codec {
	return &Codec{Base: dialects.NewBase(Name, schemaJSON, v)}
}

// version is the protocol version written on messages built from other
// dialects (specs/elizaacl.md is version 0.1.0).
const version = "0.1.0"

// formNoPayload is the Origin.Form of a message that has no payload member
// at all (fragments such as a bare {"performative": "TASK_ACCEPT"}); the
// default form "" has one.
const formNoPayload = "no-payload"

// The fixed status words of the acknowledgement payloads (spec 4.2, 4.5,
// 4.6), written on messages built from other dialects. Decoded messages keep
// their own status member verbatim in Extra.
const (
	statusAccepted = "accepted"
	statusRejected = "rejected"
	statusFailure  = "failure"
)

// Holds says which concepts an elizaacl message of each act can carry.
func (c *Codec) Holds(act canonical.Act) canonical.ConceptSet {
	s := canonical.SetOf(canonical.CID, canonical.CAct, canonical.CSender, canonical.CReceiver,
		canonical.CInReplyTo, canonical.CReplyWith, canonical.CTime, canonical.CLanguage,
		canonical.COntology, canonical.CExtra)
	switch act {
	case canonical.ActRequest:
		s = s.With(canonical.COperation, canonical.CDescription, canonical.CArguments, canonical.CPriority)
	case canonical.ActAccept:
		s = s.With(canonical.CTaskID, canonical.CTTL, canonical.CDescription)
	case canonical.ActResult:
		s = s.With(canonical.COutcome, canonical.CDescription, canonical.CResult)
	case canonical.ActRefuse, canonical.ActFailure, canonical.ActNotUnderstood:
		s = s.With(canonical.CErrorCode, canonical.CErrorMessage)
	case canonical.ActQueryIf, canonical.ActQueryRef, canonical.ActQueryCapabilities:
		s = s.With(canonical.CArguments)
	case canonical.ActInformCapabilities:
		s = s.With(canonical.CCapabilities, canonical.COutcome)
	}
	return s
}
