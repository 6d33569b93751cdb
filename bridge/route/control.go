package route

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/tidwall/gjson"
)

// controller does what messages ask of the bridge itself.
type controller struct{ r *Router }

// The operations the bridge itself serves, as any dialect names them (fuse
// under the capability "events").
const (
	opSubscribe   = "subscribe"
	opUnsubscribe = "unsubscribe"
	eventsCap     = "events"
)

// handle does what a message asks of the bridge rather than of an agent:
// capability declarations, capability queries (the bridge answers for the
// agents behind it, as swarm's handshake wants) and topic subscriptions. It
// reports whether the message was the bridge's.
func (c *controller) handle(ep Endpoint, env *canonical.Envelope) (Receipt, bool) {
	toBridge := env.Receiver.Kind == canonical.AddressNone ||
		(env.Receiver.Kind == canonical.AddressAgent && env.Receiver.ID == c.r.id)
	from := env.Origin.Dialect
	switch env.Act {
	case canonical.ActInformCapabilities:
		// A declaration teaches the bridge whoever it is addressed to; one
		// for the bridge, or for no agent it knows, ends here.
		c.learn(ep, env.Capabilities)
		if !toBridge && env.Receiver.Kind == canonical.AddressAgent {
			if _, _, known := c.r.dir.Lookup(env.Receiver.ID); known {
				return Receipt{}, false
			}
		}
		if c.declarationIsRequest(from) {
			c.answerSender(ep, env, &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: `{"registered":true}`})
		}
		return Receipt{}, true
	case canonical.ActQueryCapabilities:
		c.learn(ep, env.Capabilities)
		return c.describe(ep, env, toBridge), true
	case canonical.ActRequest:
		if !toBridge {
			return Receipt{}, false
		}
		switch env.Operation {
		case canonical.Operation{Name: opSubscribe}, canonical.Operation{Capability: eventsCap, Name: opSubscribe}:
			return c.subscribe(ep, env, true), true
		case canonical.Operation{Name: opUnsubscribe}, canonical.Operation{Capability: eventsCap, Name: opUnsubscribe}:
			return c.subscribe(ep, env, false), true
		}
		if env.Receiver.Kind == canonical.AddressAgent {
			return ep.Refuse(env, &canonical.Error{Code: canonical.ErrNotFound,
				Message: fmt.Sprintf("the bridge serves %s and %s, not %q", opSubscribe, opUnsubscribe, event.OpName(env.Operation))}), true
		}
	}
	return Receipt{}, false
}

// declarationIsRequest reports whether dialect declares capabilities with
// its request word (collab's registry.register), so a declaration expects
// an answer.
func (c *controller) declarationIsRequest(dialect string) bool {
	t := c.r.rules.Load().Mappings.Vocabulary(dialect).Table(canonical.KindAct)
	w, _, ok := t.Word(string(canonical.ActInformCapabilities))
	r, _, rok := t.Word(string(canonical.ActRequest))
	return ok && rok && w == r
}

// learn records the capabilities the agent of ep declared.
func (c *controller) learn(ep Endpoint, caps *canonical.Capabilities) {
	if caps == nil {
		return
	}
	a := ep.Bound()
	if a == nil {
		return
	}
	c.r.dir.Learn(a, caps)
	c.r.log.Info("capabilities declared", "agent", a.ID(), "tools", len(caps.Tools))
}

// describe answers a capability query: the named agent's capabilities, or
// for a query to the bridge those of every other connected agent, each
// distinct tool once.
func (c *controller) describe(ep Endpoint, env *canonical.Envelope, toBridge bool) Receipt {
	caps := &canonical.Capabilities{}
	sender := c.r.id
	if toBridge {
		// What the bridge reaches: each distinct tool once, however
		// many agents serve it.
		caps.Tools = c.r.dir.DistinctTools(ep)
	} else {
		a, _, ok := c.r.dir.Lookup(env.Receiver.ID)
		if !ok {
			return ep.Refuse(env, &canonical.Error{Code: canonical.ErrNotFound, Message: fmt.Sprintf("no agent %q is known to the bridge", env.Receiver.ID)})
		}
		sender = a.ID()
		caps.Tools = c.r.dir.ToolsOf(a)
	}
	c.answerSender(ep, env, &canonical.Envelope{
		Act: canonical.ActInformCapabilities, Outcome: canonical.OutcomeSuccess,
		Sender: canonical.Party{ID: sender}, Capabilities: caps,
	})
	return Receipt{}
}

// subscribe adds (or removes) the agent of ep to a topic.
func (c *controller) subscribe(ep Endpoint, env *canonical.Envelope, on bool) Receipt {
	from := env.Origin.Dialect
	args := gjson.Parse(string(env.Arguments))
	topic := args.Get("topic").String()
	for _, k := range []string{"eventType", "event_type"} {
		if topic == "" {
			topic = args.Get(k).String()
		}
	}
	a := ep.Bound()
	switch {
	case topic == "":
		return ep.Refuse(env, &canonical.Error{Code: canonical.ErrInvalidArguments, Message: from + ": " + event.OpName(env.Operation) + " needs an argument topic"})
	case a == nil:
		return ep.Refuse(env, &canonical.Error{Code: canonical.ErrUnauthorized, Message: "only an agent that named itself can subscribe"})
	}
	c.r.dir.Subscribe(a, topic, on)
	var w jsonw.Writer
	w.Open()
	w.Key(map[bool]string{true: "subscribed", false: "unsubscribed"}[on])
	w.String(topic)
	w.Close()
	c.answerSender(ep, env, &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: canonical.JSON(w.Buf)})
	return Receipt{}
}

// answerSender sends reply, made by the bridge, to the sender of env.
func (c *controller) answerSender(ep Endpoint, env *canonical.Envelope, reply *canonical.Envelope) {
	if reply.Sender.ID == "" {
		reply.Sender.ID = c.r.id
	}
	correlate(reply, env)
	if _, err := ep.Deliver(&Outgoing{Env: reply, Final: true, ByBridge: true, Failure: c.r.Unsent("bridge answer", ep, reply)}); err != nil {
		c.r.log.Warn("bridge answer not delivered", "dialect", env.Origin.Dialect, "act", reply.Act, "error", err.Message)
	}
}
