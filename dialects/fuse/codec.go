// Package fuse is the codec of the fuse dialect (specs/fuse.md): the Model
// Context Protocol of the Fuse framework, with request, response and event
// messages around a content object, and the capability declaration. It reads
// both response shapes found in the wild: the spec's (content.status,
// content.data, content.requestId) and the upstream guide's (top-level
// requestId, content.success, content.result).
package fuse

import (
	_ "embed"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Name is the dialect's name.
const Name = "fuse"

// The capability discovery exchange. fuse has no message type of its own for
// asking an agent what it can do: a request for this capability and action
// is the question (act query-capabilities), and a response or event whose
// content carries a "capabilities" array is the answer (act
// inform-capabilities).
const (
	// DiscoveryCapability is the content.capability of a capability query.
	DiscoveryCapability = "discovery"
	// ListCapabilitiesAction is the content.action of a capability query.
	ListCapabilitiesAction = "list-capabilities"
	// CapabilitiesEvent is the content.eventType of an unsolicited
	// capability declaration.
	CapabilitiesEvent = "capabilities"
)

// The Origin.Form values of a response, by where its requestId sits and, but
// for a capability declaration, its content's layout: the spec's
// (content.status and content.data) or the upstream guide's (content.success
// and content.result). "" is the spec's layout with content.requestId.
const (
	// FormGuide is the upstream guide's shape: requestId at the top level,
	// content.success and content.result. A capability declaration with
	// its requestId at the top level has this form too.
	FormGuide = "guide"
	// FormGuideContentID is the guide's content.success and
	// content.result with the spec's content.requestId.
	FormGuideContentID = "guide-content-id"
	// FormSpecTopID is the spec's content.status and content.data with the
	// guide's top-level requestId.
	FormSpecTopID = "spec-top-id"
	// FormDeclaration is the spec's Capability Declaration document: a
	// top-level "capabilities" array with no messageType and no content,
	// sent by the agent of its connection (act inform-capabilities).
	FormDeclaration = "declaration"
)

//go:embed schema.json
var schemaJSON []byte

// Codec reads and writes fuse messages.
type Codec struct {
	dialects.Base
}

// New returns a fuse codec using the vocabulary v (the fuse tables of a
// mapping set).
func New(v *mappings.Vocabulary) *Codec {
	return &Codec{Base: dialects.NewBase(Name, schemaJSON, v)}
}

// shape is the layout of a message's content.
type shape uint8

const (
	shapeOther        shape = iota // content has no interpreted members
	shapeRequest                   // capability, action, parameters, contextId
	shapeDiscovery                 // a request for DiscoveryCapability / ListCapabilitiesAction
	shapeResult                    // status success or error (success true or false), data; no error object
	shapeError                     // status error (or success false), error
	shapeCapsReply                 // a response carrying a capability declaration
	shapeCapsEvent                 // an event carrying a capability declaration
	shapeCapsDocument              // the declaration document: no messageType, no content
	shapeEvent                     // eventType, data
)

// shapeOf returns the content layout a message type's canonical act (the
// act table's meaning of messageType) implies before the content is read.
func shapeOf(act canonical.Act) shape {
	switch {
	case act == canonical.ActEvent:
		return shapeEvent
	case act == canonical.ActRequest, act == canonical.ActQueryIf, act == canonical.ActQueryRef:
		return shapeRequest
	case act == canonical.ActResult || act.IsError():
		return shapeResult
	}
	return shapeOther
}

// Holds says which concepts a fuse message of each act can carry.
func (c *Codec) Holds(act canonical.Act) canonical.ConceptSet {
	s := canonical.SetOf(canonical.CID, canonical.CAct, canonical.CSender, canonical.CSenderName,
		canonical.CReceiver, canonical.CReceiverName, canonical.CTime, canonical.CCorrelationID,
		canonical.CSessionID, canonical.CMetadata, canonical.CAuthentication, canonical.CExtensions,
		canonical.CExtra)
	if act.IsReply() {
		s = s.With(canonical.CInReplyTo)
	}
	switch act {
	case canonical.ActRequest, canonical.ActQueryIf, canonical.ActQueryRef:
		s = s.With(canonical.CCapability, canonical.COperation, canonical.CArguments, canonical.CConversationID)
	case canonical.ActQueryCapabilities:
		// The operation is fixed (DiscoveryCapability / ListCapabilitiesAction).
		s = s.With(canonical.CArguments, canonical.CConversationID)
	case canonical.ActResult:
		s = s.With(canonical.CResult, canonical.COutcome)
	case canonical.ActRefuse, canonical.ActFailure, canonical.ActNotUnderstood:
		s = s.With(canonical.COutcome, canonical.CErrorCode, canonical.CErrorMessage, canonical.CErrorDetails)
	case canonical.ActEvent:
		s = s.With(canonical.COperation, canonical.CArguments)
	case canonical.ActInformCapabilities:
		s = s.With(canonical.CCapabilities)
	}
	return s
}

// errorAct returns the act an error response with canonical code means.
func errorAct(code canonical.ErrorCode) canonical.Act {
	switch code {
	case canonical.ErrInvalidMessage:
		return canonical.ActNotUnderstood
	case canonical.ErrRejected:
		return canonical.ActRefuse
	}
	return canonical.ActFailure
}
