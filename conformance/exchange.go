package conformance

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// maxInputRounds bounds how often an agent may ask for more input on one
// request.
const maxInputRounds = 3

// outcome is how a requirement fared, before its level makes a failure
// FAIL or warn. An empty status is undecided.
type outcome struct {
	status Status // Pass, Fail or Skip
	detail string
	frame  string
	path   string
	rule   string
}

func passed(detail string) outcome { return outcome{status: Pass, detail: detail} }

func skipped(format string, args ...any) outcome {
	return outcome{status: Skip, detail: fmt.Sprintf(format, args...)}
}

func failure(format string, args ...any) outcome {
	return outcome{status: Fail, detail: fmt.Sprintf(format, args...)}
}

// blame names the frame at fault, and the path and rule it broke.
func (o outcome) blame(m *inbound, path, rule string) outcome {
	o.frame, o.path, o.rule = clip(m.Data), path, rule
	return o
}

// exchange runs the steps of a requirement: each sends its message (or one
// per operation) and checks what comes back.
func (r *runner) exchange(req Requirement) outcome {
	var earlier [][]*message
	var notes []string
	for i, st := range req.Steps {
		if e := st.Expect; e != nil && e.OrOpening {
			if f := r.openingDeclaration(); f != nil {
				o := r.judge(nil, e, f, nil, 0)
				if o.status != Pass {
					o.detail = "its declaration on connecting: " + o.detail
					return o
				}
				notes = append(notes, "declared on connecting")
				earlier = append(earlier, nil)
				continue
			}
		}
		if e := st.Expect; e != nil && e.When == "streaming" && !gjson.GetBytes(r.card, "capabilities.streaming").Bool() {
			return skipped("the agent's card does not say capabilities.streaming: true")
		}
		if st.Send.Kind == KindCard {
			if o := r.cardStep(st.Expect); o.status != Pass {
				return o
			}
			earlier = append(earlier, nil)
			continue
		}
		msgs, why, err := r.build(st.Send, earlier)
		if err != nil {
			return failure("%v", err)
		}
		if why != "" {
			return skipped("%s", why)
		}
		for _, m := range msgs {
			if err := r.sendMessage(m); err != nil {
				return failure("the %s: %v", m.what, err)
			}
			if st.Expect == nil {
				continue
			}
			if o := r.await(m, st.Expect); o.status != Pass {
				where := "the " + m.what
				if len(req.Steps) > 1 {
					where = fmt.Sprintf("step %d, %s", i+1, where)
				}
				o.detail = where + ": " + o.detail
				return o
			}
		}
		earlier = append(earlier, msgs)
	}
	return passed(strings.Join(notes, "; "))
}

// openingDeclaration returns the capability declaration the agent sent on
// connecting, if it did.
func (r *runner) openingDeclaration() *inbound {
	for _, f := range r.opening {
		if f.env != nil && f.env.Act == canonical.ActInformCapabilities {
			return f
		}
	}
	return nil
}

// sendMessage sends m and notes when.
func (r *runner) sendMessage(m *message) error {
	m.at = time.Now()
	return r.write(m.frame)
}

// await waits for the answer to m and judges it. Interim answers are
// collected (acceptances) or answered (a request for input gets the same
// request with the inputs).
func (r *runner) await(m *message, e *Expect) outcome {
	kind := e.kind()
	wait := max(r.o.Timeout, m.ttl)
	quiet := kind == ReplyMaybe || kind == ReplyNone
	if quiet {
		wait = r.o.Quiet
	}
	deadline := m.at.Add(wait)
	var accepts []*inbound
	inputs := 0
	for {
		f, err := r.next(deadline)
		switch {
		case errors.Is(err, errNoFrame) && quiet:
			return passed("")
		case errors.Is(err, errNoFrame) && e.When == "answered":
			return skipped("no answer within %s", wait)
		case errors.Is(err, errNoFrame) && len(accepts) > 0:
			return failure("no answer within %s, after %d acceptance(s)", wait, len(accepts)).blame(accepts[0], "", "an acceptance must be followed by the answer")
		case errors.Is(err, errNoFrame):
			return failure("no answer within %s", wait)
		case err != nil:
			return failure("%v", err)
		}
		if !r.answers(f, m, kind) {
			continue
		}
		switch {
		case kind == ReplyNone:
			return failure("it asks for no answer, and the agent answered it").blame(f, "", "one-way messages get no answer")
		case kind == ReplyMaybe:
			continue
		case f.env.Act == canonical.ActAccept:
			accepts = append(accepts, f)
			continue
		case f.env.Act == canonical.ActNeedsInput:
			if inputs++; inputs > maxInputRounds {
				return failure("the agent asked for input %d times", inputs).blame(f, "", fmt.Sprintf("at most %d rounds of input are given", maxInputRounds))
			}
			more, err := r.followUp(m, f.env)
			if err == nil {
				err = r.sendMessage(more)
			}
			if err != nil {
				return failure("giving the input asked for: %v", err)
			}
			m.ids = more.ids
			continue
		}
		return r.judge(m, e, f, accepts, inputs)
	}
}

// kind returns the kind of answer e waits for.
func (e *Expect) kind() string {
	if e.Reply == "" {
		return ReplyAnswer
	}
	return e.Reply
}

// answers reports whether frame f is an answer to m: a reply that quotes
// m, or that quotes nothing the suite sent (the suite waits for one answer
// at a time, so it is taken as m's; whether it quotes m rightly is for
// requirements on correlation). A reply to an earlier message is not.
func (r *runner) answers(f *inbound, m *message, kind string) bool {
	if f.env == nil {
		return false
	}
	switch f.env.Act {
	case canonical.ActResult, canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood,
		canonical.ActAccept, canonical.ActNeedsInput:
	case canonical.ActInformCapabilities:
		if kind != ReplyDeclaration {
			return false
		}
	default:
		return false
	}
	if m.quotedBy(f.corr) {
		return true
	}
	return f.corr == "" || !r.sent[f.corr]
}

// judge checks the final answer f to m (nil for a declaration made
// unasked), after the acceptances and rounds of input that came before it.
func (r *runner) judge(m *message, e *Expect, f *inbound, accepts []*inbound, inputs int) outcome {
	kind := e.kind()
	if !fits(f.env, kind, e.Acts) {
		return failure("answered with %s; want %s", actText(f.env), wantText(kind, e.Acts)).blame(f, "", "the answer must be "+wantText(kind, e.Acts))
	}
	switch {
	case e.When == "needs-input" && inputs == 0:
		return skipped("the agent asked for no input")
	case e.When == "accept" && len(accepts) == 0:
		return skipped("the agent sent no acceptance before its answer")
	case e.Require == canonical.ActAccept && len(accepts) == 0:
		return failure("the answer came with no acceptance before it").blame(f, "", "an acceptance comes before the answer")
	}
	if m != nil && e.Within == "ttl" {
		if took := f.at.Sub(m.at); took > m.ttl {
			return failure("answered after %s, past its own time limit of %s", took.Round(time.Millisecond), m.ttl).blame(f, "", fmt.Sprintf("the answer must come within %s", m.ttl))
		}
	}
	on := f
	if e.On == "accept" {
		on = accepts[0]
	}
	if m != nil && e.Correlated && !m.quotedBy(on.corr) {
		return failure("the answer does not quote it").blame(on, r.replyPath(on),
			fmt.Sprintf("must quote %s; it quotes %q", quoteList(m.ids), on.corr))
	}
	for _, c := range e.Check {
		if o := r.check(c, on, m); o.status != "" {
			return o
		}
	}
	if m != nil && e.Single {
		return r.single(m, accepts)
	}
	return passed("")
}

// single checks that an answer was the only one: at most one acceptance
// came before it, and nothing quoting m comes within Quiet after it.
func (r *runner) single(m *message, accepts []*inbound) outcome {
	if len(accepts) > 1 {
		return failure("%d acceptances came", len(accepts)).blame(accepts[1], "", "a request is accepted at most once")
	}
	deadline := time.Now().Add(r.o.Quiet)
	for {
		f, err := r.next(deadline)
		if err != nil {
			return passed("") // quiet, or the connection ended: for the next requirement to see
		}
		if f.env != nil && f.env.Act.IsReply() && m.quotedBy(f.corr) {
			return failure("another answer came after the final one").blame(f, r.replyPath(f), "nothing answers a request after its final answer")
		}
	}
}

// fits reports whether an answer of env is the kind waited for.
func fits(env *canonical.Envelope, kind string, acts []canonical.Act) bool {
	if len(acts) > 0 {
		for _, a := range acts {
			if env.Act == a {
				return true
			}
		}
		return false
	}
	switch kind {
	case ReplyDeclaration:
		return env.Act == canonical.ActInformCapabilities
	case ReplyFailure:
		return env.Act.IsError() || (env.Act == canonical.ActResult && env.Outcome == canonical.OutcomeFailure)
	}
	return env.Act == canonical.ActResult || env.Act.IsError()
}

// wantText says what kind of answer is waited for.
func wantText(kind string, acts []canonical.Act) string {
	if len(acts) > 0 {
		names := make([]string, len(acts))
		for i, a := range acts {
			names[i] = string(a)
		}
		return "one of: " + strings.Join(names, ", ")
	}
	switch kind {
	case ReplyDeclaration:
		return "a capability declaration (inform-capabilities)"
	case ReplyFailure:
		return "an answer saying it failed (failure, refuse or not-understood, or a result whose outcome is failure)"
	}
	return "a final answer (result, failure, refuse or not-understood)"
}

// actText names the act of an answer, with its outcome.
func actText(env *canonical.Envelope) string {
	if env.Outcome != "" {
		return fmt.Sprintf("%s (outcome %s)", env.Act, env.Outcome)
	}
	return string(env.Act)
}

// replyPath is the path where f quotes what it answers: the first of the
// dialect's reply paths present in it, else the first of them.
func (r *runner) replyPath(f *inbound) string {
	for _, p := range r.suite.Correlation.Reply {
		if present(f.Data, p) {
			return p
		}
	}
	return r.suite.Correlation.Reply[0]
}

func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "one of " + strings.Join(q, ", ")
}

// judgeOpening checks the agent's first message (the first frame that
// decodes: what does not is for the frames requirement) when the
// connection first opened.
func (r *runner) judgeOpening(req Requirement) outcome {
	var f *inbound
	for _, m := range r.firstOpening {
		if m.env != nil {
			f = m
			break
		}
	}
	if f == nil {
		return passed("the agent waited for the suite to speak first")
	}
	want := make([]string, len(req.First))
	for i, a := range req.First {
		if f.env.Act == a {
			return passed("")
		}
		want[i] = string(a)
	}
	return failure("the agent spoke first with %s", f.env.Act).blame(f, "", "the first message must be "+strings.Join(want, " or "))
}

// judgeFrames reports the problems found in every frame the agent sent.
func (r *runner) judgeFrames(req Requirement) outcome {
	in := r.in
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.bad == 0 {
		return passed(fmt.Sprintf("%d frames checked", in.seq))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of the %d frames the agent sent broke the %s schema, rules or limits", in.bad, in.seq, req.Dialect)
	for i, p := range in.problems {
		path := p.path
		if path == "" {
			path = "(the message)"
		}
		during := "the opening"
		if p.requirement != "" {
			during = p.requirement
		}
		if i == 0 {
			fmt.Fprintf(&b, "; the first, frame %d during %s, is shown", p.seq, during)
			continue
		}
		fmt.Fprintf(&b, "\nframe %d during %s: at %s: %s", p.seq, during, path, p.rule)
	}
	first := in.problems[0]
	return outcome{status: Fail, detail: b.String(), frame: first.frame, path: first.path, rule: first.rule}
}
