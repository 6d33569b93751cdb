package bridge

import (
	"fmt"

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
func (b *Bridge) control(ep endpoint, env *canonical.Envelope) (Receipt, bool) {
	toBridge := env.Receiver.Kind == canonical.AddressNone ||
		(env.Receiver.Kind == canonical.AddressAgent && env.Receiver.ID == b.id)
	from := env.Origin.Dialect
	switch env.Act {
	case canonical.ActInformCapabilities:
		// A declaration teaches the bridge whoever it is addressed to; one
		// for the bridge, or for no agent it knows, ends here.
		b.learn(ep, env.Capabilities)
		if !toBridge && env.Receiver.Kind == canonical.AddressAgent {
			if _, _, known := b.dir.Lookup(env.Receiver.ID); known {
				return Receipt{}, false
			}
		}
		if b.declarationIsRequest(from) {
			b.answerSender(ep, env, &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: `{"registered":true}`})
		}
		return Receipt{}, true
	case canonical.ActQueryCapabilities:
		b.learn(ep, env.Capabilities)
		return b.describe(ep, env, toBridge), true
	case canonical.ActRequest:
		if !toBridge {
			return Receipt{}, false
		}
		switch env.Operation {
		case canonical.Operation{Name: opSubscribe}, canonical.Operation{Capability: eventsCap, Name: opSubscribe}:
			return b.subscribe(ep, env, true), true
		case canonical.Operation{Name: opUnsubscribe}, canonical.Operation{Capability: eventsCap, Name: opUnsubscribe}:
			return b.subscribe(ep, env, false), true
		}
		if env.Receiver.Kind == canonical.AddressAgent {
			return ep.refuse(env, &canonical.Error{Code: canonical.ErrNotFound,
				Message: fmt.Sprintf("the bridge serves %s and %s, not %q", opSubscribe, opUnsubscribe, opName(env.Operation))}), true
		}
	}
	return Receipt{}, false
}

// declarationIsRequest reports whether dialect declares capabilities with
// its request word (collab's registry.register), so a declaration expects
// an answer.
func (b *Bridge) declarationIsRequest(dialect string) bool {
	t := b.mapping().Vocabulary(dialect).Table(canonical.KindAct)
	w, _, ok := t.Word(string(canonical.ActInformCapabilities))
	r, _, rok := t.Word(string(canonical.ActRequest))
	return ok && rok && w == r
}

// learn records the capabilities the agent of ep declared.
func (b *Bridge) learn(ep endpoint, caps *canonical.Capabilities) {
	if caps == nil {
		return
	}
	a := ep.bound()
	if a == nil {
		return
	}
	b.dir.Learn(a, caps)
	b.log.Info("capabilities declared", "agent", a.ID(), "tools", len(caps.Tools))
}

// describe answers a capability query: the named agent's capabilities, or
// for a query to the bridge those of every other connected agent.
func (b *Bridge) describe(ep endpoint, env *canonical.Envelope, toBridge bool) Receipt {
	caps := &canonical.Capabilities{}
	sender := b.id
	if toBridge {
		for _, t := range b.dir.Connected(ep, nil) {
			caps.Tools = append(caps.Tools, b.dir.ToolsOf(t.Agent)...)
		}
	} else {
		a, _, ok := b.dir.Lookup(env.Receiver.ID)
		if !ok {
			return ep.refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no agent %q is known to the bridge", env.Receiver.ID)})
		}
		sender = a.ID()
		caps.Tools = b.dir.ToolsOf(a)
	}
	b.answerSender(ep, env, &canonical.Envelope{
		Act: canonical.ActInformCapabilities, Outcome: canonical.OutcomeSuccess,
		Sender: canonical.Party{ID: sender}, Capabilities: caps,
	})
	return Receipt{}
}

// subscribe adds (or removes) the agent of ep to a topic.
func (b *Bridge) subscribe(ep endpoint, env *canonical.Envelope, on bool) Receipt {
	from := env.Origin.Dialect
	args := gjson.Parse(string(env.Arguments))
	topic := args.Get("topic").String()
	for _, k := range []string{"eventType", "event_type"} {
		if topic == "" {
			topic = args.Get(k).String()
		}
	}
	a := ep.bound()
	switch {
	case topic == "":
		return ep.refuse(env, &canonical.Error{Code: canonical.ErrInvalidArguments, Message: from + ": " + opName(env.Operation) + " needs an argument topic"})
	case a == nil:
		return ep.refuse(env, &canonical.Error{Code: canonical.ErrUnauthorized, Message: "only an agent that named itself can subscribe"})
	}
	b.dir.Subscribe(a, topic, on)
	var w jsonw.Writer
	w.Open()
	w.Key(map[bool]string{true: "subscribed", false: "unsubscribed"}[on])
	w.String(topic)
	w.Close()
	b.answerSender(ep, env, &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: canonical.JSON(w.Buf)})
	return Receipt{}
}

// answerSender sends reply, made by the bridge, to the sender of env.
func (b *Bridge) answerSender(ep endpoint, env *canonical.Envelope, reply *canonical.Envelope) {
	if reply.Sender.ID == "" {
		reply.Sender.ID = b.id
	}
	correlate(reply, env)
	if _, err := ep.deliver(&outgoing{env: reply, final: true, byBridge: true, failed: b.unsent("bridge answer", ep, reply)}); err != nil {
		b.log.Warn("bridge answer not delivered", "dialect", env.Origin.Dialect, "act", reply.Act, "error", err.Message)
	}
}
