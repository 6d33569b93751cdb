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

// DecodeDoc decodes the message d holds (dialects.DocDecoder).
func (c *Codec) DecodeDoc(d *dialects.Doc) (*canonical.Envelope, error) { return c.decode(d, d.Root()) }

// decode decodes the message whose root object is root, reading it with d
// (nil: gjson alone).
func (c *Codec) decode(d *dialects.Doc, root gjson.Result) (*canonical.Envelope, error) {
	var err error
	env := &canonical.Envelope{Origin: canonical.Origin{Dialect: Name}}
	var msgType, correlation string
	var receiverNull bool
	var payload, accepted gjson.Result
	// Every member the encoder always writes starts absent.
	lay := absMessageID | absSender | absReceiver | absTimestamp | absCorrelation | absPayload | absAccepted
	// text reads a string member into dst; an empty one carries no value
	// and is kept as written.
	text := func(k, v gjson.Result, bit layout, dst *string) {
		if *dst, err = c.Read.String(k.Str, v, false); err == nil {
			if *dst == "" {
				dialects.Keep(env, Name, "", dialects.Key(k), v.Raw)
			} else {
				lay &^= bit
			}
		}
	}
	d.ForEach(root, func(k, v gjson.Result) bool {
		switch k.Str {
		case "message_id":
			text(k, v, absMessageID, &env.ID)
		case "message_type":
			msgType, err = c.Read.String("message_type", v, false)
		case "sender_id":
			text(k, v, absSender, &env.Sender.ID)
		case "receiver_id":
			if receiverNull = v.Type == gjson.Null; receiverNull {
				lay &^= absReceiver
			} else {
				text(k, v, absReceiver, &env.Receiver.ID)
			}
		case "timestamp":
			var t string
			text(k, v, absTimestamp, &t)
			env.Time = canonical.Timestamp(t)
		case "correlation_id":
			if v.Type == gjson.Null {
				lay &^= absCorrelation
			} else {
				text(k, v, absCorrelation, &correlation)
			}
		case "priority":
			err = c.decodePriority(env, v)
		case "payload":
			payload, err = v, c.Read.Object("payload", v)
			lay &^= absPayload
		case "accepted":
			accepted = v
			lay &^= absAccepted
		default:
			dialects.Keep(env, Name, "", dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if msgType == "" {
		return nil, c.Read.Errorf("message_type", "missing")
	}
	act, ok := c.Acts.Canonical(msgType)
	if !ok {
		return nil, c.Read.Errorf("message_type", "unknown message type %q (want one of %v)", msgType, c.Acts.Words())
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
		b, err := c.Read.Bool("accepted", accepted)
		if err != nil {
			return nil, err
		}
		env.Outcome = canonical.OutcomeFailure
		if b {
			env.Outcome = canonical.OutcomeSuccess
		}
	}
	if payload.Exists() {
		if lay, err = c.decodePayload(d, env, msgType, payload, lay); err != nil {
			return nil, err
		}
	}
	env.Origin.Form = lay.String()
	return env, nil
}

func (c *Codec) decodePriority(env *canonical.Envelope, v gjson.Result) error {
	w, err := c.Read.String("priority", v, false)
	if err != nil {
		return err
	}
	p, ok := c.Priorities.Canonical(w)
	if !ok {
		return c.Read.Errorf("priority", "unknown priority %q (want one of %v)", w, c.Priorities.Words())
	}
	env.Priority, _ = canonical.ParsePriority(p)
	return nil
}

// decodePayload reads the payload of a message type, noting in lay the
// members the encoder writes that the payload lacks.
func (c *Codec) decodePayload(d *dialects.Doc, env *canonical.Envelope, msgType string, payload gjson.Result, lay layout) (layout, error) {
	var err error
	// text reads a payload string member into dst, as Decode's text does.
	text := func(k, v gjson.Result, bit layout, dst *string) {
		if *dst, err = c.Read.StringAt("payload", k.Str, v, false); err == nil {
			if *dst == "" {
				dialects.Keep(env, Name, "payload", dialects.Key(k), v.Raw)
			} else {
				lay &^= bit
			}
		}
	}
	switch msgType {
	case typeRequest:
		lay |= absToolName
		d.ForEach(payload, func(k, v gjson.Result) bool {
			switch k.Str {
			case "tool_name":
				text(k, v, absToolName, &env.Operation.Name)
			case "arguments":
				env.Arguments = canonical.JSON(v.Raw)
			case "timeout":
				// Optional upstream (int | None): null is no timeout.
				if v.Type == gjson.Null {
					lay |= nullTimeout
					break
				}
				var secs float64
				if secs, err = c.Read.Number("payload.timeout", v); err == nil {
					env.TTL = canonical.Dur(time.Duration(secs * float64(time.Second)))
				}
			default:
				dialects.Keep(env, Name, "payload", dialects.Key(k), v.Raw)
			}
			return err == nil
		})
	case typeResponse:
		lay |= absSuccess | absResult | absError
		d.ForEach(payload, func(k, v gjson.Result) bool {
			switch k.Str {
			case "success":
				var ok bool
				if ok, err = c.Read.Bool("payload.success", v); err == nil {
					lay &^= absSuccess
					env.Outcome = canonical.OutcomeFailure
					if ok {
						env.Outcome = canonical.OutcomeSuccess
					}
				}
			case "result":
				lay &^= absResult
				if v.Type != gjson.Null {
					env.Result = canonical.JSON(v.Raw)
				}
			case "error":
				if v.Type == gjson.Null {
					lay &^= absError
					break
				}
				var m string
				if text(k, v, absError, &m); err == nil && m != "" {
					env.Error = &canonical.Error{Message: m}
				}
			case "execution_time":
				// Optional upstream (float | None): null is no time;
				// any other value is kept as written.
				if v.Type == gjson.Null {
					lay |= nullExecTime
				} else {
					dialects.Keep(env, Name, "payload", dialects.Key(k), v.Raw)
				}
			default:
				dialects.Keep(env, Name, "payload", dialects.Key(k), v.Raw)
			}
			return err == nil
		})
	case typeError:
		lay |= absErrorMessage
		e := &canonical.Error{}
		env.Error = e
		d.ForEach(payload, func(k, v gjson.Result) bool {
			switch k.Str {
			case "error_code":
				err = c.Read.ReadErrorWord(env, e, c.Errors, "payload", k, v)
			case "error_message":
				text(k, v, absErrorMessage, &e.Message)
			case "details":
				if v.Type == gjson.Null {
					dialects.Keep(env, Name, "payload", dialects.Key(k), v.Raw)
				} else {
					e.Details = canonical.JSON(v.Raw)
				}
			default:
				dialects.Keep(env, Name, "payload", dialects.Key(k), v.Raw)
			}
			return err == nil
		})
	case typeNotification:
		lay |= absEventType
		d.ForEach(payload, func(k, v gjson.Result) bool {
			switch k.Str {
			case "event_type":
				text(k, v, absEventType, &env.Operation.Name)
			case "data":
				env.Arguments = canonical.JSON(v.Raw)
			default:
				dialects.Keep(env, Name, "payload", dialects.Key(k), v.Raw)
			}
			return err == nil
		})
	case typeHandshakeRequest, typeHandshakeResponse:
		err = c.decodeCapabilities(d, env, payload)
	}
	return lay, err
}

// decodeCapabilities reads an AgentCapabilities payload. The payload is kept
// whole as Capabilities.Raw; tools and the agent's name are lifted out.
func (c *Codec) decodeCapabilities(d *dialects.Doc, env *canonical.Envelope, payload gjson.Result) error {
	caps := &canonical.Capabilities{Raw: canonical.JSON(payload.Raw), Dialect: Name}
	var err error
	d.ForEach(payload, func(k, v gjson.Result) bool {
		switch k.Str {
		case "agent_name":
			env.Sender.Name, err = c.Read.String("payload.agent_name", v, false)
		case "tools":
			if err = c.Read.Array("payload.tools", v); err != nil {
				return false
			}
			i := 0
			d.ForEach(v, func(_, t gjson.Result) bool {
				var name string
				name, err = c.Read.String("payload.tools."+strconv.Itoa(i), t, false)
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
