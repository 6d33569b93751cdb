package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	a2adialect "github.com/mcp-bridge/mcp-bridge/dialects/a2a"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/tidwall/gjson"
)

// Options configure a run. The zero value of each field but Dialect takes
// its default.
type Options struct {
	// Dialect is the dialect the agent speaks (required).
	Dialect string
	// Agent is the id the suite addresses the agent by; "" takes the sender
	// of its introduction, else "agent-under-test".
	Agent string
	// Operation is the operation to call instead of the declared ones
	// ("name", or "capability/name" where the dialect names operations in
	// two levels); Arguments its JSON arguments (default {}).
	Operation string
	Arguments string
	// Level is the lowest level run: Should (the default) runs every
	// requirement, Must only the MUSTs.
	Level Level
	// Strict makes a failed SHOULD a failure (FAIL, and the run fails) as
	// a failed MUST is, rather than a warning.
	Strict bool
	// Only narrows the run to these requirement ids; Skip leaves these out.
	Only, Skip []string
	// Timeout bounds the wait for each answer (default 5s).
	Timeout time.Duration
	// Grace is how long the suite waits for an agent that may speak first
	// to do so (default 1s).
	Grace time.Duration
	// Quiet is how long silence must last to count as no answer where
	// none is due, and how long the suite listens after a final answer for
	// another (default 300ms).
	Quiet time.Duration
	// ConnectWait bounds starting or reaching the agent the first time
	// (default 30s); later reconnections wait Timeout.
	ConnectWait time.Duration
	// MaxFrame is the largest frame the agent may send (default 1 MiB, the
	// bridge's limit).
	MaxFrame int
	// MaxFrames is how many frames a run takes from the agent before it
	// stops, as a flood (default 10000).
	MaxFrames int
	// SuiteID is the suite's own id, as the sender of what it sends
	// (default "conformance-suite", written as the dialect writes ids:
	// "CONFORMANCE-SUITE" in bluelabel).
	SuiteID string
	// Progress is told of each requirement as it runs (nil: nothing).
	Progress Progress
	// Transcript, when set, gets every frame both ways as NDJSON.
	Transcript io.Writer
}

// The defaults of Options.
const (
	DefaultTimeout     = 5 * time.Second
	DefaultGrace       = time.Second
	DefaultQuiet       = 300 * time.Millisecond
	DefaultConnectWait = 30 * time.Second
	DefaultMaxFrame    = 1 << 20
	DefaultMaxFrames   = 10000
	DefaultSuiteID     = "conformance-suite"
	// unknownAgent addresses an agent that did not name itself.
	unknownAgent = "agent-under-test"
	// maxEach bounds how many declared operations a requirement calls.
	maxEach = 16
)

func (o Options) withDefaults() Options {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&o.Timeout, DefaultTimeout)
	set(&o.Grace, DefaultGrace)
	set(&o.Quiet, DefaultQuiet)
	set(&o.ConnectWait, DefaultConnectWait)
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
	if o.MaxFrames <= 0 {
		o.MaxFrames = DefaultMaxFrames
	}
	if o.Level == "" {
		o.Level = Should
	}
	if o.SuiteID == "" {
		o.SuiteID = DefaultSuiteID
	}
	if o.Progress == nil {
		o.Progress = silent{}
	}
	return o
}

// silent is the Progress of a run nobody watches.
type silent struct{}

func (silent) Started(Requirement) {}
func (silent) Finished(Result)     {}
func (silent) Note(string)         {}

// Run checks the agent target reaches against the requirements of its
// dialect and returns the report. It fails without a report when the
// options are wrong, and with what it has when the agent could not be
// started or reached at first (an error that is ErrUnreachable) or ctx
// ended. An agent that misbehaves later fails requirements: what it sends
// is bounded (frame size, frame count), every wait has a deadline, and an
// agent that is lost is started or reached again for the next requirement.
func Run(ctx context.Context, target Target, o Options) (Report, error) {
	o = o.withDefaults()
	suite, err := SuiteOver(o.Dialect, target)
	if err != nil {
		return Report{}, err
	}
	codec, ok := builtin.Default().Lookup(o.Dialect)
	if !ok {
		return Report{}, fmt.Errorf("conformance: %s is not a registered dialect", o.Dialect)
	}
	if o.Level != Must && o.Level != Should {
		return Report{}, fmt.Errorf("conformance: level %q, want MUST or SHOULD", o.Level)
	}
	selected, err := suite.Select(o.Level, o.Only, o.Skip)
	if err != nil {
		return Report{}, err
	}
	r, err := newRunner(ctx, target, o, suite, codec)
	if err != nil {
		return Report{}, err
	}
	return r.run(selected)
}

// runner is one run.
type runner struct {
	ctx    context.Context
	target Target
	o      Options
	suite  *Suite
	codec  dialects.Codec
	tr     *transcript
	in     *inspector
	peer   peer

	w     *wire // the connection; nil until opened
	gone  error // the agent could not be reached again
	token string
	seq   int

	suiteID string
	agentID string
	// ops are the operations to call: --op, or those the agent declared.
	ops []operation
	// opening is what the agent sent on its own when the connection last
	// opened; firstOpening the same for the first connection.
	opening, firstOpening []*inbound
	openedOnce            bool
	// sent are the values replies may quote of every message sent.
	sent map[string]bool
	// card is the agent card of an A2A agent over HTTP (nil for others);
	// lastTask the id of the last task it answered with in the requirement
	// running.
	card     []byte
	lastTask string
}

// operation is one operation to call, with its arguments.
type operation struct {
	op   canonical.Operation
	args canonical.JSON
}

func (op operation) String() string { return opName(op.op) }

func opName(op canonical.Operation) string {
	if op.Capability != "" && op.Capability != op.Name {
		return op.Capability + "/" + op.Name
	}
	return op.Name
}

func newRunner(ctx context.Context, target Target, o Options, suite *Suite, codec dialects.Codec) (*runner, error) {
	start := time.Now()
	r := &runner{ctx: ctx, target: target, o: o, suite: suite, codec: codec, sent: map[string]bool{}}
	r.tr = newTranscript(o.Transcript, start)
	r.in = &inspector{codec: codec, replyAt: suite.Correlation.Reply, maxFrame: o.MaxFrame, max: o.MaxFrames, tr: r.tr}
	r.peer = newPeer(codec)
	r.token = randomHex(3)
	id, err := r.writtenID(o.SuiteID)
	if err != nil {
		return nil, err
	}
	r.suiteID = id
	r.agentID = o.Agent
	if o.Operation != "" {
		args := canonical.JSON("{}")
		if o.Arguments != "" {
			if !json.Valid([]byte(o.Arguments)) {
				return nil, fmt.Errorf("conformance: --args is not JSON: %s", o.Arguments)
			}
			args = canonical.JSON(o.Arguments)
		}
		op := canonical.Operation{Name: o.Operation}
		if c, n, two := strings.Cut(o.Operation, "/"); two {
			op = canonical.Operation{Capability: c, Name: n}
		}
		r.ops = []operation{{op: op, args: args}}
	} else if o.Arguments != "" {
		return nil, errors.New("conformance: --args needs --op")
	} else if _, carded := target.(*a2aTarget); !suite.Introduces() && !carded {
		return nil, fmt.Errorf("conformance: %s agents do not declare their operations: give --op (and --args)", suite.Dialect)
	}
	return r, nil
}

// writtenID returns id as the dialect writes it as a sender.
func (r *runner) writtenID(id string) (string, error) {
	env := &canonical.Envelope{Act: canonical.ActRequest, ID: "probe", TaskID: "PROBE", Sender: canonical.Party{ID: id},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "probe"}, Operation: canonical.Operation{Name: "probe"}}
	frame, err := r.codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		return "", fmt.Errorf("conformance: %s cannot write a request: %w", r.codec.Name(), err)
	}
	back, err := r.codec.Decode(frame)
	if err != nil {
		return "", fmt.Errorf("conformance: %s cannot read back the suite's request: %w", r.codec.Name(), err)
	}
	if back.Sender.ID == "" {
		return id, nil // the dialect names no sender (a2a): the id is the suite's as given
	}
	return back.Sender.ID, nil
}

// run runs the plan: every requirement of the suite that is selected, and
// those that run anyway (Always); the Frames ones last.
func (r *runner) run(selected []Requirement) (Report, error) {
	start := time.Now()
	rep := Report{Dialect: r.suite.Dialect, Spec: r.suite.Spec, Target: r.target.String(), Suite: r.suiteID, Started: start, Strict: r.o.Strict}
	finish := func(err error) (Report, error) {
		if r.w != nil {
			_ = r.w.conn.Close()
		}
		rep.Agent = r.agent()
		for _, op := range r.ops {
			rep.Operations = append(rep.Operations, op.String())
		}
		rep.OperationsSource = "declared"
		if r.o.Operation != "" {
			rep.OperationsSource = "--op"
		}
		r.in.mu.Lock()
		rep.Frames = r.in.seq
		r.in.mu.Unlock()
		if stop := r.in.stoppedBy(); stop != nil {
			rep.Stopped = stop.Error()
		}
		rep.Duration = time.Since(start)
		if err == nil {
			if terr := r.tr.failure(); terr != nil {
				err = fmt.Errorf("conformance: writing the transcript: %w", terr)
			}
		}
		return rep, err
	}
	if err := r.connect(r.o.ConnectWait); err != nil {
		return finish(err)
	}
	r.o.Progress.Note(fmt.Sprintf("connected to the agent (%s); frames it sent on its own: %d", r.target, len(r.opening)))
	chosen := map[string]bool{}
	for _, req := range selected {
		chosen[req.ID] = true
	}
	var frames []Requirement
	for _, req := range r.suite.Requirements {
		switch {
		case !chosen[req.ID] && !req.Always:
			continue
		case req.Scenario == Frames:
			frames = append(frames, req)
			continue
		}
		if len(r.ops) == 0 && needsOperation(req) && !anyFailed(rep.Results, Must) && r.gone == nil && r.in.stoppedBy() == nil {
			return finish(fmt.Errorf("conformance: %s: the agent declared no operation; give --op (and --args) for the suite to call", req.ID))
		}
		if chosen[req.ID] {
			r.o.Progress.Started(req)
		}
		res := r.runOne(req)
		if r.ctx.Err() != nil {
			return finish(r.ctx.Err())
		}
		if chosen[req.ID] {
			rep.Results = append(rep.Results, res)
			r.o.Progress.Finished(res)
		}
	}
	for _, req := range frames {
		r.o.Progress.Started(req)
		res := r.result(req, r.judgeFrames(req), 0)
		rep.Results = append(rep.Results, res)
		r.o.Progress.Finished(res)
	}
	return finish(nil)
}

// needsOperation reports whether req calls an operation the agent offers.
func needsOperation(req Requirement) bool {
	for _, st := range req.Steps {
		if st.Send.Kind == KindRequest && st.Send.Op != OpUnknown {
			return true
		}
	}
	return false
}

// anyFailed reports whether a requirement of level failed.
func anyFailed(results []Result, level Level) bool {
	for _, res := range results {
		if res.Level == level && res.Failed() {
			return true
		}
	}
	return false
}

// runOne runs one requirement, on a connection that is open (opened again
// if it was lost).
func (r *runner) runOne(req Requirement) Result {
	start := time.Now()
	r.in.setCurrent(req.ID)
	r.lastTask = ""
	o := r.ready()
	if o.status == "" {
		switch req.Scenario {
		case Opening:
			o = r.judgeOpening(req)
		default:
			o = r.exchange(req)
		}
	}
	if stop := r.in.stoppedBy(); stop != nil && o.status != Pass {
		o = outcome{status: Skip, detail: "not finished: " + stop.Error()}
	}
	return r.result(req, o, time.Since(start))
}

// result makes the result of req from its outcome: a failure is FAIL for
// a MUST, and for a SHOULD in a strict run; else warn.
func (r *runner) result(req Requirement, o outcome, took time.Duration) Result {
	res := resultOf(req)
	switch {
	case o.status == Pass || o.status == Skip:
		res.Status = o.status
	case r.o.Strict:
		res.Status = Fail
	default:
		res.Status = failed(req.Level)
	}
	res.Detail, res.Frame, res.Path, res.Rule = o.detail, o.frame, o.path, o.rule
	res.Duration = took
	return res
}

// ready makes sure the agent is connected; a non-empty status is the
// outcome of a requirement that cannot run.
func (r *runner) ready() outcome {
	if stop := r.in.stoppedBy(); stop != nil {
		return outcome{status: Skip, detail: "not run: " + stop.Error()}
	}
	if r.gone != nil {
		return outcome{status: Fail, detail: "not run: the agent was lost and could not be started or reached again: " + r.gone.Error()}
	}
	if r.w != nil && !r.w.ended() {
		return outcome{}
	}
	if r.w != nil {
		_ = r.w.conn.Close()
		r.w = nil
	}
	r.o.Progress.Note("the agent was lost; starting or reaching it again")
	if err := r.connect(r.o.Timeout); err != nil {
		r.gone = err
		return outcome{status: Fail, detail: "not run: the agent was lost and could not be started or reached again: " + err.Error()}
	}
	return outcome{}
}

// connect opens the target and takes the opening: what the agent sends on
// its own before the suite speaks. An agent that may introduce itself gets
// Grace to start; once it has sent a frame, the opening ends after Quiet
// without one. Any other gets Quiet.
func (r *runner) connect(wait time.Duration) error {
	ctx, cancel := context.WithTimeout(r.ctx, wait)
	conn, err := r.target.Open(ctx, r.o.MaxFrame)
	cancel()
	if err != nil {
		if !errors.Is(err, ErrUnreachable) {
			err = unreachable(err)
		}
		return err
	}
	r.w = startWire(conn, r.in)
	r.opening = nil
	if c, ok := conn.(*a2aConn); ok {
		r.card = c.Card()
		if r.o.Operation == "" {
			r.learnSkills()
		}
	}
	start := time.Now()
	grace := r.o.Quiet
	if r.suite.Introduces() {
		grace = r.o.Grace
	}
	for {
		until := start.Add(grace)
		if n := len(r.opening); n > 0 {
			until = minTime(r.opening[n-1].at.Add(r.o.Quiet), start.Add(grace+r.o.Quiet))
		}
		m, err := r.next(until)
		if errors.Is(err, errNoFrame) || (err != nil && (len(r.opening) > 0 || r.in.stoppedBy() != nil)) {
			break // what the agent sent before it went is for the requirements to judge
		}
		if err != nil {
			return unreachable(fmt.Errorf("the agent's connection ended as it opened: %w", err))
		}
		r.opening = append(r.opening, m)
	}
	if !r.openedOnce {
		r.firstOpening, r.openedOnce = r.opening, true
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// errNoFrame is next's answer when its deadline passes.
var errNoFrame = errors.New("no frame in time")

// next returns the next frame the agent sent, after answering it as the
// bridge would if it asks something of the suite (peer). It fails with
// errNoFrame at deadline, or with why the connection ended.
func (r *runner) next(deadline time.Time) (*inbound, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case m := <-r.w.inbox:
		return r.take(m), nil
	case <-r.w.done:
		select {
		case m := <-r.w.inbox:
			return r.take(m), nil
		default:
		}
		return nil, r.lost()
	case <-t.C:
		return nil, errNoFrame
	case <-r.ctx.Done():
		return nil, r.ctx.Err()
	}
}

// lost says why the connection ended.
func (r *runner) lost() error {
	if stop := r.in.stoppedBy(); stop != nil {
		return stop
	}
	if r.w.err == nil {
		return errors.New("the connection ended")
	}
	return r.w.err
}

// take takes a frame from the wire: it learns what the frame declares and
// answers what it asks of the suite.
func (r *runner) take(m *inbound) *inbound {
	r.w.taken(m)
	env := m.env
	if env == nil {
		return m
	}
	if r.agentID == "" && env.Sender.ID != "" {
		r.agentID = env.Sender.ID
	}
	if r.card != nil {
		r.noteTask(m.Data)
	}
	if env.Capabilities != nil && r.o.Operation == "" && (env.Act == canonical.ActInformCapabilities || env.Act == canonical.ActQueryCapabilities) {
		r.learn(env.Capabilities)
	}
	if r.sent[m.corr] {
		return m // an answer to the suite
	}
	if reply := r.peer.answer(env, r.suiteID); reply != nil {
		if frame, err := r.codec.Encode(nil, reply, &dialects.EncodeContext{}); err == nil {
			_ = r.write(frame)
		}
	}
	return m
}

// learn takes the operations a declaration lists.
func (r *runner) learn(caps *canonical.Capabilities) {
	if len(caps.Tools) == 0 {
		return
	}
	r.ops = nil
	for _, t := range caps.Tools {
		r.ops = append(r.ops, operation{op: canonical.Operation{Capability: t.Capability, Name: t.Name}, args: exampleArgs(t.InputSchema)})
	}
}

// write sends a frame to the agent, bounded by Timeout, and records it.
func (r *runner) write(frame []byte) error {
	ctx, cancel := context.WithTimeout(r.ctx, r.o.Timeout)
	defer cancel()
	at := time.Now()
	if err := r.w.conn.Write(ctx, frame); err != nil {
		return fmt.Errorf("sending to the agent: %w", err)
	}
	r.tr.sent(frame, at, r.in.currentID())
	return nil
}

// agent returns the id the suite addresses the agent by.
func (r *runner) agent() string {
	if r.agentID != "" {
		return r.agentID
	}
	return unknownAgent
}

// newID returns a fresh message id for the run.
func (r *runner) newID() string {
	r.seq++
	return fmt.Sprintf("conf-%d-%s", r.seq, r.token)
}

// SuiteOver returns the suite a run of dialect against target uses: the
// a2a dialect's requirements over HTTP for an A2A agent at an http(s) URL
// (A2A), else the dialect's own (SuiteFor).
func SuiteOver(dialect string, target Target) (*Suite, error) {
	if _, ok := target.(*a2aTarget); !ok {
		return SuiteFor(dialect)
	}
	if dialect != a2adialect.Name {
		return nil, fmt.Errorf("conformance: an agent at an http(s) URL is an A2A agent over HTTP: give --dialect a2a, not %s (the agents of other dialects are reached over WebSocket, ws://, or stdio)", dialect)
	}
	return A2AHTTPSuite()
}

// a2aHTTPSuite loads the a2a dialect's requirements over HTTP once.
var a2aHTTPSuite = sync.OnceValues(func() (*Suite, error) {
	s, err := parseSuite("a2a/conformance_http.yaml", a2adialect.HTTPRequirements)
	if err != nil {
		return nil, fmt.Errorf("conformance: the requirements of a2a over HTTP: %w", err)
	}
	return s, nil
})

// A2AHTTPSuite returns the requirements of A2A agents over HTTP
// (dialects/a2a/conformance_http.yaml): the agent card, JSON-RPC over
// HTTP POST, streaming over server-sent events, tasks.
func A2AHTTPSuite() (*Suite, error) { return a2aHTTPSuite() }

// learnSkills takes the operations to call from the skills of the agent's
// card, with arguments {}.
func (r *runner) learnSkills() {
	r.ops = nil
	for _, s := range gjson.GetBytes(r.card, "skills").Array() {
		if id := s.Get("id").String(); id != "" {
			r.ops = append(r.ops, operation{op: canonical.Operation{Name: id}, args: "{}"})
		}
	}
}

// noteTask remembers the id of the task an A2A answer names: a
// SendMessage's task or status update, or a GetTask's or CancelTask's task.
func (r *runner) noteTask(frame []byte) {
	root := gjson.ParseBytes(frame)
	for _, p := range []string{"result.task.id", "result.statusUpdate.taskId", "result.artifactUpdate.taskId"} {
		if v := root.Get(p); v.Type == gjson.String && v.Str != "" {
			r.lastTask = v.Str
			return
		}
	}
	if v := root.Get("result.id"); v.Type == gjson.String && v.Str != "" && root.Get("result.status").Exists() {
		r.lastTask = v.Str
	}
}
