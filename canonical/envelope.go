package canonical

import "time"

// JSON is raw JSON text exactly as it appeared in a message (a value, not a
// document fragment). The empty string means absent; the JSON literal null is
// a present value.
type JSON string

// Envelope is one message in canonical form.
type Envelope struct {
	// Origin records which dialect the message came from and how that
	// dialect spelled the values this envelope normalises.
	Origin Origin

	// ID is the message's own id; empty when the dialect has none.
	ID  string
	Act Act

	Sender   Party
	Receiver Address

	// InReplyTo is the id of the message this one answers.
	InReplyTo string
	// ReplyWith is the token the sender wants quoted back in replies.
	ReplyWith string
	// CorrelationID links a reply to its request where the dialect uses a
	// dedicated correlation field rather than InReplyTo.
	CorrelationID string
	// ConversationID names the conversation or context a message belongs to.
	ConversationID string
	// SessionID names the session a message belongs to.
	SessionID string
	// TaskID names the task a message is about.
	TaskID string

	// Time is when the message was created, as written by its sender.
	Time Timestamp
	// Priority is the message's urgency on the canonical scale.
	Priority Priority
	// Deadline is the absolute time by which the work must be done.
	Deadline Timestamp
	// TTL is how long the message, or the work it asks for, stays valid.
	TTL Duration

	Trace Trace

	// Language is the content language or media type of the payload.
	Language string
	// Ontology names the domain vocabulary the payload is written in.
	Ontology string

	// Operation is what a request asks for, or which event an event reports.
	Operation Operation
	// Description is human-readable text about the task, its acceptance or
	// its result.
	Description string
	// Arguments are a request's parameters, or an event's data.
	Arguments JSON
	// Result is a reply's result body.
	Result JSON
	// Outcome is how the work ended, for a result.
	Outcome Outcome
	// Error describes a failure, a refusal or a message not understood.
	Error *Error
	// Capabilities are the tools an agent declares or asks about.
	Capabilities *Capabilities
	// Inputs are the inputs an agent asks for before it can go on (a JSON
	// array of input descriptions).
	Inputs JSON

	// Context is shared context that travels with the message.
	Context JSON
	// Metadata is free-form metadata about the message.
	Metadata JSON
	// Authentication is the credential the message carries.
	Authentication JSON
	// Extensions are protocol extensions the message declares.
	Extensions JSON

	// Extra holds the members a dialect carries that have no field above.
	Extra []Field
}

// Origin records the source dialect of an envelope and the words it used, so
// that encoding back into the same dialect gives back the same message.
type Origin struct {
	// Dialect is the name of the dialect the envelope was decoded from.
	Dialect string
	// Version is the source dialect's protocol version as written.
	Version string
	// Form names the variant of the dialect's layout the message used, for
	// dialects that have more than one ("" is the dialect's default).
	Form string
	// Words are the source's spellings of vocabulary values, by vocabulary
	// kind. They are written back only when encoding to the dialect of
	// origin.
	Words Words
}

// Word returns the source's spelling for vocabulary kind, if dialect is the
// envelope's dialect of origin.
func (o *Origin) Word(dialect, kind string) string {
	if o.Dialect != dialect {
		return ""
	}
	return o.Words.Get(kind)
}

// SetWord records the source's spelling for vocabulary kind.
func (o *Origin) SetWord(kind, word string) { o.Words.Set(kind, word) }

// Words holds one word per vocabulary kind (KindAct, KindOutcome, KindError,
// KindPriority); "" means none.
type Words [4]string

func kindIndex(kind string) int {
	switch kind {
	case KindAct:
		return 0
	case KindOutcome:
		return 1
	case KindError:
		return 2
	case KindPriority:
		return 3
	}
	return -1
}

// Get returns the word for kind ("" when none).
func (w *Words) Get(kind string) string {
	if i := kindIndex(kind); i >= 0 {
		return w[i]
	}
	return ""
}

// Has reports whether there is a word for kind.
func (w *Words) Has(kind string) bool { return w.Get(kind) != "" }

// Set records the word for kind; an unknown kind is ignored.
func (w *Words) Set(kind, word string) {
	if i := kindIndex(kind); i >= 0 {
		w[i] = word
	}
}

// Party identifies an agent.
type Party struct {
	ID string
	// Name is the agent's display name.
	Name string
}

// AddressKind says what an Address points at.
type AddressKind uint8

// The kinds of Address. The zero value means no receiver was given.
const (
	AddressNone      AddressKind = iota // no receiver: route by capability
	AddressAgent                        // one agent, by id
	AddressTopic                        // the subscribers of a topic
	AddressBroadcast                    // every agent
)

// String returns the kind's name.
func (k AddressKind) String() string {
	switch k {
	case AddressAgent:
		return "agent"
	case AddressTopic:
		return "topic"
	case AddressBroadcast:
		return "broadcast"
	}
	return "none"
}

// Address is where a message goes.
type Address struct {
	Kind AddressKind
	// ID is the agent id or the topic name.
	ID string
	// Name is the receiving agent's display name.
	Name string
}

// Trace carries distributed tracing ids.
type Trace struct {
	TraceID      string
	SpanID       string
	ParentSpanID string
}

// Operation names what a request asks for. Dialects with one name (a tool)
// use Name; dialects with two levels put the group in Capability and the
// operation in Name.
type Operation struct {
	Capability string
	Name       string
}

// Error describes why something failed.
type Error struct {
	// Code is the canonical error code; empty when the dialect's word has no
	// canonical meaning (the word is then in Origin.Words[KindError]).
	Code    ErrorCode
	Message string
	// Retryable is nil when the message does not say.
	Retryable *bool
	// RetryAfter is how long to wait before retrying.
	RetryAfter Duration
	// Details is a JSON value with more about the error.
	Details JSON
	// SuggestedActions is a JSON array of actions that may resolve it.
	SuggestedActions JSON
}

// Error returns the error's code and message: "timeout: no answer in 30s".
func (e *Error) Error() string {
	switch {
	case e.Code == "":
		return e.Message
	case e.Message == "":
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// SayRetryable returns e saying whether it is worth retrying, where its
// code tells (ErrorCode.KnownRetryable) and e does not say: a copy of e
// then, else e itself. Dialects whose errors carry the flag (collab's
// body.error.retryable, bluelabel's payload.retryable) want it said.
func (e *Error) SayRetryable() *Error {
	if e.Retryable != nil {
		return e
	}
	r, ok := e.Code.KnownRetryable()
	if !ok {
		return e
	}
	c := *e
	c.Retryable = &r
	return &c
}

// Capabilities are what an agent can do.
type Capabilities struct {
	// Tools are the operations the agent offers.
	Tools []Tool
	// Topics are subject areas the agent declares.
	Topics []string
	// Raw is the declaration as its dialect wrote it; Dialect names that
	// dialect. An encoder for the same dialect writes Raw as it is; others
	// build their own declaration from Tools and Topics.
	Raw     JSON
	Dialect string
}

// Tool is one operation an agent offers.
type Tool struct {
	// Name is the operation's name (Operation.Name).
	Name string
	// Capability is the group it belongs to (Operation.Capability).
	Capability  string
	Title       string
	Description string
	// InputSchema is a JSON Schema for the arguments; empty when not declared.
	InputSchema JSON
	// OutputSchema is a JSON Schema for the result; empty when not declared.
	OutputSchema JSON
	// Version is the version of the tool's definition, as its agent
	// declares it (fuse declares one per capability); empty when not
	// declared.
	Version string
}

// Field is a member a dialect carries that has no canonical field.
type Field struct {
	// Dialect is the dialect the member belongs to.
	Dialect string
	// Parent is the dotted path of the object holding the member within the
	// message ("" for the top level, "payload", "content.data"...).
	Parent string
	// Key is the member's name.
	Key string
	// Value is the member's raw JSON value.
	Value JSON
}

// Path returns the member's dotted path within its message.
func (f Field) Path() string {
	if f.Parent == "" {
		return f.Key
	}
	return f.Parent + "." + f.Key
}

// Timestamp is a point in time as a message wrote it. It is kept verbatim so
// that unparseable values (real senders write placeholders) survive.
type Timestamp string

// The timestamp layouts Parse reads: RFC 3339, and the same without a zone
// (Python's datetime.isoformat() of a naive time, as swarm writes).
const (
	layoutZoned = time.RFC3339Nano
	layoutLocal = "2006-01-02T15:04:05.999999999"
)

// Parse returns the time a timestamp names. Timestamps without a zone are
// read as UTC.
func (t Timestamp) Parse() (time.Time, bool) {
	if t == "" {
		return time.Time{}, false
	}
	layout := layoutLocal
	if t.HasZone() {
		layout = layoutZoned
	}
	v, err := time.Parse(layout, string(t))
	if err != nil {
		return time.Time{}, false
	}
	return v.UTC(), true
}

// Valid reports whether Parse reads t as a time: the same answer, without
// making the time when t has the shape RFC 3339 writes (below, quick), the
// shape nearly every message has; Parse decides every other text.
func (t Timestamp) Valid() bool {
	if quick(string(t)) {
		return true
	}
	_, ok := t.Parse()
	return ok
}

// quick reports whether s is certainly a time Parse reads:
// "2006-01-02T15:04:05", every number in its range, then a fraction of one
// to nine digits or none, then "Z", an offset ("+07:00") or no zone.
// false says only that Parse must decide.
func quick(s string) bool {
	if len(s) < len("2006-01-02T15:04:05") || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	hi, ok1 := num2(s[0:2])
	lo, ok2 := num2(s[2:4])
	month, ok3 := num2(s[5:7])
	day, ok4 := num2(s[8:10])
	hour, ok5 := num2(s[11:13])
	minute, ok6 := num2(s[14:16])
	sec, ok7 := num2(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) ||
		month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return false
	}
	if day > 28 && day > time.Date(hi*100+lo, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return false
	}
	s = s[19:]
	if len(s) > 0 && s[0] == '.' {
		n := 1
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 1 || n > 10 {
			return false
		}
		s = s[n:]
	}
	switch len(s) {
	case 0:
		return true
	case 1:
		return s[0] == 'Z'
	case 6:
		hh, ok1 := num2(s[1:3])
		mm, ok2 := num2(s[4:6])
		return (s[0] == '+' || s[0] == '-') && s[3] == ':' && ok1 && ok2 && hh <= 23 && mm <= 59
	}
	return false
}

// num2 reads two decimal digits.
func num2(s string) (int, bool) {
	a, b := s[0]-'0', s[1]-'0'
	return int(a)*10 + int(b), a <= 9 && b <= 9
}

// HasZone reports whether the timestamp ends in a zone designator ("Z" or
// an offset like "+02:00"), as RFC 3339 requires.
func (t Timestamp) HasZone() bool {
	n := len(t)
	switch {
	case n == 0:
		return false
	case t[n-1] == 'Z' || t[n-1] == 'z':
		return true
	case n >= 6 && (t[n-6] == '+' || t[n-6] == '-') && t[n-3] == ':':
		return true
	}
	return false
}

// NewTimestamp returns t in RFC 3339 UTC, the form codecs write when they
// create a timestamp.
func NewTimestamp(t time.Time) Timestamp {
	return Timestamp(t.UTC().Format(time.RFC3339Nano))
}

// Duration is a length of time with presence: Set is false when absent, so a
// zero duration that was written stays distinct from none.
type Duration struct {
	D   time.Duration
	Set bool
	// ISO is true when the source wrote it as an ISO 8601 duration string
	// ("PT5M") rather than a number; Text is that string as written
	// ("PT0M" and "PT0S" say the same), for a writer to give it back
	// while D is still what it says.
	ISO  bool
	Text string
}

// Dur returns a present Duration of d.
func Dur(d time.Duration) Duration { return Duration{D: d, Set: true} }
