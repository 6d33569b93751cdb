// Package event is the bridge core's event stream: what happened to each
// message (received, translated, delivered, refused, dropped, failed,
// answered, expired) and to each agent (its status changed). Whatever
// watches the bridge (the message log, the console's traffic tap,
// Prometheus metrics) is a Subscriber in a package of its own; the core
// emits and knows none of them.
package event

import (
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// Kind says what an Event tells.
type Kind uint8

// The kinds of Event, with the fields each sets (besides Kind and Time).
const (
	// Received: a frame read from a connection was decoded, checked and
	// its agent ids made canonical; it is about to be routed. Time is when
	// it arrived. Env, Frame (nil for a link of envelopes), Size, and the
	// sender's connection: Agent ("" while it named none), Dialect,
	// Transport; for a frame, while a subscriber Wants Spans, the span
	// slot Span (Trace, End).
	Received Kind = iota + 1
	// Handled: routing a received message is done. Duration (from the
	// frame's arrival), Err (the refusal, if any).
	Handled
	// Copied: Copy is a copy of Env on its way (a request under its
	// token, an answer in its requester's terms). Emitted only when a
	// subscriber Wants Copies.
	Copied
	// Translated: a message was encoded for its receiver and queued. Seq
	// (which its Delivered or Failed repeats), Env (the message as queued
	// for the receiver: valid during Handle only), Source (the envelope it
	// was made from), From, Losses (valid during Handle only), Report
	// (when wanted), Frame, ByBridge, and the receiver's connection:
	// Agent, Dialect, Transport ("call" for the call API); while a
	// subscriber Wants Spans, Duration (the encoding's) and Span.Trace.
	Translated
	// Delivered: the receiver's link took the message. Seq, Note, Frame,
	// ByBridge, and the receiver's Agent, Dialect, Transport.
	Delivered
	// Failed: a queued message was never delivered (it expired, the
	// connection failed or closed, a write timed out). Seq, Note, Reason,
	// and the receiver's Agent, Dialect, Transport. While a subscriber
	// Wants Spans, also a message that could not be encoded for its
	// receiver: then Env, From, Duration (the encoding's) and Span.Trace
	// are set too, and no Translated came before.
	Failed
	// Dropped: a mapping's act policy dropped the message, as the
	// receiver's dialect cannot express its act. Env, Source, Losses,
	// Report (when wanted), and the receiver's Agent, Dialect, Transport.
	Dropped
	// Refused: the bridge refused a message and answered its sender with
	// Err. Env (nil when the frame did not decode), Input (the frame as
	// read, when it was refused as it was read), Frame (the error sent
	// back; nil for a link of envelopes or the call API), and the
	// sender's Agent (its id, "unknown" when it named none), Dialect,
	// Transport.
	Refused
	// Answered: a request was closed by its final answer (Err: the error
	// it carries, if any), or by the bridge's error in its place
	// (ByBridge, Err). Agent is the requester (its canonical id), To the
	// receiver, Duration the time since the request was opened.
	Answered
	// Expired: a request had no answer in time; an Answered with the
	// bridge's timeout error follows. Agent is the requester, To the
	// receiver, Duration its time limit.
	Expired
	// Late: an answer came after its request was closed, and was
	// dropped. Env, Agent (its sender).
	Late
	// Duplicate: a message sent again within the dedupe window was
	// handled as a copy of the first. Env.
	Duplicate
	// Status: an agent's status changed, or the agent was forgotten.
	// Agent, Change.
	Status
	// Requested: a request is about to go to its receiver. Env (the
	// request), Agent (the requester), To (the receiver), and the span
	// slot Span (Trace, End). Emitted only while a subscriber Wants Spans.
	Requested
	// Delivering: a message is about to be encoded for its receiver. Env
	// (the receiver's copy: valid during Handle only), Source, From, the
	// receiver's Agent and Dialect, and the span slot Span (Trace,
	// EndDelivery). Emitted only while a subscriber Wants Spans.
	Delivering
)

// numKinds bounds the kinds, for tables by kind.
const numKinds = int(Delivering) + 1

var kindNames = [...]string{"", "received", "handled", "copied", "translated", "delivered", "failed",
	"dropped", "refused", "answered", "expired", "late", "duplicate", "status", "requested", "delivering"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one thing that happened in the core. Which fields are set
// depends on Kind (see the kinds). It is passed by value: a subscriber
// keeps what it needs, copying what it keeps of the fields valid during
// Handle only.
type Event struct {
	Kind Kind
	// Time is when it happened, where the core knows it anyway (Received:
	// when the frame arrived); zero elsewhere, for reading the clock costs
	// every event: a subscriber that needs the time takes When.
	Time time.Time
	// Seq pairs a message's Translated with its Delivered or Failed.
	Seq uint64
	// Env is the message; Source the envelope it was made from (the
	// message as received, or as the bridge keeps it for retries); Copy
	// the copy of Env (Copied). From is the dialect the message was
	// decoded from ("" for the bridge's own and the call API's).
	Env, Source, Copy *canonical.Envelope
	From              string
	// Note is what a delivered or failed message said of itself when it
	// was queued.
	Note Note
	// Frame is the message as read (Received), as written (Translated,
	// Delivered) or the error sent back (Refused); Input the frame a
	// refusal answered, refused as it was read. Size is the frame's
	// length as read.
	Frame, Input []byte
	Size         int
	// Agent, Dialect and Transport describe the connection the event is
	// about (see the kinds); To is a request's receiver.
	Agent, Dialect, Transport, To string
	// Err is the refusal or the bridge's error; Reason why a message
	// failed.
	Err    *canonical.Error
	Reason error
	// ByBridge marks a message the bridge made itself (an error on an
	// agent's behalf, an accept, a handshake answer).
	ByBridge bool
	// Losses are what a translation could not carry (valid during Handle
	// only); Report the same in words, made once for every subscriber that
	// Wants Reports.
	Losses []dialects.Loss
	Report []Loss
	// Duration is how long handling a message (Handled) or a request
	// (Answered) took, or a request's time limit (Expired).
	Duration time.Duration
	// Change is an agent's status change (Status).
	Change *Change
	// Span holds the span slots, set only while a subscriber Wants Spans
	// (Received, Requested, Delivering; Translated and Failed for Trace).
	Span *Span
}

// When returns e's Time, or now when the core left it zero.
func (e *Event) When() time.Time {
	if e.Time.IsZero() {
		return time.Now()
	}
	return e.Time
}

// Change is what a Status event tells of an agent.
type Change struct {
	// Status and Previous are the agent's new and old status; Status is
	// empty when the agent was forgotten. Why says why.
	Status, Previous, Why string
}

// Span is where a subscriber that makes spans meets the core. Trace
// points to the trace the message carries: the subscriber may set it to
// its span's, which the message carries from then on, and set *End
// (Received, Requested) or *EndDelivery (Delivering) to what ends that
// span; the core calls it once, with the outcome. At most one subscriber
// fills them.
type Span struct {
	Trace       *canonical.Trace
	End         *func(*canonical.Error)
	EndDelivery *func(error)
}

// Note is what a log line says of a message: the message's envelope may
// change after it is queued (a retry re-encodes it), its note does not.
type Note struct {
	Sender string
	Act    canonical.Act
	// IDs are the id, in_reply_to, correlation_id, task_id, trace_id and
	// operation, in the order of NoteIDs.
	IDs [len(NoteIDs)]string
}

// NoteIDs name the ids a Note keeps.
var NoteIDs = [...]string{"id", "in_reply_to", "correlation_id", "task_id", "trace_id", "operation"}

// NoteOf returns env's note.
func NoteOf(env *canonical.Envelope) Note {
	return Note{Sender: env.Sender.ID, Act: env.Act, IDs: [len(NoteIDs)]string{
		env.ID, env.InReplyTo, env.CorrelationID, env.TaskID, env.Trace.TraceID, OpName(env.Operation),
	}}
}

// OpName spells an operation as operation names are written in mapping
// files: fuse's two levels as capability/action.
func OpName(op canonical.Operation) string {
	switch {
	case op.Capability != "" && op.Name != "":
		return op.Capability + "/" + op.Name
	case op.Name != "":
		return op.Name
	}
	return op.Capability
}

// Loss is one entry of a translation's loss report, in words.
type Loss struct {
	Kind    string `json:"kind"` // dropped, approximated or filled
	Concept string `json:"concept"`
	Field   string `json:"field"`
	// Message says what happened; it quotes the value, except where the
	// value may be secret.
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}
