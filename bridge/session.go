package bridge

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// Session is one attached connection: the transport hands it every frame
// it reads, and the bridge delivers through its Link. It is the bridge's
// adapter between a dialect and the canonical envelopes of the core: frames
// are decoded, checked and their agent ids resolved to canonical ones here,
// once, and envelopes for the connection are encoded here.
type Session struct {
	b    *Bridge
	link Link
	opts sessionOptions

	mu      sync.Mutex
	codec   dialects.Codec      // nil until the dialect is known, or for a link of envelopes
	gen     uint64              // the generation of the rules codec is from
	dialect string              // the codec's name, or the label of a link of envelopes
	speller func(string) string // the dialect's id spelling, if it has one
	agent   *agent              // the agent it speaks for; nil until bound
	closed  bool
	gauge   queueGauge
	out     *delivery.Queue // what the bridge sends it, waiting for its link
	last    atomic.Bool     // the frame being received is the last one read (ReceiveLast)
}

// sessionOptions is what a session keeps of its AttachOptions: the
// dialect and agent id it was attached with are the session's own fields
// once it is, and what most connections lack (a token, an identity, trace
// context) is kept apart, only when given, so that an idle session holds
// 150 bytes less (docs/performance.md, "What one idle agent holds").
type sessionOptions struct {
	remote                                     string
	rare                                       *rareOptions // nil when the connection gave none
	envelopes, ephemeral, keepAnswers, reached bool
}

// rareOptions are the AttachOptions a connection seldom gives.
type rareOptions struct {
	token    string
	identity Identity
	trace    canonical.Trace
}

// keptOptions returns what a session keeps of o.
func keptOptions(o AttachOptions) sessionOptions {
	k := sessionOptions{remote: o.Remote, envelopes: o.Envelopes, ephemeral: o.Ephemeral,
		keepAnswers: o.KeepAnswers, reached: o.Reached}
	if o.Token != "" || o.Identity != (Identity{}) || o.Trace != (canonical.Trace{}) {
		k.rare = &rareOptions{token: o.Token, identity: o.Identity, trace: o.Trace}
	}
	return k
}

// token is the credential the connection presented, "" if none.
func (o *sessionOptions) token() string {
	if o.rare == nil {
		return ""
	}
	return o.rare.token
}

// identity is the agent the connection proved it speaks for when it was
// made; the zero Identity if none.
func (o *sessionOptions) identity() Identity {
	if o.rare == nil {
		return Identity{}
	}
	return o.rare.identity
}

// trace is the trace context the connection was given out of band.
func (o *sessionOptions) trace() canonical.Trace {
	if o.rare == nil {
		return canonical.Trace{}
	}
	return o.rare.trace
}

// ErrUnknownDialect is returned by Attach for a dialect the bridge lacks.
var ErrUnknownDialect = errors.New("unknown dialect")

// Attach adds a connection. An agent id in o binds it at once; a bad token
// or a dialect other than the agent's is refused.
func (b *Bridge) Attach(l Link, o AttachOptions) (*Session, error) {
	s := &Session{b: b, link: l, opts: keptOptions(o)}
	switch {
	case o.Envelopes:
		if o.Dialect == "" || o.AgentID == "" {
			return nil, errors.New("bridge: a link of envelopes needs its label (Dialect) and its agent")
		}
		s.dialect = o.Dialect
	case o.Dialect != "":
		c, ok := b.Registry().Lookup(o.Dialect)
		if !ok {
			return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownDialect, o.Dialect, b.Registry().Names())
		}
		s.setCodec(c)
	}
	if o.AgentID != "" && s.dialect == "" {
		return nil, errors.New("bridge: an agent bound at connect needs its dialect")
	}
	// The queue is made before the session is listed: the heartbeat reads
	// it from the listed sessions.
	s.out = delivery.NewQueue(l, delivery.QueueOptions{
		Limit: b.queuePerAgent, Budget: b.budget, Watchdog: b.writers,
		Length: s.queued, Expired: b.expired,
	})
	b.mu.Lock()
	if b.r.Closing() {
		b.mu.Unlock()
		s.out.Close()
		return nil, ErrShuttingDown
	}
	b.sessions[s] = struct{}{}
	b.mu.Unlock()
	b.metrics.Connections(1)
	if o.AgentID != "" {
		s.mu.Lock()
		e := s.bind(b.r.Resolve(s.speller, o.Dialect, o.AgentID), false)
		s.mu.Unlock()
		if e != nil {
			s.Detach()
			return nil, errors.New(e.Message)
		}
		s.connected()
	}
	return s, nil
}

// setCodec fixes the session's dialect; s.mu is held or s is not shared.
func (s *Session) setCodec(c dialects.Codec) {
	s.codec, s.dialect, s.speller = c, c.Name(), route.SpellerOf(c)
	s.gen = s.b.r.Rules().Gen
}

// currentCodec returns the session's codec, taking its dialect's codec
// from the rules in force when they were replaced since; s.mu is held.
func (s *Session) currentCodec() dialects.Codec {
	if s.codec == nil {
		return nil
	}
	if r := s.b.r.Rules(); r.Gen != s.gen {
		if c, ok := r.Registry.Lookup(s.dialect); ok {
			s.codec, s.speller = c, route.SpellerOf(c)
		}
		s.gen = r.Gen
	}
	return s.codec
}

// Transport names the session's transport.
func (s *Session) Transport() string { return s.link.Transport() }

// labels returns the id of the agent the session speaks for ("" while
// none) and its dialect.
func (s *Session) labels() (agent, dialect string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agent != nil {
		agent = s.agent.ID()
	}
	return agent, s.dialect
}

// Dialect returns the session's dialect, empty while it is not known.
func (s *Session) Dialect() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dialect
}

// AgentID returns the canonical id of the agent the session speaks for.
func (s *Session) AgentID() string {
	if a := s.Bound(); a != nil {
		return a.ID()
	}
	return ""
}

// bound returns the agent the session speaks for, nil if none yet.
func (s *Session) Bound() *agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent
}

// live returns the agent the session speaks for while it is attached:
// news from a session that was detached (a late answer read after its
// connection was lost) is no sign of life of its agent.
func (s *Session) live() *agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	return s.agent
}

// bind makes the session speak for the agent id (canonical), checking its
// token and dialect; s.mu is held. proven says a message proved it speaks
// for id (a token the Guard verified): then, as for a connection whose
// Identity is id, the agent's static token is not asked for. The caller
// announces the agent READY (connected) once s.mu is released: announcing
// locks other sessions. A non-ephemeral session also receives the agent's
// messages from now on, replacing an earlier connection of the agent.
func (s *Session) bind(id string, proven bool) *canonical.Error {
	b := s.b
	dialect := s.dialect
	if id == b.id {
		return &canonical.Error{Code: canonical.ErrUnauthorized, Message: fmt.Sprintf("%s is the bridge's own id; no agent may speak as it", id)}
	}
	if who := s.opts.identity(); who.Agent != "" && who.Agent != id {
		return &canonical.Error{Code: canonical.ErrUnauthorized,
			Message: fmt.Sprintf("this connection proved (%s) it speaks for %s; it may not speak as %s", who.By, who.Agent, id)}
	}
	proven = proven || s.opts.identity().Agent == id
	a, old, err := b.dir.Bind(id, endpoint(s), directory.BindOptions{Dialect: dialect, Token: s.opts.token(), Proven: proven, Ephemeral: s.opts.ephemeral, Now: time.Now()})
	if err != nil {
		return &canonical.Error{Code: canonical.ErrUnauthorized, Message: err.Error()}
	}
	s.agent = a
	switch {
	case s.opts.ephemeral:
	case old != nil && old != endpoint(s):
		b.log.Info("agent reconnected", "agent", id, "dialect", dialect, "transport", s.link.Transport(), "remote", s.opts.remote)
	default:
		b.log.Info("agent connected", "agent", id, "dialect", dialect, "transport", s.link.Transport(), "remote", s.opts.remote)
	}
	return nil
}

// connected announces the session's agent READY, when the session
// delivers for it.
func (s *Session) connected() {
	if a := s.Bound(); a != nil && !s.opts.ephemeral {
		s.b.dir.SetStatus(a, StatusReady, "connected")
	}
}

// Detach removes the connection, closed as it should be: its agent is
// STOPPED, requests waiting on it fail with an unavailable error, and its
// own requests are forgotten.
func (s *Session) Detach() { s.detach(StatusStopped, "disconnected") }

// Lost removes a connection that failed (dropped, the process died): as
// Detach, but its agent is UNAVAILABLE until it comes back.
func (s *Session) Lost(err error) { s.detach(StatusUnavailable, "connection lost: "+err.Error()) }

func (s *Session) detach(status Status, reason string) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	a := s.agent
	s.mu.Unlock()
	b := s.b
	b.mu.Lock()
	_, attached := b.sessions[s]
	delete(b.sessions, s)
	b.mu.Unlock()
	if attached {
		b.metrics.Connections(-1)
	}
	gone := a != nil && b.dir.Unbind(a, endpoint(s))
	if gone {
		b.log.Info("agent disconnected", "agent", a.ID(), "dialect", a.Dialect(), "transport", s.link.Transport())
		b.dir.SetStatus(a, status, reason)
	}
	b.pending.ForgetRequester(s)
	s.out.Close()
	if gone {
		for _, p := range b.pending.TakeReceiver(a) {
			b.r.Fail(p, canonical.ErrUnavailable, fmt.Sprintf("agent %s disconnected before answering", a.ID()))
		}
	}
}

// Receive handles one frame read from the connection. It takes ownership
// of frame. Whatever is wrong with it is answered to the sender in its own
// dialect; the session stays usable.
func (s *Session) Receive(frame []byte) Receipt {
	return s.receive(frame)
}

// ReceiveLast is Receive for a frame with nothing after it yet on the
// connection: what it causes is written to its receivers at once by the
// calling goroutine, where their links allow, rather than by their queues'
// writers. A transport whose reader would otherwise wait calls it.
func (s *Session) ReceiveLast(frame []byte) Receipt {
	s.last.Store(true)
	defer s.last.Store(false)
	return s.receive(frame)
}

func (s *Session) Prompt() bool { return s.last.Load() }

func (s *Session) receive(frame []byte) Receipt {
	b := s.b
	start := time.Now()
	if len(frame) > b.maxFrame {
		return s.Oversize(len(frame))
	}
	codec, cerr := s.dialectOf(frame)
	if cerr != nil {
		return s.refuseFrame(frame, nil, cerr)
	}
	env, e := read(codec, frame, b.decodeOnly)
	if e != nil {
		return s.refuseFrame(frame, env, e)
	}
	if env.Receiver.Kind == canonical.AddressAgent && strings.EqualFold(env.Receiver.ID, dialects.Unknown) {
		// An encoder's stand-in for a receiver its agent did not name.
		env.Receiver = canonical.Address{}
	}
	s.resolveIDs(codec.Name(), env)
	var proven string
	if g := b.guard; g != nil {
		var e *canonical.Error
		if proven, e = g.Admit(s, env); e != nil {
			return s.refuseFrame(frame, env, e)
		}
	}
	if e := s.claim(env, proven); e != nil {
		return s.refuseFrame(frame, env, e)
	}
	if env.Trace.TraceID == "" {
		env.Trace = s.opts.trace()
	}
	// The span slot is made only when spans are wanted: a local variable
	// whose address went into the event would cost every message an
	// allocation.
	var traced *func(*canonical.Error)
	if b.events.Wants(event.Spans) {
		s.traceParent(env)
		traced = new(func(*canonical.Error))
	}
	if a := s.live(); a != nil && !s.opts.ephemeral {
		b.dir.HeardFrom(a)
	}
	s.received(env, len(frame), frame, start, traced)
	r := b.r.Submit(s, env)
	if traced != nil && *traced != nil {
		(*traced)(r.Err)
	}
	s.handled(start, r)
	return r
}

// ReceiveEnvelope handles one message from the agent of a link of
// envelopes (AttachOptions.Envelopes), as Receive does a frame: it speaks
// for the session's agent, and its agent ids are canonical.
func (s *Session) ReceiveEnvelope(env *canonical.Envelope) Receipt {
	b := s.b
	start := time.Now()
	env.Origin = canonical.Origin{}
	if e := s.claim(env, ""); e != nil {
		return s.Refuse(env, e)
	}
	if env.Trace.TraceID == "" {
		env.Trace = s.opts.trace()
	}
	if a := s.live(); a != nil {
		b.dir.HeardFrom(a)
	}
	s.received(env, 0, nil, start, nil)
	r := b.r.Submit(s, env)
	s.handled(start, r)
	return r
}

// resolveIDs writes the canonical ids of the agents env names, as the
// dialect spells them: the mapping files' aliases, and the dialect's own
// spelling (bluelabel's upper case) when that names one agent. From here
// on, the bridge knows agents by their canonical ids only.
func (s *Session) resolveIDs(dialect string, env *canonical.Envelope) {
	s.mu.Lock()
	spell := s.speller
	s.mu.Unlock()
	if env.Sender.ID != "" {
		env.Sender.ID = s.b.r.Resolve(spell, dialect, env.Sender.ID)
	}
	if env.Receiver.Kind == canonical.AddressAgent && env.Receiver.ID != "" {
		env.Receiver.ID = s.b.r.Resolve(spell, dialect, env.Receiver.ID)
	}
}

// read decodes frame with codec and, unless decodeOnly,
// validates it. A frame that fails both is refused for the decoder's error
// (with undecoded's envelope to answer), one that only fails validation
// for its problems, with its envelope. A frame that validates is JSON in
// UTF-8 (Validate checks that first), and is decoded without checking or,
// where the codec can, parsing it again (dialects.ValidateDecode).
func read(codec dialects.Codec, frame []byte, decodeOnly bool) (*canonical.Envelope, *canonical.Error) {
	var problems []dialects.Problem
	var env *canonical.Envelope
	var err error
	if !decodeOnly {
		problems, env, err = dialects.ValidateDecode(codec, frame)
	}
	if decodeOnly || len(problems) > 0 {
		env, err = codec.Decode(frame)
	}
	if err != nil {
		return dialects.Undecoded(codec, frame), &canonical.Error{Code: canonical.ErrInvalidMessage, Message: err.Error()}
	}
	if len(problems) > 0 {
		return env, &canonical.Error{Code: canonical.ErrInvalidMessage, Message: (&dialects.Problems{Dialect: codec.Name(), List: problems}).Error()}
	}
	return env, nil
}

// Oversize answers a frame of size bytes that exceeds the limit; transports
// that stop reading at the limit call it instead of Receive.
func (s *Session) Oversize(size int) Receipt {
	return s.Refuse(nil, &canonical.Error{Code: canonical.ErrTooLarge,
		Message: fmt.Sprintf("%s: message of %d bytes exceeds the limit of %d bytes", s.dialectName(), size, s.b.maxFrame)})
}

func (s *Session) dialectName() string {
	if d := s.Dialect(); d != "" {
		return d
	}
	return "auto"
}

// dialectOf returns the session's codec, detecting it from frame on a
// connection that did not say.
func (s *Session) dialectOf(frame []byte) (dialects.Codec, *canonical.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.currentCodec(); c != nil {
		return c, nil
	}
	c, err := s.b.Registry().Detect(frame)
	if err != nil {
		return nil, &canonical.Error{Code: canonical.ErrInvalidMessage, Message: err.Error()}
	}
	s.setCodec(c)
	return c, nil
}

// claim checks that env's sender, a canonical id, is the session's agent,
// binding an unbound session to it. A message without a sender speaks for
// the bound agent, or for the agent the connection proved it is; a
// capability declaration without one (fuse's declaration document) needs
// the session bound, since it declares its sender. proven is the agent id
// the message proved it speaks for, "" if none.
func (s *Session) claim(env *canonical.Envelope, proven string) *canonical.Error {
	s.mu.Lock()
	a, dialect := s.agent, s.dialect
	s.mu.Unlock()
	if env.Sender.ID == "" && a == nil && s.opts.identity().Agent != "" {
		// A message naming no sender (an a2a frame names none) on a
		// connection that proved its agent speaks for that agent.
		env.Sender.ID = s.opts.identity().Agent
	}
	if env.Sender.ID == "" {
		switch {
		case a != nil:
			env.Sender.ID = a.ID()
		case env.Act == canonical.ActInformCapabilities:
			return &canonical.Error{Code: canonical.ErrUnauthorized, Message: dialect +
				": a capability declaration declares the agent that sends it, and this connection has named none: connect as the agent (?agent=ID) or name the sender in the declaration"}
		}
		return nil
	}
	id := env.Sender.ID
	if a != nil {
		if a.ID() != id {
			return spoofed(a.ID(), id)
		}
		return nil
	}
	s.mu.Lock()
	if s.agent != nil { // bound meanwhile by another frame
		bound := s.agent.ID()
		s.mu.Unlock()
		if bound != id {
			return spoofed(bound, id)
		}
		return nil
	}
	e := s.bind(id, proven == id)
	s.mu.Unlock()
	if e == nil {
		s.connected()
	}
	return e
}

func spoofed(bound, claimed string) *canonical.Error {
	return &canonical.Error{Code: canonical.ErrUnauthorized,
		Message: fmt.Sprintf("this connection speaks for %s; it may not send as %s", bound, claimed)}
}

// envelopePool holds the envelopes deliver copies a message into to
// translate it.
var envelopePool = sync.Pool{New: func() any { return new(canonical.Envelope) }}

// deliver encodes o's message in the session's dialect and queues it.
func (s *Session) Deliver(o *route.Outgoing) (*delivery.Outbound, *canonical.Error) {
	b := s.b
	s.mu.Lock()
	codec, dialect, a := s.currentCodec(), s.dialect, s.agent
	s.mu.Unlock()
	// The mappings edit the envelope they translate: each receiver gets a
	// copy, from a pool when the copy is done with once encoded.
	var env *canonical.Envelope
	var out delivery.Outbound
	var losses []dialects.Loss
	if s.opts.envelopes {
		c := *o.Env
		env = &c
		out.Env = env
	} else {
		env = envelopePool.Get().(*canonical.Envelope)
		*env = *o.Env
		defer func() {
			*env = canonical.Envelope{}
			envelopePool.Put(env)
		}()
	}
	var traced func(error)
	spans := b.events.Wants(event.Spans)
	if spans {
		slot := new(func(error)) // not &traced: see receive
		b.events.Emit(event.Event{Kind: event.Delivering, Env: env, Source: o.Env, From: o.From, Agent: idOf(a), Dialect: dialect,
			Span: &event.Span{Trace: &env.Trace, EndDelivery: slot}})
		traced = *slot
	}
	var encoding time.Duration
	if !s.opts.envelopes {
		if g := b.guard; g != nil && a != nil {
			if c := g.Stamp(codec.Name(), env.Sender.ID, a.ID()); c != "" {
				env.Authentication = c
			}
		}
		var began time.Time
		if spans {
			began = time.Now()
		}
		ctx := encodeContexts.Get().(*dialects.EncodeContext)
		defer putEncodeContext(ctx)
		res, err := b.r.Rules().Translator.Encode(make([]byte, 0, encodedSize(env)), o.From, codec.Name(), env,
			translate.Options{CanonicalIDs: true, Context: ctx})
		if spans {
			encoding = time.Since(began)
		}
		if err != nil {
			if spans {
				b.events.Emit(event.Event{Kind: event.Failed, Env: env, Source: o.Env, From: o.From, Reason: err, Duration: encoding,
					Agent: idOf(a), Dialect: dialect, Transport: s.link.Transport(), Span: &event.Span{Trace: &env.Trace}})
			}
			if traced != nil {
				traced(err)
			}
			return nil, &canonical.Error{Code: canonical.ErrRejected, Message: err.Error()}
		}
		if res.Dropped {
			if traced != nil {
				traced(nil)
			}
			if b.events.Active() {
				b.events.Emit(event.Event{Kind: event.Dropped, Env: env, Source: o.Env, Losses: res.Losses, Report: s.report(res.Losses),
					ByBridge: o.ByBridge, Agent: idOf(a), Dialect: dialect, Transport: s.link.Transport()})
			}
			return nil, nil
		}
		out.Frame, losses = res.Output, res.Losses
	}
	out.Act, out.Final, out.Trace, out.ByBridge = env.Act, o.Final, env.Trace, o.ByBridge
	q := &queued{
		Item: delivery.Item{
			Out:     out,
			Level:   delivery.LevelOf(env.Priority),
			Expires: expiryOf(env),
			Force:   o.Answer,
			Prompt:  o.Prompt,
		},
		failure: o.Failure,
		then:    o.Sent,
		traced:  traced,
	}
	it := &q.Item
	it.Notify = q
	if env.Error != nil {
		it.Out.Code = env.Error.Code
	}
	if q.failure == nil {
		q.failure = b.r.Unsent("message", s, o.Env)
	}
	if o.Answer && it.Level < o.AtLeast {
		b.r.Boost(it, o.AtLeast, o.Env)
	}
	seq := s.queuedEvents(o, env, a, dialect, losses, q, encoding, spans)
	if err := s.out.Put(it); err != nil {
		if traced != nil {
			traced(err)
		}
		if seq != 0 && b.events.Wants(event.Failures) {
			b.events.Emit(event.Event{Kind: event.Failed, Seq: seq, Note: event.NoteOf(o.Env), Reason: err, Agent: idOf(a), Dialect: dialect, Transport: s.link.Transport()})
		}
		return nil, s.queueRefusal(err, o.Env)
	}
	return &it.Out, nil
}

// queued is a message queued for a session: its item, and what the item
// tells once it is sent or has failed (delivery.Notifier), one object
// rather than an item and a closure for each thing it tells.
type queued struct {
	delivery.Item
	// traced, if set, ends the message's delivery span.
	traced func(error)
	// seq is the message's event.Seq, 0 when no events tell of it; the
	// rest are what its events say (queuedEvents). failures has its
	// failure told as an event.
	seq                    uint64
	failures               bool
	b                      *Bridge
	note                   event.Note
	to, dialect, transport string
	// then and failure are the sender's handlers (route.Outgoing's Sent
	// and Failure; the log's when it has none).
	then    func()
	failure route.Failure
}

// Sent ends the message's span, tells that it was delivered and tells
// the sender.
func (q *queued) Sent(*delivery.Item) {
	if q.traced != nil {
		q.traced(nil)
	}
	if q.seq != 0 {
		q.b.events.Emit(event.Event{Kind: event.Delivered, Seq: q.seq, Note: q.note, Frame: q.Out.Frame, ByBridge: q.Out.ByBridge,
			Agent: q.to, Dialect: q.dialect, Transport: q.transport})
	}
	if q.then != nil {
		q.then()
	}
}

// Failed ends the message's span with reason, tells that it failed and
// tells the sender.
func (q *queued) Failed(_ *delivery.Item, reason error) {
	if q.traced != nil {
		q.traced(reason)
	}
	if q.seq != 0 && q.failures {
		q.b.events.Emit(event.Event{Kind: event.Failed, Seq: q.seq, Note: q.note, Reason: reason, Agent: q.to, Dialect: q.dialect, Transport: q.transport})
	}
	q.failure.Unsent(reason)
}

// queuedEvents tells of o's message translated for the session as env
// (the agent a of dialect), with the losses of its translation and, when
// spans are wanted, the time its encoding took, and has q, the item it is
// queued as, tell of its delivery or failure. It returns the message's
// event.Seq, 0 when nobody listens.
func (s *Session) queuedEvents(o *route.Outgoing, env *canonical.Envelope, a *agent, dialect string, losses []dialects.Loss, q *queued, encoding time.Duration, spans bool) uint64 {
	b := s.b
	if !b.events.Active() {
		return 0
	}
	seq := b.events.NextSeq()
	to, transport := idOf(a), s.link.Transport()
	e := event.Event{Kind: event.Translated, Seq: seq, Env: env, Source: o.Env, From: o.From, Losses: losses, Report: s.report(losses),
		Frame: q.Out.Frame, ByBridge: o.ByBridge, Agent: to, Dialect: dialect, Transport: transport}
	if spans {
		e.Duration, e.Span = encoding, &event.Span{Trace: &env.Trace}
	}
	b.events.Emit(e)
	q.seq, q.failures, q.b = seq, b.events.Wants(event.Failures), b
	q.note, q.to, q.dialect, q.transport = event.NoteOf(o.Env), to, dialect, transport
	return seq
}

// queueRefusal is the error for the sender of env when the session
// could not queue it: a full queue is retryable.
func (s *Session) queueRefusal(err error, env *canonical.Envelope) *canonical.Error {
	b, to := s.b, s
	id := env.Receiver.ID
	if a := to.AgentID(); a != "" {
		id = a
	}
	e := &canonical.Error{Code: canonical.ErrUnavailable, Message: fmt.Sprintf("%s cannot take it now: %v", id, err)}
	if errors.Is(err, delivery.ErrQueueFull) {
		b.queueTable.Dropped(1)
		yes := true
		e.Retryable = &yes
		e.Message = fmt.Sprintf("%s's queue is full (%d messages); retry later", id, to.out.Limit())
	}
	return e
}

// encodeContexts are the contexts of Deliver's encodings, for the next:
// what an encoding lost is read only while its events are handled.
var encodeContexts = sync.Pool{New: func() any { return new(dialects.EncodeContext) }}

// putEncodeContext gives ctx back to encodeContexts, with room for losses
// but none of the last encoding's.
func putEncodeContext(ctx *dialects.EncodeContext) {
	clear(ctx.Losses)
	*ctx = dialects.EncodeContext{Losses: ctx.Losses[:0]}
	encodeContexts.Put(ctx)
}

// encodedSize is room enough for env in most dialects, so that encoding
// seldom grows its buffer: its raw payload fields, and 512 bytes for the
// rest.
func encodedSize(env *canonical.Envelope) int {
	n := 512
	for _, f := range [...]canonical.JSON{env.Arguments, env.Result, env.Context, env.Metadata, env.Inputs, env.Authentication, env.Extensions} {
		n += len(f)
	}
	return n
}

// expiryOf returns when env stops being worth delivering: its ttl from
// now, else its deadline; zero when it has neither.
func expiryOf(env *canonical.Envelope) time.Time {
	if env.TTL.Set && env.TTL.D > 0 {
		// The clock is read only for a ttl: most messages have none.
		return time.Now().Add(env.TTL.D)
	}
	if t, ok := env.Deadline.Parse(); ok {
		return t
	}
	return time.Time{}
}

// queued records the length of the session's outbound queue under its
// agent's id.
func (s *Session) queued(n int) {
	if s.opts.ephemeral {
		return
	}
	if g := s.queueGauge(); g != nil {
		g.Set(n)
	}
}

// queueGauge is a session's queue length gauge, looked up once for the
// agent it speaks for.
type queueGauge struct {
	agent string
	g     *metrics.QueueGauge
}

// queueGauge returns the gauge of s's queue, nil until s speaks for an
// agent.
func (s *Session) queueGauge() *metrics.QueueGauge {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agent == nil {
		return nil
	}
	if q := &s.gauge; q.g == nil || q.agent != s.agent.ID() {
		q.agent, q.g = s.agent.ID(), s.b.metrics.Queue(s.agent.ID())
	}
	return s.gauge.g
}

// KeepsAnswers reports whether the answers to the session's requests are
// delivered to it (route.Ephemeral): always, but for an ephemeral session
// (an HTTP request) whose agent has a connection of its own, unless it
// was attached to keep them.
func (s *Session) KeepsAnswers() bool { return !s.opts.ephemeral || s.opts.keepAnswers }

// Cancel tells the session's agent to stop work on the request that went
// out under token, where its link can (route.Canceller).
func (s *Session) Cancel(token string) {
	if c, ok := s.link.(Canceller); ok {
		c.Cancel(token)
	}
}

// Resend queues out, a frame already encoded for the session (the answer
// kept for a request sent again), past its queue's bound
// (route.Resender).
func (s *Session) Resend(out Outbound, failed func(error)) error {
	return s.out.Put(&delivery.Item{Out: out, Level: delivery.NormalLevel, Force: true, Failed: failed})
}

var (
	_ route.Endpoint  = (*Session)(nil)
	_ route.Ephemeral = (*Session)(nil)
	_ route.Canceller = (*Session)(nil)
	_ route.Resender  = (*Session)(nil)
)
