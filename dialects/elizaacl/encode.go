package elizaacl

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// broadcastAgent is the agent_id written for a message to every agent:
// elizaacl addresses agents only.
const broadcastAgent = "*"

// Encode appends env as an elizaacl message to dst. An envelope decoded from
// elizaacl is written back as it came (fragments stay fragments); one from
// another dialect gets a whole envelope, with stand-ins for what elizaacl
// requires and it lacks.
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	perf, ok := dialects.Word(ctx, env, Name, c.Acts, string(env.Act), canonical.CAct)
	if !ok {
		return dst, dialects.Errorf(Name, "", "cannot express act %q: elizaacl has no performative for it", env.Act)
	}
	// The payload shape is the one of the act the performative stands for.
	as, _ := c.Acts.Canonical(perf)
	act := canonical.Act(as)
	dialects.ReportLosses(ctx, env, Name, c.Holds(act))
	own := env.Origin.Dialect == Name

	w := jsonw.New(dst)
	w.Open()
	if own {
		w.NameString("mcp_version", env.Origin.Version)
		w.NameString("message_id", env.ID)
	} else {
		w.Name("mcp_version")
		w.String(version)
		id := env.ID
		if id == "" {
			id = ctx.ID()
		}
		w.Name("message_id")
		w.String(id)
	}
	w.Name("performative")
	w.String(perf)
	c.encodeSender(&w, env, ctx, own)
	c.encodeReceiver(&w, env, ctx, own)
	if irt := c.inReplyTo(env, act, ctx, own); irt != "" {
		w.Name("in_reply_to")
		w.String(irt)
	}
	w.NameString("reply_with", env.ReplyWith)
	w.NameString("language", env.Language)
	w.NameString("ontology", env.Ontology)
	if own {
		w.NameString("timestamp", string(env.Time))
	} else {
		// elizaacl does not parse timestamps: any text is kept.
		w.Name("timestamp")
		w.String(string(dialects.TimeFor(ctx, Name, env.Time, canonical.CTime, false, true)))
	}
	if !own || env.Origin.Form != formNoPayload {
		w.Name("payload")
		c.encodePayload(&w, env, act, ctx, own)
	}
	dialects.WriteExtras(&w, env, Name, "")
	w.Close()
	return w.Buf, nil
}

// encodeSender writes the sender object.
func (c *Codec) encodeSender(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, own bool) {
	id := env.Sender.ID
	if own {
		if id == "" && !dialects.HasExtras(env, Name, "sender") {
			return
		}
	} else if id == "" {
		id = "unknown"
		ctx.Fill(canonical.CSender, "sender.agent_id", id)
	}
	w.Name("sender")
	w.Open()
	w.NameString("agent_id", id)
	dialects.WriteExtras(w, env, Name, "sender")
	w.Close()
}

// encodeReceiver writes the receiver object. elizaacl names one agent: a
// topic is written as an agent of the topic's name, everyone as "*".
func (c *Codec) encodeReceiver(w *jsonw.Writer, env *canonical.Envelope, ctx *dialects.EncodeContext, own bool) {
	r := env.Receiver
	var id string
	switch {
	case own:
		if r.Kind != canonical.AddressAgent && !dialects.HasExtras(env, Name, "receiver") {
			return
		}
		id = r.ID
	case r.Kind == canonical.AddressAgent && r.ID != "":
		id = r.ID
	case r.Kind == canonical.AddressTopic && r.ID != "":
		id = r.ID
		ctx.Lose(dialects.Approximated, canonical.CReceiver, "receiver", fmt.Sprintf("elizaacl addresses agents only; topic %q written as receiver.agent_id %q", r.ID, id))
	case r.Kind == canonical.AddressBroadcast:
		id = broadcastAgent
		ctx.Lose(dialects.Approximated, canonical.CReceiver, "receiver", fmt.Sprintf("elizaacl addresses agents only; broadcast written as receiver.agent_id %q", id))
	default:
		id = "unknown"
		ctx.Fill(canonical.CReceiver, "receiver.agent_id", id)
	}
	w.Name("receiver")
	w.Open()
	w.NameString("agent_id", id)
	dialects.WriteExtras(w, env, Name, "receiver")
	w.Close()
}

// inReplyTo returns the in_reply_to to write. A reply from another dialect
// that names no message it answers quotes its correlation id, else its task
// id, else "unknown" (spec 4.x: replies must include in_reply_to).
func (c *Codec) inReplyTo(env *canonical.Envelope, act canonical.Act, ctx *dialects.EncodeContext, own bool) string {
	if env.InReplyTo != "" || own || !act.IsReply() {
		return env.InReplyTo
	}
	v := env.CorrelationID
	if v == "" {
		v = env.TaskID
	}
	if v == "" {
		v = "unknown"
	}
	ctx.Fill(canonical.CInReplyTo, "in_reply_to", v)
	return v
}
