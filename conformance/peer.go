package conformance

import (
	"cmp"
	"encoding/json"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// peer answers what the agent asks of the suite on its own, as the bridge
// answers it: a capability query (swarm's handshake_request) with the
// suite's (empty) capabilities, a declaration made as a request (collab's
// registry.register) with a result, a subscription with a result, and any
// other request with a failure, since the suite routes nothing.
type peer struct {
	// declarationIsRequest is true when the dialect declares capabilities
	// with its request word, so that a declaration expects an answer.
	declarationIsRequest bool
}

func newPeer(codec dialects.Codec) peer {
	t := dialects.DefaultMappings().Vocabulary(codec.Name()).Table(canonical.KindAct)
	decl, _, ok := t.Word(string(canonical.ActInformCapabilities))
	req, _, rok := t.Word(string(canonical.ActRequest))
	return peer{declarationIsRequest: ok && rok && decl == req}
}

// answer returns the suite's answer to env, from suite; nil when env asks
// nothing of it.
func (p peer) answer(env *canonical.Envelope, suite string) *canonical.Envelope {
	var reply *canonical.Envelope
	switch env.Act {
	case canonical.ActQueryCapabilities:
		reply = &canonical.Envelope{Act: canonical.ActInformCapabilities, Outcome: canonical.OutcomeSuccess, Capabilities: &canonical.Capabilities{}}
	case canonical.ActInformCapabilities:
		if !p.declarationIsRequest || env.InReplyTo != "" {
			return nil
		}
		reply = &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: `{"registered":true}`}
	case canonical.ActRequest:
		switch env.Operation.Name {
		case "subscribe", "unsubscribe":
			topic := gjson.Get(string(env.Arguments), "topic").String()
			result, _ := json.Marshal(map[string]string{env.Operation.Name + "d": topic}) // strings always marshal
			reply = &canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: canonical.JSON(result)}
		default:
			reply = &canonical.Envelope{Act: canonical.ActFailure, Error: &canonical.Error{Code: canonical.ErrUnavailable,
				Message: "the conformance suite is the agent's only peer and routes no requests"}}
		}
	default:
		return nil
	}
	reply.Sender = canonical.Party{ID: suite}
	reply.InReplyTo = cmp.Or(env.ReplyWith, env.ID, env.TaskID)
	reply.TaskID = env.TaskID
	reply.CorrelationID = env.CorrelationID
	reply.Trace = canonical.Trace{TraceID: env.Trace.TraceID, ParentSpanID: env.Trace.SpanID}
	if env.Sender.ID != "" {
		reply.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: env.Sender.ID}
	}
	return reply
}
