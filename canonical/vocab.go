package canonical

import "fmt"

// Vocabulary kinds: the names under which dialects map their words onto the
// canonical values below (mapping files use them as table names).
const (
	KindAct      = "act"
	KindOutcome  = "outcome"
	KindError    = "error"
	KindPriority = "priority"
)

// Act is what a message does.
type Act string

// The canonical acts. DESIGN.md section 3 maps each onto the dialects.
const (
	ActRequest            Act = "request"             // ask for an operation
	ActAccept             Act = "accept"              // agree to perform a requested task
	ActRefuse             Act = "refuse"              // decline a requested task
	ActResult             Act = "result"              // report the outcome of the work
	ActFailure            Act = "failure"             // report that execution failed
	ActNotUnderstood      Act = "not-understood"      // report that a message could not be understood
	ActQueryIf            Act = "query-if"            // ask whether a statement holds
	ActQueryRef           Act = "query-ref"           // ask for the value of a reference
	ActQueryCapabilities  Act = "query-capabilities"  // ask what an agent can do
	ActInformCapabilities Act = "inform-capabilities" // declare what an agent can do
	ActEvent              Act = "event"               // announce something to a topic or to all
	ActNeedsInput         Act = "needs-input"         // ask for more input before going on
)

// Acts lists every canonical act.
var Acts = []Act{
	ActRequest, ActAccept, ActRefuse, ActResult, ActFailure, ActNotUnderstood,
	ActQueryIf, ActQueryRef, ActQueryCapabilities, ActInformCapabilities,
	ActEvent, ActNeedsInput,
}

// IsReply reports whether the act answers an earlier message.
func (a Act) IsReply() bool {
	switch a {
	case ActAccept, ActRefuse, ActResult, ActFailure, ActNotUnderstood, ActInformCapabilities:
		return true
	}
	return false
}

// KnownRetryable reports whether an error of this code is worth retrying
// (retryable), and whether the code alone tells (ok): a timeout, an
// unavailable receiver or a rate limit is; a malformed or refused message,
// a missing operation or a forbidden one is not; an execution failure or
// an internal error may be either.
func (c ErrorCode) KnownRetryable() (retryable, ok bool) {
	switch c {
	case ErrTimeout, ErrUnavailable, ErrRateLimited:
		return true, true
	case ErrInvalidMessage, ErrInvalidArguments, ErrNotFound, ErrUnauthorized, ErrRejected, ErrTooLarge:
		return false, true
	}
	return false, false
}

// IsError reports whether the act carries an Error.
func (a Act) IsError() bool {
	return a == ActRefuse || a == ActFailure || a == ActNotUnderstood
}

// Outcome is how a piece of work ended.
type Outcome string

// The canonical outcomes. The zero value means not stated.
const (
	OutcomeSuccess Outcome = "success"
	OutcomePartial Outcome = "partial"
	OutcomeFailure Outcome = "failure"
)

// Outcomes lists every canonical outcome.
var Outcomes = []Outcome{OutcomeSuccess, OutcomePartial, OutcomeFailure}

// ErrorCode is a canonical error class.
type ErrorCode string

// The canonical error codes.
const (
	ErrInvalidMessage   ErrorCode = "invalid-message"   // the message could not be parsed or is malformed
	ErrInvalidArguments ErrorCode = "invalid-arguments" // the operation's arguments are wrong
	ErrNotFound         ErrorCode = "not-found"         // no such operation, agent or resource
	ErrUnauthorized     ErrorCode = "unauthorized"      // the sender may not do this
	ErrRejected         ErrorCode = "rejected"          // the receiver declined
	ErrTimeout          ErrorCode = "timeout"           // no answer in time
	ErrUnavailable      ErrorCode = "unavailable"       // the receiver or a resource is unavailable
	ErrExecutionFailed  ErrorCode = "execution-failed"  // the operation ran and failed
	ErrInternal         ErrorCode = "internal"          // the receiver broke
	ErrTooLarge         ErrorCode = "too-large"         // the message is too big
	ErrRateLimited      ErrorCode = "rate-limited"      // too many requests
)

// ErrorCodes lists every canonical error code.
var ErrorCodes = []ErrorCode{
	ErrInvalidMessage, ErrInvalidArguments, ErrNotFound, ErrUnauthorized,
	ErrRejected, ErrTimeout, ErrUnavailable, ErrExecutionFailed, ErrInternal,
	ErrTooLarge, ErrRateLimited,
}

// Retryable reports whether an error of this code is worth retrying when the
// message does not say.
func (c ErrorCode) Retryable() bool {
	switch c {
	case ErrTimeout, ErrUnavailable, ErrRateLimited:
		return true
	}
	return false
}

// Priority is a message's urgency on the canonical scale, collab's 0-4
// (BATCH to CRITICAL). The zero value means not stated; use Level for the
// 0-4 number.
type Priority uint8

// The canonical priorities, lowest first.
const (
	PriorityBatch    Priority = iota + 1 // level 0: when idle
	PriorityLow                          // level 1: background
	PriorityNormal                       // level 2: standard
	PriorityHigh                         // level 3: front of the queue
	PriorityCritical                     // level 4: immediate
)

// Priorities lists every canonical priority, lowest first.
var Priorities = []Priority{PriorityBatch, PriorityLow, PriorityNormal, PriorityHigh, PriorityCritical}

var priorityNames = [...]string{"", "batch", "low", "normal", "high", "critical"}

// PriorityFromLevel returns the priority for a 0-4 level.
func PriorityFromLevel(level int) (Priority, bool) {
	if level < 0 || level > 4 {
		return 0, false
	}
	return Priority(level + 1), true
}

// Level returns the 0-4 level; it is -1 for an unset priority.
func (p Priority) Level() int { return int(p) - 1 }

// String returns the priority's canonical name ("" when unset).
func (p Priority) String() string {
	if int(p) < len(priorityNames) {
		return priorityNames[p]
	}
	return fmt.Sprintf("priority(%d)", uint8(p))
}

// ParsePriority returns the priority with the canonical name s.
func ParsePriority(s string) (Priority, bool) {
	for i, n := range priorityNames[1:] {
		if n == s {
			return Priority(i + 1), true
		}
	}
	return 0, false
}

// Valid reports whether a is a canonical act.
func (a Act) Valid() bool { return contains(Acts, a) }

// Valid reports whether o is a canonical outcome.
func (o Outcome) Valid() bool { return contains(Outcomes, o) }

// Valid reports whether c is a canonical error code.
func (c ErrorCode) Valid() bool { return contains(ErrorCodes, c) }

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// CanonicalValues returns the canonical values of a vocabulary kind as
// strings, or nil for an unknown kind.
func CanonicalValues(kind string) []string {
	var out []string
	switch kind {
	case KindAct:
		for _, a := range Acts {
			out = append(out, string(a))
		}
	case KindOutcome:
		for _, o := range Outcomes {
			out = append(out, string(o))
		}
	case KindError:
		for _, c := range ErrorCodes {
			out = append(out, string(c))
		}
	case KindPriority:
		for _, p := range Priorities {
			out = append(out, p.String())
		}
	}
	return out
}

// DefaultErrorCode is the error code an error act implies when its message
// gives none.
func DefaultErrorCode(a Act) ErrorCode {
	switch a {
	case ActNotUnderstood:
		return ErrInvalidMessage
	case ActRefuse:
		return ErrRejected
	}
	return ErrExecutionFailed
}
