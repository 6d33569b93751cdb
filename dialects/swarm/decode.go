package swarm

import (
	"math"
	"strconv"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// Decode reads one swarm message.
func (c *Codec) Decode(msg []byte) (*canonical.Envelope, error) {
	root, err := c.r.Parse(msg)
	if err != nil {
		return nil, err
	}
	env := &canonical.Envelope{Origin: canonical.Origin{Dialect: Name}}
	var msgType, correlation string
	var receiverNull bool
	var payload, accepted gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "message_id":
			env.ID, err = c.r.String("message_id", v, false)
		case "message_type":
			msgType, err = c.r.String("message_type", v, false)
		case "sender_id":
			env.Sender.ID, err = c.r.String("sender_id", v, false)
		case "receiver_id":
			receiverNull = v.Type == gjson.Null
			env.Receiver.ID, err = c.r.String("receiver_id", v, true)
		case "timestamp":
			var t string
			t, err = c.r.String("timestamp", v, false)
			env.Time = canonical.Timestamp(t)
		case "correlation_id":
			correlation, err = c.r.String("correlation_id", v, true)
		case "priority":
			err = c.decodePriority(env, v)
		case "payload":
			payload, err = v, c.r.Object("payload", v)
		case "accepted":
			accepted = v
		default:
			dialects.Keep(env, Name, "", k.Str, v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if msgType == "" {
		return nil, c.r.Errorf("message_type", "missing")
	}
	act, ok := c.acts.Canonical(msgType)
	if !ok {
		return nil, c.r.Errorf("message_type", "unknown message type %q (want one of %v)", msgType, c.acts.Words())
	}
	env.Act = canonical.Act(act)
	switch {
	case env.Receiver.ID != "":
		env.Receiver.Kind = canonical.AddressAgent
	case receiverNull && (msgType == typeNotification || msgType == typeError):
		env.Receiver.Kind = canonical.AddressBroadcast
	}
	if env.Act.IsReply() {
		env.InReplyTo = correlation
	} else {
		env.CorrelationID = correlation
	}
	if accepted.Exists() {
		b, err := c.r.Bool("accepted", accepted)
		if err != nil {
			return nil, err
		}
		env.Outcome = canonical.OutcomeFailure
		if b {
			env.Outcome = canonical.OutcomeSuccess
		}
	}
	if payload.Exists() {
		if err := c.decodePayload(env, msgType, payload); err != nil {
			return nil, err
		}
	}
	return env, nil
}

func (c *Codec) decodePriority(env *canonical.Envelope, v gjson.Result) error {
	w, err := c.r.String("priority", v, false)
	if err != nil {
		return err
	}
	p, ok := c.prio.Canonical(w)
	if !ok {
		return c.r.Errorf("priority", "unknown priority %q (want one of %v)", w, c.prio.Words())
	}
	env.Priority, _ = canonical.ParsePriority(p)
	return nil
}

func (c *Codec) decodePayload(env *canonical.Envelope, msgType string, payload gjson.Result) error {
	var err error
	switch msgType {
	case typeRequest:
		payload.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "tool_name":
				env.Operation.Name, err = c.r.String("payload.tool_name", v, false)
			case "arguments":
				env.Arguments = canonical.JSON(v.Raw)
			case "timeout":
				var secs float64
				if secs, err = c.r.Number("payload.timeout", v); err == nil {
					env.TTL = canonical.Dur(time.Duration(secs * float64(time.Second)))
				}
			default:
				dialects.Keep(env, Name, "payload", k.Str, v.Raw)
			}
			return err == nil
		})
	case typeResponse:
		payload.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "success":
				var ok bool
				if ok, err = c.r.Bool("payload.success", v); err == nil {
					env.Outcome = canonical.OutcomeFailure
					if ok {
						env.Outcome = canonical.OutcomeSuccess
					}
				}
			case "result":
				if v.Type != gjson.Null {
					env.Result = canonical.JSON(v.Raw)
				}
			case "error":
				var m string
				if m, err = c.r.String("payload.error", v, true); err == nil && m != "" {
					env.Error = &canonical.Error{Message: m}
				}
			default:
				dialects.Keep(env, Name, "payload", k.Str, v.Raw)
			}
			return err == nil
		})
	case typeError:
		e := &canonical.Error{}
		env.Error = e
		payload.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "error_code":
				var w string
				if w, err = c.r.String("payload.error_code", v, false); err == nil {
					if code, ok := c.errs.Canonical(w); ok {
						e.Code = canonical.ErrorCode(code)
					}
					env.Origin.SetWord(canonical.KindError, w)
				}
			case "error_message":
				e.Message, err = c.r.String("payload.error_message", v, false)
			case "details":
				if v.Type != gjson.Null {
					e.Details = canonical.JSON(v.Raw)
				}
			default:
				dialects.Keep(env, Name, "payload", k.Str, v.Raw)
			}
			return err == nil
		})
	case typeNotification:
		payload.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "event_type":
				env.Operation.Name, err = c.r.String("payload.event_type", v, false)
			case "data":
				env.Arguments = canonical.JSON(v.Raw)
			default:
				dialects.Keep(env, Name, "payload", k.Str, v.Raw)
			}
			return err == nil
		})
	case typeHandshakeRequest, typeHandshakeResponse:
		err = c.decodeCapabilities(env, payload)
	}
	return err
}

// decodeCapabilities reads an AgentCapabilities payload. The payload is kept
// whole as Capabilities.Raw; tools and the agent's name are lifted out.
func (c *Codec) decodeCapabilities(env *canonical.Envelope, payload gjson.Result) error {
	caps := &canonical.Capabilities{Raw: canonical.JSON(payload.Raw), Dialect: Name}
	var err error
	payload.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "agent_name":
			env.Sender.Name, err = c.r.String("payload.agent_name", v, false)
		case "tools":
			if err = c.r.Array("payload.tools", v); err != nil {
				return false
			}
			i := 0
			v.ForEach(func(_, t gjson.Result) bool {
				var name string
				name, err = c.r.String("payload.tools."+strconv.Itoa(i), t, false)
				caps.Tools = append(caps.Tools, canonical.Tool{Name: name})
				i++
				return err == nil
			})
		}
		return err == nil
	})
	env.Capabilities = caps
	return err
}

// seconds returns d in whole seconds, rounded up.
func seconds(d time.Duration) int64 {
	return int64(math.Ceil(d.Seconds()))
}
