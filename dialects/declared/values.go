package declared

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// The receiver conventions: "*" is every agent, "topic:NAME" a topic, any
// other text one agent.
const (
	broadcast   = "*"
	topicPrefix = "topic:"
)

// setText sets the value of a text concept, s not empty.
func setText(env *canonical.Envelope, c canonical.Concept, s string) {
	switch c {
	case canonical.CReceiver:
		switch {
		case s == broadcast:
			env.Receiver.Kind = canonical.AddressBroadcast
		case strings.HasPrefix(s, topicPrefix):
			env.Receiver.Kind, env.Receiver.ID = canonical.AddressTopic, s[len(topicPrefix):]
		default:
			env.Receiver.Kind, env.Receiver.ID = canonical.AddressAgent, s
		}
	case canonical.CTime:
		env.Time = canonical.Timestamp(s)
	case canonical.CDeadline:
		env.Deadline = canonical.Timestamp(s)
	case canonical.CErrorMessage:
		errorOf(env).Message = s
	default:
		if p := textOf(env, c); p != nil {
			*p = s
		}
	}
}

// text returns the value of a text concept ("" when absent).
func text(env *canonical.Envelope, c canonical.Concept) string {
	switch c {
	case canonical.CReceiver:
		switch r := env.Receiver; r.Kind {
		case canonical.AddressBroadcast:
			return broadcast
		case canonical.AddressTopic:
			return topicPrefix + r.ID
		case canonical.AddressAgent:
			return r.ID
		}
		return ""
	case canonical.CTime:
		return string(env.Time)
	case canonical.CDeadline:
		return string(env.Deadline)
	case canonical.CErrorMessage:
		if env.Error == nil {
			return ""
		}
		return env.Error.Message
	}
	if p := textOf(env, c); p != nil {
		return *p
	}
	return ""
}

// textOf returns the envelope's string of a plain text concept.
func textOf(env *canonical.Envelope, c canonical.Concept) *string {
	switch c {
	case canonical.CID:
		return &env.ID
	case canonical.CSender:
		return &env.Sender.ID
	case canonical.CSenderName:
		return &env.Sender.Name
	case canonical.CReceiverName:
		return &env.Receiver.Name
	case canonical.CInReplyTo:
		return &env.InReplyTo
	case canonical.CReplyWith:
		return &env.ReplyWith
	case canonical.CCorrelationID:
		return &env.CorrelationID
	case canonical.CConversationID:
		return &env.ConversationID
	case canonical.CSessionID:
		return &env.SessionID
	case canonical.CTaskID:
		return &env.TaskID
	case canonical.CTraceID:
		return &env.Trace.TraceID
	case canonical.CSpanID:
		return &env.Trace.SpanID
	case canonical.CParentSpanID:
		return &env.Trace.ParentSpanID
	case canonical.CLanguage:
		return &env.Language
	case canonical.COntology:
		return &env.Ontology
	case canonical.CCapability:
		return &env.Operation.Capability
	case canonical.COperation:
		return &env.Operation.Name
	case canonical.CDescription:
		return &env.Description
	}
	return nil
}

// setRaw sets the value of a raw concept.
func setRaw(env *canonical.Envelope, c canonical.Concept, v canonical.JSON) {
	if c == canonical.CErrorDetails {
		errorOf(env).Details = v
		return
	}
	if p := rawOf(env, c); p != nil {
		*p = v
	}
}

// raw returns the value of a raw concept ("" when absent).
func raw(env *canonical.Envelope, c canonical.Concept) canonical.JSON {
	if c == canonical.CErrorDetails {
		if env.Error == nil {
			return ""
		}
		return env.Error.Details
	}
	if p := rawOf(env, c); p != nil {
		return *p
	}
	return ""
}

// rawOf returns the envelope's JSON of a raw concept.
func rawOf(env *canonical.Envelope, c canonical.Concept) *canonical.JSON {
	switch c {
	case canonical.CArguments:
		return &env.Arguments
	case canonical.CResult:
		return &env.Result
	case canonical.CInputs:
		return &env.Inputs
	case canonical.CContext:
		return &env.Context
	case canonical.CMetadata:
		return &env.Metadata
	case canonical.CAuthentication:
		return &env.Authentication
	case canonical.CExtensions:
		return &env.Extensions
	}
	return nil
}

// errorOf returns env.Error, created when absent.
func errorOf(env *canonical.Envelope) *canonical.Error {
	if env.Error == nil {
		env.Error = &canonical.Error{}
	}
	return env.Error
}

// maxMillis is the longest duration a milli field holds, in milliseconds.
const maxMillis = math.MaxInt64 / int64(time.Millisecond)

// millis returns the duration of ms milliseconds; ok is false when ms is
// out of range or is not written back as the same number (finer than a
// nanosecond).
func millis(ms float64) (canonical.Duration, bool) {
	if !(ms >= 0 && ms <= float64(maxMillis)) {
		return canonical.Duration{}, false
	}
	d := time.Duration(math.Round(ms * float64(time.Millisecond)))
	back, err := strconv.ParseFloat(string(appendMillis(nil, d)), 64)
	if err != nil || back != ms {
		return canonical.Duration{}, false
	}
	return canonical.Dur(d), true
}

// appendMillis appends d as a number of milliseconds: whole when it is,
// with the decimals it needs otherwise.
func appendMillis(dst []byte, d time.Duration) []byte {
	if d%time.Millisecond == 0 {
		return strconv.AppendInt(dst, int64(d/time.Millisecond), 10)
	}
	whole, frac := int64(d/time.Millisecond), int64(d%time.Millisecond)
	dst = strconv.AppendInt(dst, whole, 10)
	dst = append(dst, '.')
	digits := strconv.AppendInt(nil, frac+int64(time.Millisecond), 10)[1:] // six digits
	return append(dst, strings.TrimRight(string(digits), "0")...)
}
