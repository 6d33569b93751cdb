package conformance

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

// requirementFile is the requirement file's format: every key, its type,
// documentation and checks, and the rules a suite must meet to run as
// written. docs/conformance.md's key reference and `mcp-bridge conformance
// schema` are generated from it; bindSuite reads the decoded values.
var requirementFile = requirementSpec()

// Schema returns the JSON Schema (draft 2020-12) of a requirement file,
// for editors.
func Schema() []byte { return requirementFile.Schema() }

// Reference returns the key reference of requirement files in Markdown,
// generated from the spec.
func Reference() []byte { return requirementFile.Reference() }

// want is how a requirement file's value outside its options is refused:
// "<name> "x", want a, b or c".
func want(name string, options ...string) func(string) string {
	return func(s string) string { return fmt.Sprintf("%s %q, want %s", name, s, spec.OrList(options)) }
}

// enum is a key of one of options, refused as want says.
func enum(key, doc, name string, options ...string) *spec.Node {
	return spec.Enum(key, doc, options...).Refused(want(name, options...))
}

// acts is a list of canonical acts.
func acts(key, doc string) *spec.Node {
	return spec.List(key, doc, spec.Enum("", "", canonical.CanonicalValues(canonical.KindAct)...).Named("a canonical act")).
		Named("a list of canonical acts").Typed("list of canonical acts").DefaultIs("none")
}

// said is a string every requirement states.
func said(key, doc string) *spec.Node {
	const why = "section, title and level_note are required"
	return spec.String(key, doc).Named("non-empty: " + why).Required(why)
}

func requirementSpec() *spec.Spec {
	paths := func(key, doc string) *spec.Node {
		return spec.List(key, doc, spec.String("", "").Named("a dotted JSON path")).NonEmpty().
			Named("a list of dotted JSON paths").Required("correlation needs request and reply paths")
	}
	root := spec.Object("", "",
		spec.String("dialect", "The dialect whose agents the file's requirements check; every requirement's id starts with it.").
			Named("a dialect name").Required("dialect and spec are required"),
		spec.String("spec", "The specification the requirements' sections refer to (`specs/swarm.md`).").
			Named("a spec file").Required("dialect and spec are required"),
		spec.Object("correlation", "How a reply quotes the message it answers.",
			paths("request", "The paths of a message a reply may quote (any of them)."),
			paths("reply", "The paths where a reply quotes it (the first present)."),
		).Required("correlation needs request and reply paths"),
		enum("opening", "`introduction` when an agent of the dialect may speak first (a declaration or handshake), `none` when it is not expected to (then `--op` names the operation to ask for).",
			"opening is", "introduction", "none").Required("opening is introduction or none"),
		spec.List("requirements", "The requirements, in the order they run.", requirementNode()).
			DistinctBy("id", "requirement").Typed("list of requirements, each `id` once").DefaultIs("none"),
	).Rule(checkIDs)
	return &spec.Spec{
		Root:        root,
		Title:       "mcp-bridge conformance requirement file",
		Description: "A dialect's conformance requirements (dialects/*/conformance.yaml); docs/conformance.md is the reference.",
		Noun:        "requirement file",
		Shape:       "a requirement file is a YAML mapping (" + root.KeyList() + ")",
		Columns:     true,
		Unknown:     func(k string) string { return "field " + k + " not found" },
	}
}

// requirementNode is one requirement.
func requirementNode() *spec.Node {
	return spec.Object("", "One thing the dialect's spec asks of an agent, and how the suite checks it.",
		spec.String("id", "The requirement's name: `<dialect>.<subject>.<rule>`.").Named("a requirement id").Required("every requirement has an id"),
		said("section", "Where in the spec the requirement comes from."),
		enum("level", "How strongly the spec asks for it: a failed MUST fails the run, a failed SHOULD is a warning.", "level", string(Must), string(Should)).
			Required("level is MUST or SHOULD"),
		said("level_note", "Where the level comes from: the spec's words, or, when the spec leaves it open (`open: ...`), how it was chosen."),
		said("title", "What is checked."),
		enum("scenario", "How it is checked: `exchange` sends the messages of its steps and checks the answers, `opening` checks what the agent sent on its own when the connection opened, `frames` checks every frame the agent sent in the run.",
			"scenario", string(Exchange), string(Opening), string(Frames)).Default(string(Exchange)),
		spec.Bool("always", "Run it even when it is not selected (it is then not reported), because later requirements need what it learns: the swarm handshake, the declared operations.").Default("false"),
		acts("first", "`opening`: the acts the agent's first message may have."),
		spec.List("steps", "`exchange`: the messages sent, and what must come back.", stepNode()).Named("a list of steps").Typed("list of steps").Rule(checkSteps).DefaultIs("none"),
	).Rule(checkScenario)
}

// stepNode is one step of an exchange.
func stepNode() *spec.Node {
	return spec.Object("", "One message sent (or one per operation), and the answer it must get.",
		spec.Object("send", "The message sent: built in the dialect by its codec from canonical fields, then edited.",
			enum("kind", "What is sent: `request` (an operation), `query-capabilities` (swarm: a handshake_request), `event`, `raw` (the frame `raw` as it is), `resend` (an earlier step's message again); for A2A over HTTP also `card` (the agent card fetched again: it must be 200 JSON that a2a-go's card parser reads; it is the answer the checks look at) and `rpc` (a JSON-RPC request of `method` and `params`).",
				"send kind", KindRequest, KindQuery, KindEvent, KindRaw, KindResend, KindCard, KindRPC).Required("a step says the kind of message it sends"),
			enum("op", "The operation a request asks for: `declared` (the first the agent declared, or `--op`), `each` (every declared operation, one request each), `unknown` (one no agent has).",
				"op", OpDeclared, OpEach, OpUnknown).DefaultIs("`declared`"),
			spec.String("raw", "`raw`: the frame sent.").Named("a frame").DefaultIs("none"),
			spec.Int("step", "`resend`: the index of the earlier step whose message is sent again.").Default("0"),
			spec.Duration("ttl", "The request's own time limit (collab ttl, swarm and bluelabel timeout).").DefaultIs("none"),
			enum("priority", "A canonical priority.", "priority", canonical.CanonicalValues(canonical.KindPriority)...).
				Refused(func(s string) string { return fmt.Sprintf("priority %q is not a canonical priority", s) }).DefaultIs("none"),
			spec.Bool("trace", "Give the message a trace id and span id.").Default("false"),
			spec.Bool("reply_with", "Give the message a reply-with token distinct from its id.").Default("false"),
			spec.Map("set", "Members set after encoding: dotted JSON path to any value.", spec.Any("", "")).
				Named("a mapping of dotted JSON paths to values").DefaultIs("none"),
			spec.List("delete", "Members removed after encoding, by dotted JSON path.", spec.String("", "").Named("a dotted JSON path")).
				Named("a list of dotted JSON paths").DefaultIs("none"),
			spec.String("method", "`rpc`: the JSON-RPC method (`GetTask`, `CancelTask`...).").Named("a JSON-RPC method").DefaultIs("none"),
			spec.Any("params", "`rpc`: the JSON-RPC params; a string `{{task}}` in them is the id of the last task the agent answered with in the requirement.").DefaultIs("none"),
		).Required("a step sends a message").Rule(checkSend),
		expectNode(),
	).Rule(checkStep)
}

// expectNode is what must come back for a step's message.
func expectNode() *spec.Node {
	return spec.Object("expect", "What must come back; without it the step sends without waiting.",
		enum("reply", "The kind of answer: `answer` (a result, failure, refusal or not-understood), `failure` (one that says the work failed), `declaration` (a capability declaration), `maybe` (anything or nothing, within the quiet time), `none` (nothing that answers, within the quiet time).",
			"reply", ReplyAnswer, ReplyFailure, ReplyDeclaration, ReplyMaybe, ReplyNone).DefaultIs("`answer`"),
		acts("acts", "The canonical acts the answer may have."),
		enum("within", "`ttl`: the answer must come within the message's own ttl; without it, within the run's timeout.", "within", "ttl").DefaultIs("the run's timeout"),
		spec.Bool("correlated", "The answer must quote the message (`correlation`).").Default("false"),
		enum("when", "Skip the requirement unless it happened: `answered` (any answer), `accept` (an acceptance came first), `needs-input` (the agent asked for input); or, before the step is sent, unless the agent's card says `capabilities.streaming: true` (`streaming`).",
			"when", "answered", "accept", "needs-input", "streaming").DefaultIs("always"),
		spec.Bool("single", "At most one acceptance, before one final answer, and nothing quoting the message after it (within the quiet time).").Default("false"),
		enum("require", "An interim act that must come before the answer.", "require", string(canonical.ActAccept)).DefaultIs("none"),
		enum("on", "The frame the checks and correlation look at.", "on", "final", "accept").DefaultIs("`final`"),
		spec.Bool("or_opening", "Take a declaration the agent sent when the connection opened as the answer, without asking.").Default("false"),
		spec.Bool("client", "`card`: a2a-go can make a client from the card (`a2aclient.NewFromCard`: an interface it speaks, with an absolute URL and a protocol version).").Default("false"),
		spec.List("check", "Conditions on the answer's JSON.", checkNode()).Named("a list of checks").Typed("list of checks").DefaultIs("none"),
	).DefaultIs("none: the step sends without waiting")
}

// checkNode is a condition on a member of a frame.
func checkNode() *spec.Node {
	return spec.Object("", "A condition on a member of the answer; values may name the run's parties (`{{suite}}`, `{{agent}}`) or a member of the message sent (`{{sent:trace.spanId}}`), or, over HTTP, the id of the last task the A2A agent answered with (`{{task}}`). Exactly one of `equals`, `one_of`, `present`, `at_least`, `not_contains`, `each_has`, `items_have`, `matches`.",
		spec.OneOf("path", "The member's dotted JSON path, or several tried in order (the first present is checked); `\"\"` is the whole frame.",
			spec.String("", "").Named("a dotted JSON path").EmptyOK(),
			spec.List("", "", spec.String("", "").Named("a dotted JSON path").EmptyOK()).NonEmpty()).
			Named("a dotted JSON path, or a list of them").Required("a check needs a path"),
		spec.Any("equals", "The member is this JSON value.").DefaultIs("none"),
		spec.List("one_of", "The member is one of these values.", spec.Any("", "")).DefaultIs("none"),
		spec.Bool("present", "The member is present (`true`) or absent (`false`).").DefaultIs("none"),
		spec.Any("at_least", "The member is a number not below this one.").DefaultIs("none"),
		spec.String("not_contains", "The member's JSON text does not contain this.").DefaultIs("none"),
		spec.String("each_has", "The member is a non-empty array whose every element has this member.").DefaultIs("none"),
		spec.String("items_have", "The member is an array, empty or not, whose every element has this member.").DefaultIs("none"),
		spec.String("matches", "The member is a string matching this regular expression (RE2), or an array of such strings, an empty one holding (`supportedInterfaces.#.url`).").
			Named("a regular expression").DefaultIs("none"),
	).Rule(checkCheck)
}

// checkIDs checks that every requirement's id starts with the dialect.
func checkIDs(d *spec.Decoder, v *spec.Value) {
	dialect := v.Str("dialect")
	if dialect == "" {
		return
	}
	for _, r := range v.List("requirements") {
		if id := r.Get("id"); id != nil && !strings.HasPrefix(id.String(), dialect+".") {
			d.Fail(id.Pos(), id.Path(), "the id must start with %q", dialect+".")
		}
	}
}

// checkScenario checks that a requirement has what its scenario needs.
func checkScenario(d *spec.Decoder, v *spec.Value) {
	steps, first := len(v.List("steps")) > 0, len(v.List("first")) > 0
	switch Scenario(v.Str("scenario")) {
	case Frames:
		if steps || first {
			d.Fail(v.Pos(), v.Path(), "a frames requirement has no steps or first")
		}
	case Opening:
		if steps || !first {
			d.Fail(v.Pos(), v.Path(), "an opening requirement has first and no steps")
		}
	case Exchange:
		if !steps {
			d.Fail(v.Pos(), v.Path(), "an exchange needs steps")
		}
	}
}

// checkSteps checks that a resend names an earlier step.
func checkSteps(d *spec.Decoder, v *spec.Value) {
	for i, st := range v.Items() {
		s := st.Get("send")
		if s == nil || s.Str("kind") != KindResend {
			continue
		}
		if n := s.Get("step"); n.Integer() >= i {
			at := s.Pos()
			if n.Given() {
				at = n.Pos()
			}
			d.Fail(at, spec.Join(s.Path(), "step"), "resend names step %d, not an earlier one", n.Integer())
		}
	}
}

// checkSend checks that a raw message has its frame, and an rpc its
// method.
func checkSend(d *spec.Decoder, v *spec.Value) {
	switch {
	case v.Str("kind") == KindRaw && !v.Has("raw"):
		d.Fail(v.Pos(), v.Path(), "a raw message needs raw")
	case v.Str("kind") == KindRPC && v.Str("method") == "":
		d.Fail(v.Pos(), v.Path(), "an rpc message needs method")
	case v.Str("kind") != KindRPC && (v.Has("method") || v.Has("params")):
		d.Fail(v.Pos(), v.Path(), "method and params are for an rpc message")
	}
}

// checkStep checks the rules between what a step sends and expects.
func checkStep(d *spec.Decoder, v *spec.Value) {
	e := v.Get("expect")
	if e == nil {
		return
	}
	switch {
	case e.Str("within") == "ttl" && !v.Get("send").Has("ttl"):
		d.Fail(e.Pos(), spec.Join(e.Path(), "within"), "within ttl needs the message's ttl")
	case e.Str("on") == "accept" && e.Str("when") != "accept":
		d.Fail(e.Pos(), spec.Join(e.Path(), "on"), "checks on the acceptance need when: accept")
	case e.Bool("or_opening") && e.Str("reply") != ReplyDeclaration:
		d.Fail(e.Pos(), spec.Join(e.Path(), "or_opening"), "or_opening takes a declaration: it needs reply: declaration")
	case e.Bool("client") && v.Get("send").Str("kind") != KindCard:
		d.Fail(e.Pos(), spec.Join(e.Path(), "client"), "client is checked of a card: it needs send kind card")
	}
}

// checkCheck checks that a check says one thing of its member.
func checkCheck(d *spec.Decoder, v *spec.Value) {
	c := bindCheck(v)
	n := 0
	for _, set := range []bool{c.Equals != nil, c.OneOf != nil, c.Present != nil, c.AtLeast != nil, c.NotContains != "", c.EachHas != "", c.ItemsHave != "", c.Matches != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		d.Fail(v.Pos(), v.Path(), "a check needs exactly one of equals, one_of, present, at_least, not_contains, each_has, items_have, matches")
	}
	if c.Matches != "" {
		if _, err := regexp.Compile(c.Matches); err != nil {
			m := v.Get("matches")
			d.Fail(m.Pos(), m.Path(), "matches is not a regular expression: %v", err)
		}
	}
}

// parseSuite decodes one requirement file, named file in errors, and
// binds it.
func parseSuite(file string, data []byte) (*Suite, error) {
	root, err := requirementFile.Decode(file, data)
	if err != nil {
		return nil, err
	}
	return bindSuite(root), nil
}

// bindSuite reads a decoded requirement file into a Suite.
func bindSuite(v *spec.Value) *Suite {
	c := v.Get("correlation")
	s := &Suite{Dialect: v.Str("dialect"), Spec: v.Str("spec"), Introduction: v.Str("opening"),
		Correlation: Correlation{Request: c.Strs("request"), Reply: c.Strs("reply")}}
	for _, r := range v.List("requirements") {
		req := Requirement{ID: r.Str("id"), Dialect: s.Dialect, Spec: s.Spec, Section: r.Str("section"),
			Level: Level(r.Str("level")), LevelNote: r.Str("level_note"), Title: r.Str("title"),
			Scenario: Scenario(r.Str("scenario")), Always: r.Bool("always"), First: bindActs(r.Get("first"))}
		for _, st := range r.List("steps") {
			req.Steps = append(req.Steps, Step{Send: bindSend(st.Get("send")), Expect: bindExpect(st.Get("expect"))})
		}
		s.Requirements = append(s.Requirements, req)
	}
	return s
}

// bindActs reads a list of acts; nil when absent.
func bindActs(v *spec.Value) []canonical.Act {
	var out []canonical.Act
	for _, a := range v.Items() {
		out = append(out, canonical.Act(a.String()))
	}
	return out
}

// bindSend reads what a step sends.
func bindSend(v *spec.Value) Send {
	s := Send{Kind: v.Str("kind"), Op: v.Str("op"), Raw: v.Str("raw"), Step: v.Int("step"),
		TTL: Duration{v.Dur("ttl")}, Priority: v.Str("priority"), Trace: v.Bool("trace"),
		ReplyWith: v.Bool("reply_with"), Delete: v.Strs("delete"), Method: v.Str("method")}
	if p := v.Get("params"); p != nil {
		s.Params = p.Any()
	}
	if set := v.List("set"); set != nil {
		s.Set = make(map[string]any, len(set))
		for _, m := range set {
			s.Set[m.Key()] = m.Any()
		}
	}
	return s
}

// bindExpect reads what must come back; nil when nothing is expected.
func bindExpect(v *spec.Value) *Expect {
	if v == nil {
		return nil
	}
	e := &Expect{Reply: v.Str("reply"), Acts: bindActs(v.Get("acts")), Within: v.Str("within"), Correlated: v.Bool("correlated"),
		When: v.Str("when"), Single: v.Bool("single"), Require: canonical.Act(v.Str("require")), On: v.Str("on"),
		OrOpening: v.Bool("or_opening"), Client: v.Bool("client")}
	for _, c := range v.List("check") {
		e.Check = append(e.Check, bindCheck(c))
	}
	return e
}

// bindCheck reads a condition on a member.
func bindCheck(v *spec.Value) Check {
	c := Check{NotContains: v.Str("not_contains"), EachHas: v.Str("each_has"), ItemsHave: v.Str("items_have"), Matches: v.Str("matches")}
	switch p := v.Get("path"); {
	case p == nil:
	case p.Node().Kind() == spec.KindString:
		c.Path = Paths{p.String()}
	default:
		c.Path = p.Strings()
	}
	if e := v.Get("equals"); e != nil {
		c.Equals = e.Any()
	}
	if o := v.Get("one_of"); o != nil {
		c.OneOf = make([]any, 0, len(o.Items()))
		for _, it := range o.Items() {
			c.OneOf = append(c.OneOf, it.Any())
		}
	}
	if p := v.Get("present"); p != nil {
		present := p.Boolean()
		c.Present = &present
	}
	if a := v.Get("at_least"); a != nil {
		c.AtLeast = a.Any()
	}
	return c
}
