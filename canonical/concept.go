package canonical

// Concept names one thing an envelope can hold. Loss reports and the tables
// that say what each dialect can carry are written in concepts.
type Concept string

// The concepts of an envelope.
const (
	CID               Concept = "id"
	CAct              Concept = "act"
	CSender           Concept = "sender"
	CSenderName       Concept = "sender.name"
	CReceiver         Concept = "receiver"
	CReceiverName     Concept = "receiver.name"
	CInReplyTo        Concept = "in_reply_to"
	CReplyWith        Concept = "reply_with"
	CCorrelationID    Concept = "correlation_id"
	CConversationID   Concept = "conversation_id"
	CSessionID        Concept = "session_id"
	CTaskID           Concept = "task_id"
	CTime             Concept = "time"
	CPriority         Concept = "priority"
	CDeadline         Concept = "deadline"
	CTTL              Concept = "ttl"
	CTraceID          Concept = "trace.trace_id"
	CSpanID           Concept = "trace.span_id"
	CParentSpanID     Concept = "trace.parent_span_id"
	CLanguage         Concept = "language"
	COntology         Concept = "ontology"
	CCapability       Concept = "operation.capability"
	COperation        Concept = "operation.name"
	CDescription      Concept = "description"
	CArguments        Concept = "arguments"
	CResult           Concept = "result"
	COutcome          Concept = "outcome"
	CErrorCode        Concept = "error.code"
	CErrorMessage     Concept = "error.message"
	CErrorRetryable   Concept = "error.retryable"
	CErrorRetryAfter  Concept = "error.retry_after"
	CErrorDetails     Concept = "error.details"
	CErrorSuggestions Concept = "error.suggested_actions"
	CCapabilities     Concept = "capabilities"
	CInputs           Concept = "inputs"
	CContext          Concept = "context"
	CMetadata         Concept = "metadata"
	CAuthentication   Concept = "authentication"
	CExtensions       Concept = "extensions"
	// CExtra stands for the dialect-specific members in Envelope.Extra.
	CExtra Concept = "extra"
)

// Concepts lists every concept in a fixed order.
var Concepts = []Concept{
	CID, CAct, CSender, CSenderName, CReceiver, CReceiverName, CInReplyTo,
	CReplyWith, CCorrelationID, CConversationID, CSessionID, CTaskID, CTime,
	CPriority, CDeadline, CTTL, CTraceID, CSpanID, CParentSpanID, CLanguage,
	COntology, CCapability, COperation, CDescription, CArguments, CResult,
	COutcome, CErrorCode, CErrorMessage, CErrorRetryable, CErrorRetryAfter,
	CErrorDetails, CErrorSuggestions, CCapabilities, CInputs, CContext,
	CMetadata, CAuthentication, CExtensions, CExtra,
}

// Has reports whether the envelope holds a value for concept c.
func (e *Envelope) Has(c Concept) bool {
	switch c {
	case CID:
		return e.ID != ""
	case CAct:
		return e.Act != ""
	case CSender:
		return e.Sender.ID != ""
	case CSenderName:
		return e.Sender.Name != ""
	case CReceiver:
		return e.Receiver.Kind != AddressNone
	case CReceiverName:
		return e.Receiver.Name != ""
	case CInReplyTo:
		return e.InReplyTo != ""
	case CReplyWith:
		return e.ReplyWith != ""
	case CCorrelationID:
		return e.CorrelationID != ""
	case CConversationID:
		return e.ConversationID != ""
	case CSessionID:
		return e.SessionID != ""
	case CTaskID:
		return e.TaskID != ""
	case CTime:
		return e.Time != ""
	case CPriority:
		return e.Priority != 0
	case CDeadline:
		return e.Deadline != ""
	case CTTL:
		return e.TTL.Set
	case CTraceID:
		return e.Trace.TraceID != ""
	case CSpanID:
		return e.Trace.SpanID != ""
	case CParentSpanID:
		return e.Trace.ParentSpanID != ""
	case CLanguage:
		return e.Language != ""
	case COntology:
		return e.Ontology != ""
	case CCapability:
		return e.Operation.Capability != ""
	case COperation:
		return e.Operation.Name != ""
	case CDescription:
		return e.Description != ""
	case CArguments:
		return e.Arguments != ""
	case CResult:
		return e.Result != ""
	case COutcome:
		return e.Outcome != ""
	case CErrorCode:
		return e.Error != nil && (e.Error.Code != "" || e.Origin.Words[KindError] != "")
	case CErrorMessage:
		return e.Error != nil && e.Error.Message != ""
	case CErrorRetryable:
		return e.Error != nil && e.Error.Retryable != nil
	case CErrorRetryAfter:
		return e.Error != nil && e.Error.RetryAfter.Set
	case CErrorDetails:
		return e.Error != nil && e.Error.Details != ""
	case CErrorSuggestions:
		return e.Error != nil && e.Error.SuggestedActions != ""
	case CCapabilities:
		return e.Capabilities != nil
	case CInputs:
		return e.Inputs != ""
	case CContext:
		return e.Context != ""
	case CMetadata:
		return e.Metadata != ""
	case CAuthentication:
		return e.Authentication != ""
	case CExtensions:
		return e.Extensions != ""
	case CExtra:
		return len(e.Extra) > 0
	}
	return false
}

// Present returns the concepts the envelope holds, in Concepts order.
func (e *Envelope) Present() []Concept {
	var out []Concept
	for _, c := range Concepts {
		if e.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// ConceptSet is a set of concepts.
type ConceptSet uint64

var conceptBit = func() map[Concept]ConceptSet {
	m := make(map[Concept]ConceptSet, len(Concepts))
	for i, c := range Concepts {
		m[c] = 1 << i
	}
	return m
}()

// SetOf returns the set of the given concepts.
func SetOf(cs ...Concept) ConceptSet {
	var s ConceptSet
	for _, c := range cs {
		s |= conceptBit[c]
	}
	return s
}

// Has reports whether c is in the set.
func (s ConceptSet) Has(c Concept) bool { return s&conceptBit[c] != 0 }

// With returns the set with cs added.
func (s ConceptSet) With(cs ...Concept) ConceptSet { return s | SetOf(cs...) }

// Without returns the set with cs removed.
func (s ConceptSet) Without(cs ...Concept) ConceptSet { return s &^ SetOf(cs...) }

// List returns the set's concepts in Concepts order.
func (s ConceptSet) List() []Concept {
	var out []Concept
	for _, c := range Concepts {
		if s.Has(c) {
			out = append(out, c)
		}
	}
	return out
}
