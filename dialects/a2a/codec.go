// Package a2a is the codec of the a2a dialect: the JSON-RPC 2.0 binding of
// the Agent2Agent protocol (A2A v1.0, as github.com/a2aproject/a2a-go/v2
// speaks it). Its requests are SendMessage, SendStreamingMessage, GetTask
// and CancelTask; its answers are a Message, a Task, a task status update
// or a JSON-RPC error.
package a2a

import (
	_ "embed"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Name is the dialect's name.
const Name = "a2a"

//go:embed schema.json
var schemaJSON []byte

// Codec reads and writes a2a frames.
type Codec struct {
	dialects.Base
}

// New returns an a2a codec using the vocabulary v (the a2a tables of a
// mapping set).
func New(v *mappings.Vocabulary) *Codec {
	return &Codec{Base: dialects.NewBase(Name, schemaJSON, v)}
}

// The JSON-RPC methods the codec translates (A2A v1.0 section 9).
const (
	methodSend       = "SendMessage"
	methodSendStream = "SendStreamingMessage"
	methodGetTask    = "GetTask"
	methodCancelTask = "CancelTask"
)

// The message roles.
const (
	roleUser  = "ROLE_USER"
	roleAgent = "ROLE_AGENT"
)

// The task state a canceled task is in: a failure whose message, when the
// status has none, is "canceled".
const (
	stateCanceled = "TASK_STATE_CANCELED"
	canceledText  = "canceled"
)

// jsonrpcVersion is the only value of the jsonrpc member.
const jsonrpcVersion = "2.0"

// Holds says which concepts an a2a frame of each act can carry, as the
// encoder writes it for an envelope from another dialect.
func (c *Codec) Holds(act canonical.Act) canonical.ConceptSet {
	return holdsOf(defaultShape(act), act)
}

// holdsOf is what a frame of shape s carries for act.
func holdsOf(s shape, act canonical.Act) canonical.ConceptSet {
	base := canonical.SetOf(canonical.CAct, canonical.CExtra)
	switch s {
	case shapeSend:
		return base.With(canonical.CID, canonical.CReceiver, canonical.CTaskID, canonical.CCorrelationID, canonical.COperation,
			canonical.CArguments, canonical.CMetadata)
	case shapeGet:
		return base.With(canonical.CID, canonical.CTaskID)
	case shapeCancel:
		return base.With(canonical.CID, canonical.CTaskID, canonical.CMetadata)
	case shapeMessage:
		return base.With(canonical.CInReplyTo, canonical.CTaskID, canonical.CCorrelationID,
			canonical.CResult, canonical.CMetadata)
	case shapeError:
		return base.With(canonical.CInReplyTo, canonical.CErrorCode, canonical.CErrorMessage, canonical.CErrorDetails)
	case shapeTask, shapeBare, shapeStatus:
		s := base.With(canonical.CInReplyTo, canonical.CTaskID, canonical.CCorrelationID, canonical.CTime, canonical.CMetadata)
		switch act {
		case canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
			return s.With(canonical.CErrorCode, canonical.CErrorMessage, canonical.CErrorDetails)
		case canonical.ActResult:
			return s.With(canonical.CDescription, canonical.CResult)
		case canonical.ActNeedsInput:
			return s.With(canonical.CDescription, canonical.CInputs)
		}
		return s.With(canonical.CDescription)
	}
	return base
}
