package bridge

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// Session is one attached connection: the transport hands it every frame
// it reads, and the bridge delivers through its Link.
type Session struct {
	b    *Bridge
	link Link
	opts AttachOptions

	mu     sync.Mutex
	codec  dialects.Codec // nil until the dialect is known
	agent  *agent         // the agent it speaks for; nil until bound
	closed bool
	logs   sessionLogs
	queue  queueGauge
	out    *outbox // what the bridge sends it, waiting for its link
}

// Receipt says what became of one received frame.
type Receipt struct {
	// Awaiting is set when the frame was a request whose answer will be
	// delivered to this session.
	Awaiting bool
	// Err is the problem the sender was answered with, if any.
	Err *canonical.Error
}

// ErrUnknownDialect is returned by Attach for a dialect the bridge lacks.
var ErrUnknownDialect = errors.New("unknown dialect")

// Attach adds a connection. An agent id in o binds it at once; a bad token
// or a dialect other than the agent's is refused.
func (b *Bridge) Attach(l Link, o AttachOptions) (*Session, error) {
	s := &Session{b: b, link: l, opts: o}
	if o.Dialect != "" {
		c, ok := b.reg.Lookup(o.Dialect)
		if !ok {
			return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownDialect, o.Dialect, b.reg.Names())
		}
		s.codec = c
	}
	if o.AgentID != "" && s.codec == nil {
		return nil, errors.New("bridge: an agent bound at connect needs its dialect")
	}
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		return nil, ErrShuttingDown
	}
	b.sessions[s] = struct{}{}
	b.mu.Unlock()
	b.metrics.connections.Inc()
	s.out = newOutbox(b, s)
	if o.AgentID != "" {
		s.mu.Lock()
		e := s.bind(o.AgentID)
		s.mu.Unlock()
		if e != nil {
			s.Detach()
			return nil, errors.New(e.Message)
		}
		s.connected()
	}
	return s, nil
}

// Dialect returns the session's dialect, empty while it is not known.
func (s *Session) Dialect() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.codec == nil {
		return ""
	}
	return s.codec.Name()
}

// AgentID returns the canonical id of the agent the session speaks for.
func (s *Session) AgentID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agent == nil {
		return ""
	}
	return s.agent.id
}

// bind makes the session speak for the agent id (canonical), checking its
// token and dialect; s.mu is held. The caller announces the agent READY
// (connected) once s.mu is released: announcing locks other sessions. A non-ephemeral session also receives the agent's
// messages from now on, replacing an earlier connection of the agent.
func (s *Session) bind(id string) *canonical.Error {
	b := s.b
	dialect := s.codec.Name()
	b.mu.Lock()
	a := b.agents[id]
	switch {
	case a != nil && a.token != "" && a.token != s.opts.Token:
		b.mu.Unlock()
		return &canonical.Error{Code: canonical.ErrUnauthorized, Message: fmt.Sprintf("agent %s needs its token to connect", id)}
	case a != nil && a.declared && a.dialect != dialect:
		b.mu.Unlock()
		return &canonical.Error{Code: canonical.ErrUnauthorized, Message: fmt.Sprintf("agent %s speaks %s, not %s", id, a.dialect, dialect)}
	}
	a = b.agentLocked(id, dialect)
	a.dialect = dialect
	var old *Session
	if !s.opts.Ephemeral {
		old = a.session
		a.session = s
		a.transport = s.link.Transport()
		a.timeouts, a.missed = 0, 0
	}
	b.mu.Unlock()
	s.agent = a
	if old != nil && old != s {
		b.log.Info("agent reconnected", "agent", id, "dialect", dialect, "transport", s.link.Transport(), "remote", s.opts.Remote)
	} else if !s.opts.Ephemeral {
		b.log.Info("agent connected", "agent", id, "dialect", dialect, "transport", s.link.Transport(), "remote", s.opts.Remote)
	}
	return nil
}

// connected announces the session's agent READY, when the session
// delivers for it.
func (s *Session) connected() {
	if a := s.bound(); a != nil && !s.opts.Ephemeral {
		s.b.setStatus(a, StatusReady, "connected")
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
	gone := false
	b.mu.Lock()
	_, attached := b.sessions[s]
	delete(b.sessions, s)
	if a != nil && a.session == s {
		a.session = nil
		gone = true
	}
	b.mu.Unlock()
	if attached {
		b.metrics.connections.Dec()
	}
	if gone {
		b.log.Info("agent disconnected", "agent", a.id, "dialect", a.dialect, "transport", s.link.Transport())
		b.setStatus(a, status, reason)
	}
	b.pending.forgetRequester(s)
	s.out.close()
	if gone {
		for _, p := range b.pending.takeReceiver(a) {
			b.fail(p, canonical.ErrUnavailable, fmt.Sprintf("agent %s disconnected before answering", a.id))
		}
	}
}

// Receive handles one frame read from the connection. It takes ownership
// of frame. Whatever is wrong with it is answered to the sender in its own
// dialect; the session stays usable.
func (s *Session) Receive(frame []byte) Receipt {
	b := s.b
	start := time.Now()
	if len(frame) > b.maxFrame {
		return s.Oversize(len(frame))
	}
	codec, cerr := s.dialectOf(frame)
	if cerr != nil {
		return s.refuse(nil, cerr)
	}
	env, err := codec.Decode(frame)
	if err != nil {
		return s.refuse(nil, &canonical.Error{Code: canonical.ErrInvalidMessage, Message: err.Error()})
	}
	if problems := b.validate(codec, frame); len(problems) > 0 {
		return s.refuse(env, &canonical.Error{Code: canonical.ErrInvalidMessage, Message: (&dialects.Problems{Dialect: codec.Name(), List: problems}).Error()})
	}
	if env.Receiver.Kind == canonical.AddressAgent && strings.EqualFold(env.Receiver.ID, dialects.Unknown) {
		// An encoder's stand-in for a receiver its agent did not name.
		env.Receiver = canonical.Address{}
	}
	if e := s.claim(env); e != nil {
		return s.refuse(env, e)
	}
	if env.Trace.TraceID == "" {
		env.Trace = s.opts.Trace
	}
	if a := s.bound(); a != nil && !s.opts.Ephemeral {
		b.heardFrom(a)
	}
	b.received(s, env, frame)
	var first *seen
	if b.dedupe != nil && !b.answersOpenRequest(s, env) {
		if key := dedupeKey(s.AgentID(), env); key != "" && s.AgentID() != "" {
			var dup bool
			if first, dup = b.dedupe.check(key, time.Now()); dup {
				return b.duplicate(s, env, first)
			}
		}
	}
	r := b.dispatch(s, env, first)
	b.metrics.handled(time.Since(start))
	return r
}

// validate checks frame against its dialect's schema and rules, unless the
// bridge trusts the decoder alone.
func (b *Bridge) validate(codec dialects.Codec, frame []byte) []dialects.Problem {
	if b.decodeOnly {
		return nil
	}
	return codec.Validate(frame)
}

// answersOpenRequest reports whether env answers a request still waiting:
// such an answer is needed, even when it repeats an earlier one (an agent
// answering a retry as it answered the first attempt).
func (b *Bridge) answersOpenRequest(s *Session, env *canonical.Envelope) bool {
	a := s.bound()
	return a != nil && (env.Act.IsReply() || env.Act == canonical.ActNeedsInput) && b.pending.match(a, env, false) != nil
}

// bound returns the agent the session speaks for, nil if none yet.
func (s *Session) bound() *agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent
}

// Oversize answers a frame of size bytes that exceeds the limit; transports
// that stop reading at the limit call it instead of Receive.
func (s *Session) Oversize(size int) Receipt {
	return s.refuse(nil, &canonical.Error{Code: canonical.ErrTooLarge,
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
	if s.codec != nil {
		return s.codec, nil
	}
	c, err := s.b.reg.Detect(frame)
	if err != nil {
		return nil, &canonical.Error{Code: canonical.ErrInvalidMessage, Message: err.Error()}
	}
	s.codec = c
	return c, nil
}

// claim checks that env's sender is the session's agent, binding an
// unbound session to it. A message without a sender speaks for the bound
// agent; a capability declaration without one (fuse's declaration
// document) needs the session bound, since it declares its sender.
func (s *Session) claim(env *canonical.Envelope) *canonical.Error {
	s.mu.Lock()
	a, dialect := s.agent, s.codec.Name()
	s.mu.Unlock()
	if env.Sender.ID == "" {
		switch {
		case a != nil:
			env.Sender.ID = s.b.spell(dialect, a.id)
		case env.Act == canonical.ActInformCapabilities:
			return &canonical.Error{Code: canonical.ErrUnauthorized, Message: dialect +
				": a capability declaration declares the agent that sends it, and this connection has named none: connect as the agent (?agent=ID) or name the sender in the declaration"}
		}
		return nil
	}
	id := s.b.canonicalID(dialect, env.Sender.ID)
	if a != nil {
		if a.id != id {
			return &canonical.Error{Code: canonical.ErrUnauthorized,
				Message: fmt.Sprintf("this connection speaks for %s; it may not send as %s", a.id, env.Sender.ID)}
		}
		return nil
	}
	s.mu.Lock()
	if s.agent != nil { // bound meanwhile by another frame
		bound := s.agent.id
		s.mu.Unlock()
		if bound != id {
			return &canonical.Error{Code: canonical.ErrUnauthorized,
				Message: fmt.Sprintf("this connection speaks for %s; it may not send as %s", bound, env.Sender.ID)}
		}
		return nil
	}
	e := s.bind(id)
	s.mu.Unlock()
	if e == nil {
		s.connected()
	}
	return e
}

// canonicalID returns the registry id of an agent dialect names id.
func (b *Bridge) canonicalID(dialect, id string) string {
	if c, ok := b.maps.Unalias(dialect, id); ok {
		return c
	}
	return id
}

// spell returns how dialect names the agent whose registry id is id.
func (b *Bridge) spell(dialect, id string) string {
	if a, ok := b.maps.Alias(dialect, id); ok {
		return a
	}
	return id
}
