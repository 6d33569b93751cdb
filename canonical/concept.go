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

// Bit positions of the concepts in a ConceptSet: the order of Concepts.
const (
	iID = iota
	iAct
	iSender
	iSenderName
	iReceiver
	iReceiverName
	iInReplyTo
	iReplyWith
	iCorrelationID
	iConversationID
	iSessionID
	iTaskID
	iTime
	iPriority
	iDeadline
	iTTL
	iTraceID
	iSpanID
	iParentSpanID
	iLanguage
	iOntology
	iCapability
	iOperation
	iDescription
	iArguments
	iResult
	iOutcome
	iErrorCode
	iErrorMessage
	iErrorRetryable
	iErrorRetryAfter
	iErrorDetails
	iErrorSuggestions
	iCapabilities
	iInputs
	iContext
	iMetadata
	iAuthentication
	iExtensions
	iExtra
	numConcepts
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
func (e *Envelope) Has(c Concept) bool { return e.PresentSet().Has(c) }

// PresentSet returns the set of concepts the envelope holds, in one pass.
func (e *Envelope) PresentSet() ConceptSet {
	var s ConceptSet
	set := func(i int, ok bool) {
		if ok {
			s |= 1 << i
		}
	}
	set(iID, e.ID != "")
	set(iAct, e.Act != "")
	set(iSender, e.Sender.ID != "")
	set(iSenderName, e.Sender.Name != "")
	set(iReceiver, e.Receiver.Kind != AddressNone)
	set(iReceiverName, e.Receiver.Name != "")
	set(iInReplyTo, e.InReplyTo != "")
	set(iReplyWith, e.ReplyWith != "")
	set(iCorrelationID, e.CorrelationID != "")
	set(iConversationID, e.ConversationID != "")
	set(iSessionID, e.SessionID != "")
	set(iTaskID, e.TaskID != "")
	set(iTime, e.Time != "")
	set(iPriority, e.Priority != 0)
	set(iDeadline, e.Deadline != "")
	set(iTTL, e.TTL.Set)
	set(iTraceID, e.Trace.TraceID != "")
	set(iSpanID, e.Trace.SpanID != "")
	set(iParentSpanID, e.Trace.ParentSpanID != "")
	set(iLanguage, e.Language != "")
	set(iOntology, e.Ontology != "")
	set(iCapability, e.Operation.Capability != "")
	set(iOperation, e.Operation.Name != "")
	set(iDescription, e.Description != "")
	set(iArguments, e.Arguments != "")
	set(iResult, e.Result != "")
	set(iOutcome, e.Outcome != "")
	if er := e.Error; er != nil {
		set(iErrorCode, er.Code != "" || e.Origin.Words.Get(KindError) != "")
		set(iErrorMessage, er.Message != "")
		set(iErrorRetryable, er.Retryable != nil)
		set(iErrorRetryAfter, er.RetryAfter.Set)
		set(iErrorDetails, er.Details != "")
		set(iErrorSuggestions, er.SuggestedActions != "")
	}
	set(iCapabilities, e.Capabilities != nil)
	set(iInputs, e.Inputs != "")
	set(iContext, e.Context != "")
	set(iMetadata, e.Metadata != "")
	set(iAuthentication, e.Authentication != "")
	set(iExtensions, e.Extensions != "")
	set(iExtra, len(e.Extra) > 0)
	return s
}

// Present returns the concepts the envelope holds, in Concepts order.
func (e *Envelope) Present() []Concept { return e.PresentSet().List() }

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
