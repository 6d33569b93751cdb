package canonical

import "strconv"

// Concept names one thing an envelope can hold. Loss reports and the tables
// that say what each dialect can carry are written in concepts. A concept's
// value is its position in a ConceptSet; String gives its name.
type Concept uint8

// The concepts of an envelope, in the order of Concepts.
const (
	CID Concept = iota
	CAct
	CSender
	CSenderName
	CReceiver
	CReceiverName
	CInReplyTo
	CReplyWith
	CCorrelationID
	CConversationID
	CSessionID
	CTaskID
	CTime
	CPriority
	CDeadline
	CTTL
	CTraceID
	CSpanID
	CParentSpanID
	CLanguage
	COntology
	CCapability
	COperation
	CDescription
	CArguments
	CResult
	COutcome
	CErrorCode
	CErrorMessage
	CErrorRetryable
	CErrorRetryAfter
	CErrorDetails
	CErrorSuggestions
	CCapabilities
	CInputs
	CContext
	CMetadata
	CAuthentication
	CExtensions
	// CExtra stands for the dialect-specific members in Envelope.Extra.
	CExtra
	numConcepts
)

var conceptNames = [numConcepts]string{
	CID:               "id",
	CAct:              "act",
	CSender:           "sender",
	CSenderName:       "sender.name",
	CReceiver:         "receiver",
	CReceiverName:     "receiver.name",
	CInReplyTo:        "in_reply_to",
	CReplyWith:        "reply_with",
	CCorrelationID:    "correlation_id",
	CConversationID:   "conversation_id",
	CSessionID:        "session_id",
	CTaskID:           "task_id",
	CTime:             "time",
	CPriority:         "priority",
	CDeadline:         "deadline",
	CTTL:              "ttl",
	CTraceID:          "trace.trace_id",
	CSpanID:           "trace.span_id",
	CParentSpanID:     "trace.parent_span_id",
	CLanguage:         "language",
	COntology:         "ontology",
	CCapability:       "operation.capability",
	COperation:        "operation.name",
	CDescription:      "description",
	CArguments:        "arguments",
	CResult:           "result",
	COutcome:          "outcome",
	CErrorCode:        "error.code",
	CErrorMessage:     "error.message",
	CErrorRetryable:   "error.retryable",
	CErrorRetryAfter:  "error.retry_after",
	CErrorDetails:     "error.details",
	CErrorSuggestions: "error.suggested_actions",
	CCapabilities:     "capabilities",
	CInputs:           "inputs",
	CContext:          "context",
	CMetadata:         "metadata",
	CAuthentication:   "authentication",
	CExtensions:       "extensions",
	CExtra:            "extra",
}

// String returns the concept's name ("priority", "error.code"...).
func (c Concept) String() string {
	if c < numConcepts {
		return conceptNames[c]
	}
	return "concept(" + strconv.Itoa(int(c)) + ")"
}

// Concepts lists every concept, in order.
var Concepts = func() []Concept {
	out := make([]Concept, numConcepts)
	for i := range out {
		out[i] = Concept(i)
	}
	return out
}()

// Has reports whether the envelope holds a value for concept c.
func (e *Envelope) Has(c Concept) bool { return e.PresentSet().Has(c) }

// PresentSet returns the set of concepts the envelope holds, in one pass.
func (e *Envelope) PresentSet() ConceptSet {
	var s ConceptSet
	set := func(c Concept, ok bool) {
		if ok {
			s |= 1 << c
		}
	}
	set(CID, e.ID != "")
	set(CAct, e.Act != "")
	set(CSender, e.Sender.ID != "")
	set(CSenderName, e.Sender.Name != "")
	set(CReceiver, e.Receiver.Kind != AddressNone)
	set(CReceiverName, e.Receiver.Name != "")
	set(CInReplyTo, e.InReplyTo != "")
	set(CReplyWith, e.ReplyWith != "")
	set(CCorrelationID, e.CorrelationID != "")
	set(CConversationID, e.ConversationID != "")
	set(CSessionID, e.SessionID != "")
	set(CTaskID, e.TaskID != "")
	set(CTime, e.Time != "")
	set(CPriority, e.Priority != 0)
	set(CDeadline, e.Deadline != "")
	set(CTTL, e.TTL.Set)
	set(CTraceID, e.Trace.TraceID != "")
	set(CSpanID, e.Trace.SpanID != "")
	set(CParentSpanID, e.Trace.ParentSpanID != "")
	set(CLanguage, e.Language != "")
	set(COntology, e.Ontology != "")
	set(CCapability, e.Operation.Capability != "")
	set(COperation, e.Operation.Name != "")
	set(CDescription, e.Description != "")
	set(CArguments, e.Arguments != "")
	set(CResult, e.Result != "")
	set(COutcome, e.Outcome != "")
	if er := e.Error; er != nil {
		set(CErrorCode, er.Code != "" || e.Origin.Words.Get(KindError) != "")
		set(CErrorMessage, er.Message != "")
		set(CErrorRetryable, er.Retryable != nil)
		set(CErrorRetryAfter, er.RetryAfter.Set)
		set(CErrorDetails, er.Details != "")
		set(CErrorSuggestions, er.SuggestedActions != "")
	}
	set(CCapabilities, e.Capabilities != nil)
	set(CInputs, e.Inputs != "")
	set(CContext, e.Context != "")
	set(CMetadata, e.Metadata != "")
	set(CAuthentication, e.Authentication != "")
	set(CExtensions, e.Extensions != "")
	set(CExtra, len(e.Extra) > 0)
	return s
}

// Present returns the concepts the envelope holds, in Concepts order.
func (e *Envelope) Present() []Concept { return e.PresentSet().List() }

// ConceptSet is a set of concepts.
type ConceptSet uint64

// SetOf returns the set of the given concepts.
func SetOf(cs ...Concept) ConceptSet {
	var s ConceptSet
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

// Has reports whether c is in the set.
func (s ConceptSet) Has(c Concept) bool { return s&(1<<c) != 0 }

// With returns the set with cs added.
func (s ConceptSet) With(cs ...Concept) ConceptSet { return s | SetOf(cs...) }

// Without returns the set with cs removed.
func (s ConceptSet) Without(cs ...Concept) ConceptSet { return s &^ SetOf(cs...) }

// List returns the set's concepts in Concepts order.
func (s ConceptSet) List() []Concept {
	var out []Concept
	for c := Concept(0); c < numConcepts; c++ {
		if s.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// ParseConcept returns the concept named name ("error.code", "ttl"...).
func ParseConcept(name string) (Concept, bool) {
	for c, n := range conceptNames {
		if n == name {
			return Concept(c), true
		}
	}
	return 0, false
}
