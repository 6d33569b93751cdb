package elizaacl

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Decode reads one elizaacl message. Fragments without envelope fields (the
// realworld agent files have them) decode; only the performative is needed.
func (c *Codec) Decode(msg []byte) (*canonical.Envelope, error) {
	root, err := c.Read.Parse(msg)
	if err != nil {
		return nil, err
	}
	return c.DecodeRoot(root)
}

// DecodeRoot decodes the message whose root object is root
// (dialects.RootDecoder).
func (c *Codec) DecodeRoot(root gjson.Result) (*canonical.Envelope, error) {
	return c.decode(nil, root)
}

// DecodeDoc decodes the message doc holds (dialects.DocDecoder).
func (c *Codec) DecodeDoc(doc *dialects.Doc) (*canonical.Envelope, error) {
	return c.decode(doc, doc.Root())
}

// decode decodes the message whose root object is root, reading it with doc
// (nil: gjson alone).
func (c *Codec) decode(doc *dialects.Doc, root gjson.Result) (*canonical.Envelope, error) {
	var err error
	env := &canonical.Envelope{Origin: canonical.Origin{Dialect: Name}}
	d := decoder{c: c, env: env, doc: doc}
	top := object{}
	var perf string
	var hasPerf bool
	var payload gjson.Result
	doc.ForEach(root, func(k, v gjson.Result) bool {
		key := dialects.Key(k)
		switch key {
		case "mcp_version":
			env.Origin.Version, err = d.text(&top, key, v, false)
		case "message_id":
			env.ID, err = d.text(&top, key, v, false)
		case "performative":
			perf, hasPerf, err = d.word(&top, key, v, false)
		case "sender":
			env.Sender.ID, _, err = d.party(&top, key, v)
		case "receiver":
			var id string
			var ok bool
			if id, ok, err = d.party(&top, key, v); ok {
				env.Receiver = canonical.Address{Kind: canonical.AddressAgent, ID: id}
			}
		case "in_reply_to":
			env.InReplyTo, err = d.text(&top, key, v, true)
		case "reply_with":
			env.ReplyWith, err = d.text(&top, key, v, true)
		case "language":
			env.Language, err = d.text(&top, key, v, true)
		case "ontology":
			env.Ontology, err = d.text(&top, key, v, true)
		case "timestamp":
			var t string
			t, err = d.text(&top, key, v, false)
			env.Time = canonical.Timestamp(t)
		case "payload":
			if err = d.once(&top, key); err == nil {
				payload, err = v, c.Read.Object(key, v)
			}
		default:
			dialects.Keep(env, Name, "", key, v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if !hasPerf {
		return nil, c.Read.Errorf("performative", "missing")
	}
	act, ok := c.Acts.Canonical(perf)
	if !ok {
		return nil, c.Read.Errorf("performative", "unknown performative %q (want one of %v)", perf, c.Acts.Words())
	}
	env.Act = canonical.Act(act)
	if !payload.Exists() {
		env.Origin.Form = formNoPayload
		return env, nil
	}
	if err := d.payload(payload); err != nil {
		return nil, err
	}
	return env, nil
}

// party reads a sender or receiver object: agent_id is the party's id, any
// other member is kept in Extra under the object's name. An empty object is
// kept whole, since the envelope has no way to say "given but empty".
func (d *decoder) party(top *object, key string, v gjson.Result) (id string, ok bool, err error) {
	if err = d.once(top, key); err != nil {
		return "", false, err
	}
	if err = d.c.Read.Object(key, v); err != nil {
		return "", false, err
	}
	o := object{path: key}
	empty := true
	d.doc.ForEach(v, func(k, m gjson.Result) bool {
		empty = false
		if k.Str == "agent_id" {
			id, err = d.text(&o, k.Str, m, false)
			return err == nil
		}
		dialects.Keep(d.env, Name, key, dialects.Key(k), m.Raw)
		return true
	})
	if empty {
		dialects.Keep(d.env, Name, "", key, v.Raw)
	}
	return id, id != "", err
}
