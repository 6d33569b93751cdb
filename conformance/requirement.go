package conformance

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// Level says how strongly a spec asks for a requirement.
type Level string

// The levels. A failed MUST fails the run; a failed SHOULD is a warning.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
)

// Scenario names how a requirement is checked.
type Scenario string

// The scenarios.
const (
	// Exchange sends the messages of its steps and checks the answers.
	Exchange Scenario = "exchange"
	// Opening checks what the agent sent on its own when the connection
	// opened.
	Opening Scenario = "opening"
	// Frames checks every frame the agent sent during the whole run.
	Frames Scenario = "frames"
)

// Suite is one dialect's requirements and what the suite needs to know of
// the dialect to check them.
type Suite struct {
	Dialect string
	// Spec is the specification the sections refer to ("specs/swarm.md").
	Spec string
	// Correlation says how a reply quotes the message it answers.
	Correlation Correlation
	// Introduction is "introduction" when an agent of the dialect may speak
	// first (a declaration or handshake), "none" when it is not expected to.
	Introduction string
	Requirements []Requirement
}

// Introduces reports whether an agent of the dialect may speak first.
func (s *Suite) Introduces() bool { return s.Introduction == "introduction" }

// Correlation names the JSON paths by which replies quote requests.
type Correlation struct {
	// Request are the paths of a message a reply may quote (any of them).
	Request []string
	// Reply are the paths where a reply quotes it (the first present).
	Reply []string
}

// Requirement is one thing a dialect's spec asks of an agent, and how the
// suite checks it.
type Requirement struct {
	// ID names it: "<dialect>.<subject>.<rule>".
	ID string
	// Dialect is the dialect whose suite holds it.
	Dialect string
	// Spec is the specification of Section.
	Spec string
	// Section is where in the spec the requirement comes from.
	Section string
	Level   Level
	// LevelNote says where the level comes from: the spec's words, or, when
	// the spec leaves it open ("open: ..."), how it was chosen.
	LevelNote string
	// Title says what is checked.
	Title    string
	Scenario Scenario
	// Always runs the requirement even when it is not selected (it is then
	// not reported), because later ones need what it learns: the swarm
	// handshake, the declared operations.
	Always bool
	// First are the acts the agent's first message may have (Opening).
	First []canonical.Act
	// Steps are the messages sent and what must come back (Exchange).
	Steps []Step
}

// Step sends one message (or one per operation) and checks the answer.
type Step struct {
	Send Send
	// Expect is what must come back; nil sends without waiting.
	Expect *Expect
}

// The kinds of message a step sends.
const (
	KindRequest = "request"            // a request for an operation
	KindQuery   = "query-capabilities" // a capability query (swarm: a handshake_request)
	KindEvent   = "event"              // an event to the agent
	KindRaw     = "raw"                // Send.Raw as it is
	KindResend  = "resend"             // an earlier step's message again
	KindCard    = "card"               // A2A over HTTP: the agent card, fetched and resolved
	KindRPC     = "rpc"                // A2A over HTTP: a JSON-RPC request of Send.Method and Send.Params
)

// The operations a request may ask for.
const (
	OpDeclared = "declared" // the first operation the agent declared, or --op
	OpEach     = "each"     // every declared operation, one request each
	OpUnknown  = "unknown"  // an operation no agent has
)

// Send describes the message of a step. The message is built in the
// dialect by its codec from the canonical fields below, then edited.
type Send struct {
	Kind string
	// Op is the operation of a request (OpDeclared when empty).
	Op string
	// Raw is the frame of a KindRaw step.
	Raw string
	// Step is the index of the step whose message a KindResend sends again.
	Step int
	// TTL is the request's own time limit (collab ttl, swarm and bluelabel
	// timeout).
	TTL Duration
	// Priority is a canonical priority name (batch to critical).
	Priority string
	// Trace gives the message a trace id and span id.
	Trace bool
	// ReplyWith gives the message a reply-with token distinct from its id.
	ReplyWith bool
	// Set sets members by dotted JSON path after encoding.
	Set map[string]any
	// Delete removes members by dotted JSON path after encoding.
	Delete []string
	// Method and Params are the JSON-RPC method and params of a KindRPC
	// step; a string in Params may be a placeholder ("{{task}}").
	Method string
	Params any
}

// The kinds of answer an Expect waits for.
const (
	ReplyAnswer      = "answer"      // a final answer: result, failure, refusal or not-understood
	ReplyFailure     = "failure"     // an answer that says the work failed
	ReplyDeclaration = "declaration" // a capability declaration
	ReplyMaybe       = "maybe"       // anything or nothing, within the quiet time
	ReplyNone        = "none"        // nothing that answers, within the quiet time
)

// Expect is what must come back for a step's message.
type Expect struct {
	// Reply is the kind of answer (ReplyAnswer when empty).
	Reply string
	// Acts narrows the canonical acts the answer may have.
	Acts []canonical.Act
	// Within is "ttl" when the answer must come within the message's own
	// TTL; otherwise within the run's timeout.
	Within string
	// Correlated requires the answer to quote the message (Correlation).
	Correlated bool
	// When skips the requirement unless it happened: "answered" (any
	// answer), "accept" (an acceptance came first), "needs-input" (the
	// agent asked for input); or, before the step is sent, unless the
	// agent's card says it streams ("streaming").
	When string
	// Single requires at most one acceptance, before one final answer, and
	// nothing quoting the message after it (within the quiet time).
	Single bool
	// Require is an interim act that must come before the answer (accept).
	Require canonical.Act
	// On is the frame the checks and correlation look at: "final" (the
	// default) or "accept".
	On string
	// OrOpening takes a declaration the agent sent when the connection
	// opened as the answer, without asking.
	OrOpening bool
	// Client requires, of a KindCard step, that a2a-go can make a client
	// from the card (a2aclient.NewFromCard).
	Client bool
	// Check are conditions on the answer's JSON.
	Check []Check
}

// Check is a condition on a member of a frame. Values may name the run's
// parties ("{{suite}}", "{{agent}}"), a member of the message sent
// ("{{sent:trace.spanId}}"), or the id of the last task an A2A agent over
// HTTP answered with ("{{task}}").
type Check struct {
	// Path is the member's dotted JSON path, or several tried in order (the
	// first present is checked); "" is the whole frame.
	Path Paths
	// Equals requires the member to be this JSON value.
	Equals any
	// OneOf requires the member to be one of these values.
	OneOf []any
	// Present requires the member to be present (true) or absent (false).
	Present *bool
	// AtLeast requires a number not below this one.
	AtLeast any
	// NotContains requires the member's JSON text not to contain this.
	NotContains string
	// EachHas requires the member to be a non-empty array whose every
	// element has this member.
	EachHas string
	// ItemsHave requires the member to be an array, empty or not, whose
	// every element has this member.
	ItemsHave string
	// Matches requires the member to be a string matching this regular
	// expression, or an array of such strings (an empty one holds).
	Matches string
}

// Paths is one JSON path or several; YAML gives a string or a list.
type Paths []string

// Duration is a time.Duration written as Go writes one ("1s", "500ms").
type Duration struct{ time.Duration }

// suites loads the registered dialects' requirement files once.
var suites = sync.OnceValues(loadSuites)

// Suites returns the suite of every registered dialect that has a
// requirement file (dialects.Record.Requirements), by dialect name.
func Suites() (map[string]*Suite, error) { return suites() }

// SuiteFor returns the suite of a dialect.
func SuiteFor(dialect string) (*Suite, error) {
	all, err := suites()
	if err != nil {
		return nil, err
	}
	s, ok := all[dialect]
	if !ok {
		return nil, fmt.Errorf("conformance: no requirements for dialect %q (there are: %s)", dialect, strings.Join(Dialects(all), ", "))
	}
	return s, nil
}

// Dialects returns the dialects of suites, sorted.
func Dialects(suites map[string]*Suite) []string {
	out := make([]string, 0, len(suites))
	for d := range suites {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func loadSuites() (map[string]*Suite, error) {
	out := map[string]*Suite{}
	for _, rec := range dialects.Records() {
		if rec.Requirements == nil {
			continue
		}
		s, err := parseSuite(rec.Name+"/conformance.yaml", rec.Requirements)
		if err != nil {
			return nil, fmt.Errorf("conformance: the requirements of %s: %w", rec.Name, err)
		}
		if s.Dialect != rec.Name {
			return nil, fmt.Errorf("conformance: the requirements of %s are for %q", rec.Name, s.Dialect)
		}
		out[s.Dialect] = s
	}
	return out, nil
}

// ParseSuite reads one requirement file. Unknown keys are errors, and so is
// every requirement the suite could not run as written; every problem is
// listed, each with its line and column, as a located.Errors.
func ParseSuite(data []byte) (*Suite, error) { return parseSuite("conformance.yaml", data) }

// Select returns the requirements of s to run at level (Should runs both
// levels, Must only the MUSTs), narrowed to only (when not empty) and
// without skip. An id in only or skip that s does not have is an error.
func (s *Suite) Select(level Level, only, skip []string) ([]Requirement, error) {
	known := map[string]bool{}
	for _, r := range s.Requirements {
		known[r.ID] = true
	}
	for _, list := range [][]string{only, skip} {
		for _, id := range list {
			if !known[id] {
				return nil, fmt.Errorf("conformance: %s has no requirement %q (see docs/conformance.md)", s.Dialect, id)
			}
		}
	}
	in := func(list []string, id string) bool {
		for _, x := range list {
			if x == id {
				return true
			}
		}
		return false
	}
	var out []Requirement
	for _, r := range s.Requirements {
		if (level == Must && r.Level != Must) || (len(only) > 0 && !in(only, r.ID)) || in(skip, r.ID) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
