package bridge

import (
	"fmt"
	"sort"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// The operations the bridge itself serves, as any dialect names them (fuse
// under the capability "events").
const (
	opSubscribe   = "subscribe"
	opUnsubscribe = "unsubscribe"
	eventsCap     = "events"
)

// control does what a message asks of the bridge rather than of an agent:
// capability declarations, capability queries (the bridge answers for the
// agents behind it, as swarm's handshake wants) and topic subscriptions. It
// reports whether the message was the bridge's.
func (b *Bridge) control(s *Session, env *canonical.Envelope, from string) (Receipt, bool) {
	toBridge := env.Receiver.Kind == canonical.AddressNone ||
		(env.Receiver.Kind == canonical.AddressAgent && b.canonicalID(from, env.Receiver.ID) == b.id)
	switch env.Act {
	case canonical.ActInformCapabilities:
		// A declaration teaches the bridge whoever it is addressed to; one
		// for the bridge, or for no agent it knows, ends here.
		b.learn(s, env.Capabilities)
		if !toBridge && env.Receiver.Kind == canonical.AddressAgent {
			if _, known := b.lookup(b.canonicalID(from, env.Receiver.ID)); known {
				return Receipt{}, false
			}
		}
		if b.declarationIsRequest(from) {
			b.answerSender(s, env, from, &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: `{"registered":true}`})
		}
		return Receipt{}, true
	case canonical.ActQueryCapabilities:
		b.learn(s, env.Capabilities)
		return b.describe(s, env, from, toBridge), true
	case canonical.ActRequest:
		if !toBridge {
			return Receipt{}, false
		}
		switch env.Operation {
		case canonical.Operation{Name: opSubscribe}, canonical.Operation{Capability: eventsCap, Name: opSubscribe}:
			return b.subscribe(s, env, from, true), true
		case canonical.Operation{Name: opUnsubscribe}, canonical.Operation{Capability: eventsCap, Name: opUnsubscribe}:
			return b.subscribe(s, env, from, false), true
		}
		if env.Receiver.Kind == canonical.AddressAgent {
			return s.refuse(env, &canonical.Error{Code: canonical.ErrNotFound,
				Message: fmt.Sprintf("the bridge serves %s and %s, not %q", opSubscribe, opUnsubscribe, opName(from, env.Operation))}), true
		}
	}
	return Receipt{}, false
}

// declarationIsRequest reports whether dialect declares capabilities with
// its request word (collab's registry.register), so a declaration expects
// an answer.
func (b *Bridge) declarationIsRequest(dialect string) bool {
	t := b.maps.Vocabulary(dialect).Table(canonical.KindAct)
	w, _, ok := t.Word(string(canonical.ActInformCapabilities))
	r, _, rok := t.Word(string(canonical.ActRequest))
	return ok && rok && w == r
}

// learn records the capabilities a session's agent declared.
func (b *Bridge) learn(s *Session, caps *canonical.Capabilities) {
	if caps == nil {
		return
	}
	s.mu.Lock()
	a := s.agent
	s.mu.Unlock()
	if a == nil {
		return
	}
	b.mu.Lock()
	a.tools = append([]canonical.Tool(nil), caps.Tools...)
	for _, t := range caps.Topics {
		a.topics[t] = true
	}
	b.mu.Unlock()
	b.log.Info("capabilities declared", "agent", a.id, "tools", len(caps.Tools))
}

// describe answers a capability query: the named agent's capabilities, or
// for a query to the bridge those of every other agent.
func (b *Bridge) describe(s *Session, env *canonical.Envelope, from string, toBridge bool) Receipt {
	caps := &canonical.Capabilities{}
	sender := b.id
	b.mu.RLock()
	if toBridge {
		ids := make([]string, 0, len(b.agents))
		for id, a := range b.agents {
			if a.session != nil && a.session != s {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			caps.Tools = append(caps.Tools, b.agents[id].tools...)
		}
	} else {
		a := b.agents[b.canonicalID(from, env.Receiver.ID)]
		if a == nil {
			b.mu.RUnlock()
			return s.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no agent %q is known to the bridge", env.Receiver.ID)})
		}
		sender = a.id
		caps.Tools = append(caps.Tools, a.tools...)
	}
	b.mu.RUnlock()
	b.answerSender(s, env, from, &canonical.Envelope{
		Act: canonical.ActInformCapabilities, Outcome: canonical.OutcomeSuccess,
		Sender: canonical.Party{ID: sender}, Capabilities: caps,
	})
	return Receipt{}
}

// subscribe adds (or removes) the session's agent to a topic.
func (b *Bridge) subscribe(s *Session, env *canonical.Envelope, from string, on bool) Receipt {
	args := gjson.Parse(string(env.Arguments))
	topic := args.Get("topic").String()
	for _, k := range []string{"eventType", "event_type"} {
		if topic == "" {
			topic = args.Get(k).String()
		}
	}
	s.mu.Lock()
	a := s.agent
	s.mu.Unlock()
	switch {
	case topic == "":
		return s.refuse(env, &canonical.Error{Code: canonical.ErrInvalidArguments, Message: from + ": " + opName(from, env.Operation) + " needs an argument topic"})
	case a == nil:
		return s.refuse(env, &canonical.Error{Code: canonical.ErrUnauthorized, Message: "only an agent that named itself can subscribe"})
	}
	b.mu.Lock()
	if on {
		a.topics[topic] = true
	} else {
		delete(a.topics, topic)
	}
	b.mu.Unlock()
	var w jsonw.Writer
	w.Open()
	w.Key(map[bool]string{true: "subscribed", false: "unsubscribed"}[on])
	w.String(topic)
	w.Close()
	b.answerSender(s, env, from, &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: canonical.JSON(w.Buf)})
	return Receipt{}
}

// answerSender sends reply, made by the bridge, to the sender of env.
func (b *Bridge) answerSender(s *Session, env *canonical.Envelope, from string, reply *canonical.Envelope) {
	if reply.Sender.ID == "" {
		reply.Sender.ID = b.id
	}
	reply.InReplyTo = firstOf(env.ReplyWith, env.ID, env.TaskID, env.CorrelationID)
	reply.CorrelationID = env.CorrelationID
	reply.TaskID = env.TaskID
	reply.Trace = env.Trace
	if env.Sender.ID != "" {
		reply.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: b.canonicalID(from, env.Sender.ID)}
	}
	if err := b.send("", reply, s, true, b.unsent("bridge answer", s, reply)); err != nil {
		b.log.Warn("bridge answer not delivered", "dialect", from, "act", reply.Act, "error", err.Message)
	}
}
