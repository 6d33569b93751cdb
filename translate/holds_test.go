package translate_test

import (
	c "github.com/mcp-bridge/mcp-bridge/canonical"
)

// This file is the test's own statement of what each dialect can carry,
// written from the specs, independently of the codecs' holds functions. The
// pair tests check every translation's warnings against it exactly.

// base are the concepts every message of a dialect can carry, whatever its act.
var base = map[string]c.ConceptSet{
	"elizaacl":  c.SetOf(c.CID, c.CAct, c.CSender, c.CReceiver, c.CInReplyTo, c.CReplyWith, c.CTime, c.CLanguage, c.COntology),
	"collab":    c.SetOf(c.CID, c.CAct, c.CSender, c.CReceiver, c.CTime, c.CPriority, c.CTTL, c.CTraceID, c.CSpanID, c.CParentSpanID),
	"bluelabel": c.SetOf(c.CAct, c.CSender, c.CReceiver, c.CTime, c.CTaskID, c.CTraceID, c.CContext),
	"fuse":      c.SetOf(c.CID, c.CAct, c.CSender, c.CSenderName, c.CReceiver, c.CReceiverName, c.CTime, c.CCorrelationID, c.CSessionID, c.CMetadata, c.CAuthentication, c.CExtensions),
	"swarm":     c.SetOf(c.CID, c.CAct, c.CSender, c.CReceiver, c.CTime, c.CPriority),
	"a2a":       c.SetOf(c.CAct),
}

// byAct are the concepts a dialect carries for particular acts, on top of base.
var byAct = map[string]map[c.Act]c.ConceptSet{
	"elizaacl": {
		c.ActRequest:            c.SetOf(c.COperation, c.CDescription, c.CArguments, c.CPriority),
		c.ActAccept:             c.SetOf(c.CTaskID, c.CTTL, c.CDescription),
		c.ActResult:             c.SetOf(c.COutcome, c.CDescription, c.CResult),
		c.ActRefuse:             c.SetOf(c.CErrorCode, c.CErrorMessage),
		c.ActFailure:            c.SetOf(c.CErrorCode, c.CErrorMessage),
		c.ActNotUnderstood:      c.SetOf(c.CErrorCode, c.CErrorMessage),
		c.ActQueryIf:            c.SetOf(c.CArguments),
		c.ActQueryRef:           c.SetOf(c.CArguments),
		c.ActQueryCapabilities:  c.SetOf(c.CArguments),
		c.ActInformCapabilities: c.SetOf(c.CCapabilities, c.COutcome),
	},
	"collab": {
		c.ActRequest:            c.SetOf(c.COperation, c.CArguments, c.CContext),
		c.ActQueryIf:            c.SetOf(c.COperation, c.CArguments, c.CContext),
		c.ActQueryRef:           c.SetOf(c.COperation, c.CArguments, c.CContext),
		c.ActQueryCapabilities:  c.SetOf(c.CArguments, c.CContext),
		c.ActInformCapabilities: c.SetOf(c.CCapabilities, c.CSenderName, c.CContext),
		c.ActResult:             c.SetOf(c.CResult, c.COutcome, c.CContext),
		c.ActRefuse:             collabError,
		c.ActFailure:            collabError,
		c.ActNotUnderstood:      collabError,
		c.ActEvent:              c.SetOf(c.COperation, c.CArguments, c.CContext),
	},
	"bluelabel": {
		c.ActRequest:       c.SetOf(c.COperation, c.CDescription, c.CArguments, c.CPriority, c.CDeadline, c.CTTL, c.CMetadata),
		c.ActResult:        c.SetOf(c.COutcome, c.CResult, c.CDescription),
		c.ActRefuse:        bluelabelError,
		c.ActFailure:       bluelabelError,
		c.ActNotUnderstood: bluelabelError,
		c.ActNeedsInput:    c.SetOf(c.CInputs, c.CDescription, c.CTTL),
	},
	"fuse": {
		c.ActRequest:            fuseRequest,
		c.ActQueryIf:            fuseRequest,
		c.ActQueryRef:           fuseRequest,
		c.ActQueryCapabilities:  fuseRequest,
		c.ActResult:             c.SetOf(c.CResult, c.COutcome),
		c.ActRefuse:             fuseError,
		c.ActFailure:            fuseError,
		c.ActNotUnderstood:      fuseError,
		c.ActEvent:              c.SetOf(c.COperation, c.CArguments),
		c.ActInformCapabilities: c.SetOf(c.CCapabilities),
	},
	"a2a": {
		c.ActRequest:       a2aRequest,
		c.ActQueryIf:       a2aRequest,
		c.ActQueryRef:      a2aRequest,
		c.ActAccept:        a2aTask.With(c.CDescription),
		c.ActResult:        a2aTask.With(c.CDescription, c.CResult),
		c.ActRefuse:        a2aTask | a2aError,
		c.ActFailure:       a2aTask | a2aError,
		c.ActNotUnderstood: a2aError,
		c.ActNeedsInput:    a2aTask.With(c.CInReplyTo, c.CDescription, c.CInputs),
	},
	"swarm": {
		c.ActRequest:            c.SetOf(c.COperation, c.CArguments, c.CTTL),
		c.ActQueryIf:            c.SetOf(c.COperation, c.CArguments, c.CTTL),
		c.ActQueryRef:           c.SetOf(c.COperation, c.CArguments, c.CTTL),
		c.ActResult:             c.SetOf(c.CResult, c.COutcome, c.CErrorMessage),
		c.ActRefuse:             c.SetOf(c.CErrorCode, c.CErrorMessage, c.CErrorDetails),
		c.ActFailure:            c.SetOf(c.CErrorCode, c.CErrorMessage, c.CErrorDetails),
		c.ActNotUnderstood:      c.SetOf(c.CErrorCode, c.CErrorMessage, c.CErrorDetails),
		c.ActEvent:              c.SetOf(c.COperation, c.CArguments),
		c.ActQueryCapabilities:  c.SetOf(c.CCapabilities, c.CSenderName),
		c.ActInformCapabilities: c.SetOf(c.CCapabilities, c.CSenderName, c.COutcome),
	},
}

var (
	collabError    = c.SetOf(c.COutcome, c.CErrorCode, c.CErrorMessage, c.CErrorRetryable, c.CErrorRetryAfter, c.CErrorDetails, c.CContext)
	bluelabelError = c.SetOf(c.CErrorCode, c.CErrorMessage, c.CErrorDetails, c.CErrorRetryable, c.CErrorSuggestions)
	fuseRequest    = c.SetOf(c.CCapability, c.COperation, c.CArguments, c.CConversationID)
	fuseError      = c.SetOf(c.COutcome, c.CErrorCode, c.CErrorMessage, c.CErrorDetails)
	// a2a: a SendMessage (message.taskId, contextId, metadata.skill, one
	// data part, params.metadata); an answer is a task or a status update
	// (id, contextId, status timestamp, metadata; the status message's text,
	// and data: the inputs asked for, or a failure's code and details), or
	// a JSON-RPC error (code, message, data).
	a2aRequest = c.SetOf(c.CID, c.CReceiver, c.CTaskID, c.CCorrelationID, c.COperation, c.CArguments, c.CMetadata)
	a2aTask    = c.SetOf(c.CTaskID, c.CCorrelationID, c.CTime, c.CMetadata)
	a2aError   = c.SetOf(c.CErrorCode, c.CErrorMessage, c.CErrorDetails)
)

// replyField says where a dialect keeps "this answers message X" (replies)
// and a correlation id (other messages).
var replyField = map[string]struct{ reply, other c.ConceptSet }{
	"elizaacl":  {c.SetOf(c.CInReplyTo), 0},
	"collab":    {c.SetOf(c.CInReplyTo), c.SetOf(c.CCorrelationID)},
	"bluelabel": {0, 0},
	"fuse":      {c.SetOf(c.CInReplyTo), 0},
	"swarm":     {c.SetOf(c.CInReplyTo), c.SetOf(c.CCorrelationID)},
	"a2a":       {c.SetOf(c.CInReplyTo), 0},
}

// holds returns what dialect d carries for act a.
func holds(d string, a c.Act) c.ConceptSet {
	s := base[d] | byAct[d][a]
	if rf := replyField[d]; a.IsReply() {
		s |= rf.reply
	} else {
		s |= rf.other
	}
	return s
}

// inexpressible are the acts a dialect has no message for at all.
var inexpressible = map[string][]c.Act{
	"elizaacl":  {c.ActEvent, c.ActNeedsInput},
	"collab":    {c.ActAccept, c.ActNeedsInput},
	"bluelabel": {c.ActAccept, c.ActQueryIf, c.ActQueryRef, c.ActQueryCapabilities, c.ActInformCapabilities, c.ActEvent},
	"fuse":      {c.ActAccept, c.ActNeedsInput},
	"swarm":     {c.ActAccept, c.ActNeedsInput},
	"a2a":       {c.ActQueryCapabilities, c.ActInformCapabilities, c.ActEvent},
}

// approximatedActs are the acts a dialect writes as another act's message;
// they decode back as that other act.
var approximatedActs = map[string][]c.Act{
	"elizaacl":  nil,
	"collab":    {c.ActNotUnderstood, c.ActQueryIf, c.ActQueryRef},
	"bluelabel": nil,
	"fuse":      {c.ActQueryIf, c.ActQueryRef},
	"swarm":     {c.ActRefuse, c.ActNotUnderstood, c.ActQueryIf, c.ActQueryRef},
	"a2a":       {c.ActQueryIf, c.ActQueryRef},
}
