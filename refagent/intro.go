package refagent

import (
	"encoding/json"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// Introduction returns the frames the agent opens a connection with: its
// capabilities, as the act its dialect declares them in. A dialect whose
// capability query carries the asker's own capabilities (swarm's
// handshake_request) opens with that query; others send inform-capabilities;
// a dialect with neither (bluelabel, whose agents are known by the connect
// parameter) sends nothing.
func (a *Agent) Introduction() [][]byte {
	act := canonical.ActInformCapabilities
	if a.codec.Holds(canonical.ActQueryCapabilities).Has(canonical.CCapabilities) {
		act = canonical.ActQueryCapabilities
	}
	env := &canonical.Envelope{Act: act, Sender: canonical.Party{ID: a.id}, Capabilities: a.Capabilities()}
	if act == canonical.ActInformCapabilities {
		env.Outcome = canonical.OutcomeSuccess
	}
	frame, err := a.encode(env)
	if err != nil {
		a.log.Debug("agent: no introduction", "reason", err.Error())
		return nil
	}
	return [][]byte{frame}
}

// subscriptions returns a subscribe request for each topic of
// Options.Subscribe: operation "subscribe" (capability "events" where the
// dialect names operations in two levels), arguments {"topic": topic}, no
// receiver.
func (a *Agent) subscriptions() [][]byte {
	op := canonical.Operation{Name: "subscribe"}
	if dialects.TwoLevel(a.codec) {
		op.Capability = "events"
	}
	var out [][]byte
	for _, topic := range a.subscribe {
		args, _ := json.Marshal(map[string]string{"topic": topic}) // strings always marshal
		out = append(out, a.frames(a.newRequest(op, canonical.JSON(args)))...)
	}
	return out
}
