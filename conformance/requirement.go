package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"gopkg.in/yaml.v3"
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
	Dialect string `yaml:"dialect"`
	// Spec is the specification the sections refer to ("specs/swarm.md").
	Spec string `yaml:"spec"`
	// Correlation says how a reply quotes the message it answers.
	Correlation Correlation `yaml:"correlation"`
	// Introduction is "introduction" when an agent of the dialect may speak
	// first (a declaration or handshake), "none" when it is not expected to.
	Introduction string        `yaml:"opening"`
	Requirements []Requirement `yaml:"requirements"`
}

// Introduces reports whether an agent of the dialect may speak first.
func (s *Suite) Introduces() bool { return s.Introduction == "introduction" }

// Correlation names the JSON paths by which replies quote requests.
type Correlation struct {
	// Request are the paths of a message a reply may quote (any of them).
	Request []string `yaml:"request"`
	// Reply are the paths where a reply quotes it (the first present).
	Reply []string `yaml:"reply"`
}

// Requirement is one thing a dialect's spec asks of an agent, and how the
// suite checks it.
type Requirement struct {
	// ID names it: "<dialect>.<subject>.<rule>".
	ID string `yaml:"id"`
	// Dialect is the dialect whose suite holds it.
	Dialect string `yaml:"-"`
	// Spec is the specification of Section.
	Spec string `yaml:"-"`
	// Section is where in the spec the requirement comes from.
	Section string `yaml:"section"`
	Level   Level  `yaml:"level"`
	// LevelNote says where the level comes from: the spec's words, or, when
	// the spec leaves it open ("open: ..."), how it was chosen.
	LevelNote string `yaml:"level_note"`
	// Title says what is checked.
	Title    string   `yaml:"title"`
	Scenario Scenario `yaml:"scenario"`
	// Always runs the requirement even when it is not selected (it is then
	// not reported), because later ones need what it learns: the swarm
	// handshake, the declared operations.
	Always bool `yaml:"always"`
	// First are the acts the agent's first message may have (Opening).
	First []canonical.Act `yaml:"first"`
	// Steps are the messages sent and what must come back (Exchange).
	Steps []Step `yaml:"steps"`
}

// Step sends one message (or one per operation) and checks the answer.
type Step struct {
	Send Send `yaml:"send"`
	// Expect is what must come back; nil sends without waiting.
	Expect *Expect `yaml:"expect"`
}

// The kinds of message a step sends.
const (
	KindRequest = "request"            // a request for an operation
	KindQuery   = "query-capabilities" // a capability query (swarm: a handshake_request)
	KindEvent   = "event"              // an event to the agent
	KindRaw     = "raw"                // Send.Raw as it is
	KindResend  = "resend"             // an earlier step's message again
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
	Kind string `yaml:"kind"`
	// Op is the operation of a request (OpDeclared when empty).
	Op string `yaml:"op"`
	// Raw is the frame of a KindRaw step.
	Raw string `yaml:"raw"`
	// Step is the index of the step whose message a KindResend sends again.
	Step int `yaml:"step"`
	// TTL is the request's own time limit (collab ttl, swarm and bluelabel
	// timeout).
	TTL Duration `yaml:"ttl"`
	// Priority is a canonical priority name (batch to critical).
	Priority string `yaml:"priority"`
	// Trace gives the message a trace id and span id.
	Trace bool `yaml:"trace"`
	// ReplyWith gives the message a reply-with token distinct from its id.
	ReplyWith bool `yaml:"reply_with"`
	// Set sets members by dotted JSON path after encoding.
	Set map[string]any `yaml:"set"`
	// Delete removes members by dotted JSON path after encoding.
	Delete []string `yaml:"delete"`
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
	Reply string `yaml:"reply"`
	// Acts narrows the canonical acts the answer may have.
	Acts []canonical.Act `yaml:"acts"`
	// Within is "ttl" when the answer must come within the message's own
	// TTL; otherwise within the run's timeout.
	Within string `yaml:"within"`
	// Correlated requires the answer to quote the message (Correlation).
	Correlated bool `yaml:"correlated"`
	// When skips the requirement unless it happened: "answered" (any
	// answer), "accept" (an acceptance came first), "needs-input" (the
	// agent asked for input).
	When string `yaml:"when"`
	// Single requires at most one acceptance, before one final answer, and
	// nothing quoting the message after it (within the quiet time).
	Single bool `yaml:"single"`
	// Require is an interim act that must come before the answer (accept).
	Require canonical.Act `yaml:"require"`
	// On is the frame the checks and correlation look at: "final" (the
	// default) or "accept".
	On string `yaml:"on"`
	// OrOpening takes a declaration the agent sent when the connection
	// opened as the answer, without asking.
	OrOpening bool `yaml:"or_opening"`
	// Check are conditions on the answer's JSON.
	Check []Check `yaml:"check"`
}

// Check is a condition on a member of a frame. Values may name the run's
// parties ("{{suite}}", "{{agent}}") or a member of the message sent
// ("{{sent:trace.spanId}}").
type Check struct {
	// Path is the member's dotted JSON path, or several tried in order (the
	// first present is checked); "" is the whole frame.
	Path Paths `yaml:"path"`
	// Equals requires the member to be this JSON value.
	Equals any `yaml:"equals"`
	// OneOf requires the member to be one of these values.
	OneOf []any `yaml:"one_of"`
	// Present requires the member to be present (true) or absent (false).
	Present *bool `yaml:"present"`
	// AtLeast requires a number not below this one.
	AtLeast any `yaml:"at_least"`
	// NotContains requires the member's JSON text not to contain this.
	NotContains string `yaml:"not_contains"`
	// EachHas requires the member to be a non-empty array whose every
	// element has this member.
	EachHas string `yaml:"each_has"`
}

// Paths is one JSON path or several; YAML gives a string or a list.
type Paths []string

// UnmarshalYAML reads a string or a list of strings.
func (p *Paths) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*p = Paths{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*p = list
	return nil
}

// Duration is a time.Duration written as Go writes one ("1s", "500ms").
type Duration struct{ time.Duration }

// UnmarshalYAML reads a Go duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration like 1s or 500ms", n.Line, n.Value)
	}
	d.Duration = v
	return nil
}

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
		s, err := ParseSuite(rec.Requirements)
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
// every requirement the suite could not run as written.
func ParseSuite(data []byte) (*Suite, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Suite
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	for i := range s.Requirements {
		r := &s.Requirements[i]
		r.Dialect, r.Spec = s.Dialect, s.Spec
		if r.Scenario == "" {
			r.Scenario = Exchange
		}
	}
	return &s, nil
}

// check reports the first thing in s the suite could not run as written.
func (s *Suite) check() error {
	switch {
	case s.Dialect == "" || s.Spec == "":
		return fmt.Errorf("dialect and spec are required")
	case len(s.Correlation.Request) == 0 || len(s.Correlation.Reply) == 0:
		return fmt.Errorf("correlation needs request and reply paths")
	case s.Introduction != "introduction" && s.Introduction != "none":
		return fmt.Errorf("opening is %q, want introduction or none", s.Introduction)
	}
	seen := map[string]bool{}
	for _, r := range s.Requirements {
		if seen[r.ID] {
			return fmt.Errorf("%s: listed twice", r.ID)
		}
		seen[r.ID] = true
		if err := r.check(s.Dialect); err != nil {
			return fmt.Errorf("%s: %w", r.ID, err)
		}
	}
	return nil
}

func (r *Requirement) check(dialect string) error {
	switch {
	case !strings.HasPrefix(r.ID, dialect+"."):
		return fmt.Errorf("the id must start with %q", dialect+".")
	case r.Level != Must && r.Level != Should:
		return fmt.Errorf("level %q, want MUST or SHOULD", r.Level)
	case r.Section == "" || r.Title == "" || r.LevelNote == "":
		return fmt.Errorf("section, title and level_note are required")
	}
	if err := checkActs(r.First); err != nil {
		return err
	}
	switch r.Scenario {
	case Frames:
		if len(r.Steps) > 0 || len(r.First) > 0 {
			return fmt.Errorf("a frames requirement has no steps or first")
		}
	case Opening:
		if len(r.Steps) > 0 || len(r.First) == 0 {
			return fmt.Errorf("an opening requirement has first and no steps")
		}
	case Exchange, "":
		if len(r.Steps) == 0 {
			return fmt.Errorf("an exchange needs steps")
		}
		for i, st := range r.Steps {
			if err := st.check(i); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
		}
	default:
		return fmt.Errorf("scenario %q, want exchange, opening or frames", r.Scenario)
	}
	return nil
}

func (st *Step) check(index int) error {
	s := st.Send
	switch s.Kind {
	case KindRequest:
		if s.Op != "" && s.Op != OpDeclared && s.Op != OpEach && s.Op != OpUnknown {
			return fmt.Errorf("op %q, want declared, each or unknown", s.Op)
		}
	case KindQuery, KindEvent:
	case KindRaw:
		if s.Raw == "" {
			return fmt.Errorf("a raw message needs raw")
		}
	case KindResend:
		if s.Step < 0 || s.Step >= index {
			return fmt.Errorf("resend names step %d, not an earlier one", s.Step)
		}
	default:
		return fmt.Errorf("send kind %q, want request, query-capabilities, event, raw or resend", s.Kind)
	}
	if s.Priority != "" {
		if _, ok := canonical.ParsePriority(s.Priority); !ok {
			return fmt.Errorf("priority %q is not a canonical priority", s.Priority)
		}
	}
	if e := st.Expect; e != nil {
		return e.check(s)
	}
	return nil
}

func (e *Expect) check(s Send) error {
	switch e.Reply {
	case "", ReplyAnswer, ReplyFailure, ReplyDeclaration, ReplyMaybe, ReplyNone:
	default:
		return fmt.Errorf("reply %q, want answer, failure, declaration, maybe or none", e.Reply)
	}
	switch e.When {
	case "", "answered", "accept", "needs-input":
	default:
		return fmt.Errorf("when %q, want answered, accept or needs-input", e.When)
	}
	switch {
	case e.Within != "" && e.Within != "ttl":
		return fmt.Errorf("within %q, want ttl", e.Within)
	case e.Within == "ttl" && s.TTL.Duration <= 0:
		return fmt.Errorf("within ttl needs the message's ttl")
	case e.On != "" && e.On != "final" && e.On != "accept":
		return fmt.Errorf("on %q, want final or accept", e.On)
	case e.On == "accept" && e.When != "accept":
		return fmt.Errorf("checks on the acceptance need when: accept")
	case e.Require != "" && e.Require != canonical.ActAccept:
		return fmt.Errorf("require %q, want accept", e.Require)
	case e.OrOpening && e.Reply != ReplyDeclaration:
		return fmt.Errorf("or_opening takes a declaration: it needs reply: declaration")
	}
	if err := checkActs(e.Acts); err != nil {
		return err
	}
	for i, c := range e.Check {
		if err := c.check(); err != nil {
			return fmt.Errorf("check %d: %w", i, err)
		}
	}
	return nil
}

func (c *Check) check() error {
	if len(c.Path) == 0 {
		return fmt.Errorf("a check needs a path")
	}
	n := 0
	for _, set := range []bool{c.Equals != nil, c.OneOf != nil, c.Present != nil, c.AtLeast != nil, c.NotContains != "", c.EachHas != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("a check needs exactly one of equals, one_of, present, at_least, not_contains, each_has")
	}
	return nil
}

func checkActs(acts []canonical.Act) error {
	for _, a := range acts {
		if !a.Valid() {
			return fmt.Errorf("%q is not a canonical act", a)
		}
	}
	return nil
}

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
