package canonical

import (
	"strconv"
	"strings"
)

// Describe returns a short human-readable rendering of the envelope's value
// for concept c, for warnings and logs ("" when absent).
func (e *Envelope) Describe(c Concept) string {
	if !e.Has(c) {
		return ""
	}
	q := strconv.Quote
	switch c {
	case CID:
		return q(e.ID)
	case CAct:
		return string(e.Act)
	case CSender:
		return q(e.Sender.ID)
	case CSenderName:
		return q(e.Sender.Name)
	case CReceiver:
		if e.Receiver.Kind == AddressBroadcast {
			return "broadcast"
		}
		return e.Receiver.Kind.String() + " " + q(e.Receiver.ID)
	case CReceiverName:
		return q(e.Receiver.Name)
	case CInReplyTo:
		return q(e.InReplyTo)
	case CReplyWith:
		return q(e.ReplyWith)
	case CCorrelationID:
		return q(e.CorrelationID)
	case CConversationID:
		return q(e.ConversationID)
	case CSessionID:
		return q(e.SessionID)
	case CTaskID:
		return q(e.TaskID)
	case CTime:
		return q(string(e.Time))
	case CPriority:
		return e.Priority.String()
	case CDeadline:
		return q(string(e.Deadline))
	case CTTL:
		return e.TTL.D.String()
	case CTraceID:
		return q(e.Trace.TraceID)
	case CSpanID:
		return q(e.Trace.SpanID)
	case CParentSpanID:
		return q(e.Trace.ParentSpanID)
	case CLanguage:
		return q(e.Language)
	case COntology:
		return q(e.Ontology)
	case CCapability:
		return q(e.Operation.Capability)
	case COperation:
		return q(e.Operation.Name)
	case CDescription:
		return clip(q(e.Description))
	case CArguments:
		return clip(string(e.Arguments))
	case CResult:
		return clip(string(e.Result))
	case COutcome:
		return string(e.Outcome)
	case CErrorCode:
		if e.Error.Code != "" {
			return string(e.Error.Code)
		}
		return q(e.Origin.Words.Get(KindError))
	case CErrorMessage:
		return clip(q(e.Error.Message))
	case CErrorRetryable:
		return strconv.FormatBool(*e.Error.Retryable)
	case CErrorRetryAfter:
		return e.Error.RetryAfter.D.String()
	case CErrorDetails:
		return clip(string(e.Error.Details))
	case CErrorSuggestions:
		return clip(string(e.Error.SuggestedActions))
	case CCapabilities:
		names := make([]string, 0, len(e.Capabilities.Tools))
		for _, t := range e.Capabilities.Tools {
			names = append(names, t.Name)
		}
		return "tools [" + strings.Join(names, ", ") + "]"
	case CInputs:
		return clip(string(e.Inputs))
	case CContext:
		return clip(string(e.Context))
	case CMetadata:
		return clip(string(e.Metadata))
	case CAuthentication:
		return "(redacted)"
	case CExtensions:
		return clip(string(e.Extensions))
	case CExtra:
		return strconv.Itoa(len(e.Extra)) + " members"
	}
	return ""
}

func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
