package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/conformance"
)

// Conformance runs: the suite of package conformance against an agent
// serving WebSocket at a URL (the suite dials it), or against an agent
// connected to the bridge, through the bridge (the suite attaches as an
// agent of the same dialect, conformance-suite, and addresses it: what it
// judges is the agent as the bridge carries it, the bridge answering the
// handshake and refusing bad input itself). One run at a time, bounded in
// time; the results stream as server-sent events. Commands are not run
// from here: a browser must not start programs on the bridge's machine.

// Bounds of the runs.
const (
	maxRunTime = 5 * time.Minute
	keptRuns   = 8
	maxEvents  = 1000 // a run's events kept; notes past it are counted, not kept
)

// runRequest starts a run.
type runRequest struct {
	// URL is a WebSocket URL (ws:// or wss://) of an agent the suite
	// dials; Dialect its dialect.
	URL     string `json:"url"`
	Dialect string `json:"dialect"`
	// Agent is a connected agent, reached through the bridge instead.
	Agent string `json:"agent"`
	// Level is must (the MUSTs only) or should (all, the default); Only
	// narrows the run to these requirement ids.
	Level string   `json:"level"`
	Only  []string `json:"only"`
	// Operation is the operation to call instead of the declared ones,
	// with Arguments (JSON; default {}).
	Operation string `json:"operation"`
	Arguments string `json:"arguments"`
}

// runs are the console's conformance runs: the latest ones kept.
type runs struct {
	mu   sync.Mutex
	n    int
	kept []*run
}

// run is one conformance run and what it has reported so far.
type run struct {
	id, dialect, target string
	cancel              context.CancelFunc
	finished            chan struct{}

	mu      sync.Mutex
	events  []runEvent
	notes   int           // notes not kept, past maxEvents
	changed chan struct{} // closed at the next event
	done    bool
}

// runEvent is one event of a run's stream.
type runEvent struct {
	kind string
	data any
}

// under returns the run under way, nil if none.
func (rs *runs) under() *run {
	for _, r := range rs.kept {
		if !r.isDone() {
			return r
		}
	}
	return nil
}

func (rs *runs) get(id string) *run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.kept {
		if r.id == id {
			return r
		}
	}
	return nil
}

// stop ends the run under way and waits for it.
func (rs *runs) stop() {
	rs.mu.Lock()
	r := rs.under()
	rs.mu.Unlock()
	if r != nil {
		r.cancel()
		<-r.finished
	}
}

func (r *run) isDone() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

// add records an event and wakes the streams.
func (r *run) add(kind string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if kind == "note" && len(r.events) >= maxEvents {
		r.notes++
		return
	}
	r.events = append(r.events, runEvent{kind, data})
	if kind == "done" {
		r.done = true
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// from returns the events from the i-th on, a channel closed at the next
// one, and whether the run is over.
func (r *run) from(i int) ([]runEvent, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[min(i, len(r.events)):], r.changed
}

// The run reports through conformance.Progress.

func (r *run) Started(req conformance.Requirement) {
	r.add("started", struct {
		ID    string `json:"id"`
		Level string `json:"level"`
		Title string `json:"title"`
	}{req.ID, string(req.Level), req.Title})
}

func (r *run) Finished(res conformance.Result) {
	r.add("result", resultJSON{ID: res.ID, Level: string(res.Level), Status: string(res.Status), Title: res.Title,
		Section: res.Section, Detail: res.Detail, Frame: res.Frame, Path: res.Path, Rule: res.Rule,
		DurationMS: float64(res.Duration.Microseconds()) / 1000})
}

func (r *run) Note(msg string) {
	r.add("note", struct {
		Message string `json:"message"`
	}{msg})
}

// resultJSON is one requirement's result.
type resultJSON struct {
	ID         string  `json:"id"`
	Level      string  `json:"level"`
	Status     string  `json:"status"`
	Title      string  `json:"title"`
	Section    string  `json:"section"`
	Detail     string  `json:"detail,omitempty"`
	Frame      string  `json:"frame,omitempty"`
	Path       string  `json:"path,omitempty"`
	Rule       string  `json:"rule,omitempty"`
	DurationMS float64 `json:"duration_ms"`
}

// doneJSON ends a run's stream.
type doneJSON struct {
	// Error is why the run could not be made (the agent could not be
	// reached, the options were wrong), or why it stopped early.
	Error   string   `json:"error,omitempty"`
	Must    counts   `json:"must"`
	Should  counts   `json:"should"`
	Passed  bool     `json:"passed"`
	Failed  []string `json:"failed"`
	Frames  int      `json:"frames"`
	Seconds float64  `json:"seconds"`
}

type counts struct {
	Pass   int `json:"pass"`
	Failed int `json:"failed"`
	Skip   int `json:"skip"`
}

// startRun answers POST /ui/api/conformance: 202 with the run's id and
// the URL of its events; 409 while another run is under way.
func (c *Console) startRun(w http.ResponseWriter, r *http.Request) {
	var req runRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "conformance: the request is not JSON: %v", err)
		return
	}
	target, o, status, err := c.runTarget(req)
	if err != nil {
		fail(w, status, "conformance: %v", err)
		return
	}
	rs := c.runs
	rs.mu.Lock()
	if cur := rs.under(); cur != nil {
		rs.mu.Unlock()
		fail(w, http.StatusConflict, "conformance: run %s (%s) is under way: stop it or wait for it", cur.id, cur.target)
		return
	}
	rs.n++
	ctx, cancel := context.WithTimeout(c.ctx, maxRunTime)
	run := &run{id: strconv.Itoa(rs.n), dialect: o.Dialect, target: target.String(), cancel: cancel,
		finished: make(chan struct{}), changed: make(chan struct{})}
	rs.kept = append(rs.kept, run)
	if len(rs.kept) > keptRuns {
		rs.kept = rs.kept[1:]
	}
	rs.mu.Unlock()
	o.Progress = run
	go c.execute(ctx, run, target, o)
	writeJSON(w, http.StatusAccepted, struct {
		ID      string `json:"id"`
		Dialect string `json:"dialect"`
		Target  string `json:"target"`
		Events  string `json:"events"`
	}{run.id, run.dialect, run.target, Path + "api/conformance/" + run.id + "/events"})
}

// runTarget reads a run request: the target and the suite's options, or
// why not and the status that says so.
func (c *Console) runTarget(req runRequest) (conformance.Target, conformance.Options, int, error) {
	o := conformance.Options{Operation: req.Operation, Arguments: req.Arguments, Only: req.Only,
		ConnectWait: 10 * time.Second}
	switch strings.ToLower(req.Level) {
	case "", "should":
		o.Level = conformance.Should
	case "must":
		o.Level = conformance.Must
	default:
		return nil, o, http.StatusBadRequest, fmt.Errorf("level %q: must or should", req.Level)
	}
	if req.Arguments != "" && !json.Valid([]byte(req.Arguments)) {
		return nil, o, http.StatusBadRequest, fmt.Errorf("arguments: not JSON: %s", req.Arguments)
	}
	var target conformance.Target
	switch {
	case (req.URL == "") == (req.Agent == ""):
		return nil, o, http.StatusBadRequest, errors.New("say either url (an agent serving WebSocket) or agent (a connected agent)")
	case req.URL != "":
		u, err := url.Parse(req.URL)
		if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return nil, o, http.StatusBadRequest, fmt.Errorf("url %q: a WebSocket URL (ws:// or wss://) of the agent", req.URL)
		}
		o.Dialect, target = req.Dialect, conformance.Dial(req.URL)
	default:
		a, ok := c.b.Agent(req.Agent)
		if !ok {
			return nil, o, http.StatusNotFound, fmt.Errorf("no agent %q is known to the bridge", req.Agent)
		}
		if !a.Connected {
			return nil, o, http.StatusConflict, fmt.Errorf("agent %s is not connected (%s)", a.ID, a.Status)
		}
		if req.Dialect != "" && req.Dialect != a.Dialect {
			return nil, o, http.StatusBadRequest, fmt.Errorf("agent %s speaks %s, not %s", a.ID, a.Dialect, req.Dialect)
		}
		suite := conformance.DefaultSuiteID
		if a.Dialect == "bluelabel" {
			suite = strings.ToUpper(suite) // bluelabel ids are upper case
		}
		o.Dialect, o.Agent, o.SuiteID = a.Dialect, a.ID, suite
		target = &throughBridge{b: c.b, dialect: a.Dialect, suite: suite, agent: a.ID}
	}
	if _, err := conformance.SuiteFor(o.Dialect); err != nil {
		return nil, o, http.StatusBadRequest, err
	}
	return target, o, 0, nil
}

// execute runs the suite and ends the run's stream with its summary.
func (c *Console) execute(ctx context.Context, r *run, target conformance.Target, o conformance.Options) {
	defer close(r.finished)
	defer r.cancel()
	rep, err := conformance.Run(ctx, target, o)
	d := doneJSON{Failed: []string{}}
	if err != nil {
		d.Error = err.Error()
	} else if rep.Stopped != "" {
		d.Error = rep.Stopped
	}
	s := rep.Summary()
	d.Must = counts{s.Must.Pass, s.Must.Failed, s.Must.Skip}
	d.Should = counts{s.Should.Pass, s.Should.Failed, s.Should.Skip}
	v := rep.Verdict()
	d.Passed = err == nil && v.Code == 0
	d.Failed = append(d.Failed, v.Unexpected...)
	d.Frames, d.Seconds = rep.Frames, rep.Duration.Seconds()
	c.log.Info("console: conformance run", "run", r.id, "dialect", r.dialect, "target", r.target, "passed", d.Passed, "error", d.Error)
	r.add("done", d)
}

// runEvents answers GET /ui/api/conformance/{id}/events: the run's
// events from its start ("started" and "result" per requirement, "note"
// about the run, "done" with the summary), then the stream ends.
func (c *Console) runEvents(w http.ResponseWriter, r *http.Request) {
	run := c.runs.get(r.PathValue("id"))
	if run == nil {
		fail(w, http.StatusNotFound, "conformance: no run %q is kept (the latest %d are)", r.PathValue("id"), keptRuns)
		return
	}
	s, release, ok := c.openStream(w)
	if !ok {
		return
	}
	defer release()
	next := 0
	for {
		events, changed := run.from(next)
		for _, e := range events {
			if s.send(e.kind, "", e.data) != nil {
				return
			}
			next++
			if e.kind == "done" {
				return
			}
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-c.ctx.Done():
			return
		case <-time.After(keepalive):
			if s.ping() != nil {
				return
			}
		}
	}
}

// stopRun answers POST /ui/api/conformance/{id}/stop: the run ends with
// what it has.
func (c *Console) stopRun(w http.ResponseWriter, r *http.Request) {
	run := c.runs.get(r.PathValue("id"))
	if run == nil {
		fail(w, http.StatusNotFound, "conformance: no run %q is kept", r.PathValue("id"))
		return
	}
	run.cancel()
	<-run.finished
	writeJSON(w, http.StatusOK, struct {
		ID string `json:"id"`
	}{run.id})
}

// throughBridge is a conformance target reached through the bridge: each
// time it is opened, the suite attaches as the agent suite, of the
// dialect, on an in-process link.
type throughBridge struct {
	b                     *bridge.Bridge
	dialect, suite, agent string
}

func (t *throughBridge) String() string { return "agent " + t.agent + ", through the bridge" }

func (t *throughBridge) Open(_ context.Context, maxFrame int) (conformance.Conn, error) {
	l := &suiteLink{frames: make(chan []byte, backlog), closed: make(chan struct{}), limit: maxFrame}
	s, err := t.b.Attach(l, bridge.AttachOptions{Dialect: t.dialect, AgentID: t.suite, Remote: "the web console's conformance run"})
	if err != nil {
		return nil, fmt.Errorf("%w: attaching the suite to the bridge: %v", conformance.ErrUnreachable, err)
	}
	l.s = s
	if a, ok := t.b.Agent(t.agent); !ok || !a.Connected {
		l.Close()
		return nil, fmt.Errorf("%w: agent %s is no longer connected", conformance.ErrUnreachable, t.agent)
	}
	return l, nil
}

// suiteLink is the suite's connection to the bridge: the bridge sends on
// it what it delivers to the suite, and the suite's frames are received
// from it.
type suiteLink struct {
	s      *bridge.Session
	frames chan []byte
	closed chan struct{}
	once   sync.Once
	limit  int
}

func (l *suiteLink) Transport() string { return "console" }

func (l *suiteLink) Send(ctx context.Context, out bridge.Outbound) error {
	select {
	case l.frames <- out.Frame:
		return nil
	case <-l.closed:
		return errors.New("the conformance run has ended")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *suiteLink) Read() (conformance.Frame, error) {
	select {
	case f := <-l.frames:
		return conformance.Frame{Data: f[:min(len(f), l.limit)], Size: len(f)}, nil
	case <-l.closed:
		return conformance.Frame{}, errors.New("the suite's connection to the bridge is closed")
	}
}

func (l *suiteLink) Write(_ context.Context, frame []byte) error {
	select {
	case <-l.closed:
		return errors.New("the suite's connection to the bridge is closed")
	default:
	}
	l.s.Receive(append([]byte(nil), frame...)) // the bridge's answer, refusals included, comes by Send
	return nil
}

func (l *suiteLink) Close() error {
	l.once.Do(func() {
		close(l.closed)
		l.s.Detach()
	})
	return nil
}
