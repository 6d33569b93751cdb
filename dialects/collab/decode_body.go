package collab

import (
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// decodeRequest reads a REQUEST body: an action with its payload, or one of
// the capability registry's operations. body may be absent.
func (c *Codec) decodeRequest(d *dialects.Doc, env *canonical.Envelope, body gjson.Result) error {
	var action string
	var payload gjson.Result
	var err error
	d.ForEach(body, func(k, v gjson.Result) bool {
		switch k.Str {
		case "action":
			action, err = c.Read.String("body.action", v, false)
		case "payload":
			payload = v
		case "context":
			env.Context = canonical.JSON(v.Raw)
		default:
			dialects.Keep(env, Name, "body", dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	switch {
	case env.Act == canonical.ActRequest && action == actionRegister:
		env.Act = canonical.ActInformCapabilities
		if payload.Exists() {
			return c.decodeRegistration(d, env, payload)
		}
	case env.Act == canonical.ActRequest && action == actionFind:
		env.Act = canonical.ActQueryCapabilities
		env.Arguments = canonical.JSON(payload.Raw)
	default:
		env.Operation.Name = action
		env.Arguments = canonical.JSON(payload.Raw)
	}
	return nil
}

// decodeRegistration reads the Agent a registry.register request carries
// (spec section 3.2). It is kept whole as Capabilities.Raw; the agent's name
// and one tool per capability action are lifted out.
func (c *Codec) decodeRegistration(d *dialects.Doc, env *canonical.Envelope, agent gjson.Result) error {
	const at = "body.payload"
	if err := c.Read.Object(at, agent); err != nil {
		return err
	}
	caps := &canonical.Capabilities{Raw: canonical.JSON(agent.Raw), Dialect: Name}
	var err error
	d.ForEach(agent, func(k, v gjson.Result) bool {
		switch k.Str {
		case "name":
			env.Sender.Name, err = c.Read.String(at+".name", v, false)
		case "capabilities":
			if err = c.Read.Array(at+".capabilities", v); err != nil {
				return false
			}
			i := 0
			d.ForEach(v, func(_, cp gjson.Result) bool {
				caps.Tools, err = c.decodeCapability(d, caps.Tools, at+".capabilities."+strconv.Itoa(i), cp)
				i++
				return err == nil
			})
		}
		return err == nil
	})
	env.Capabilities = caps
	return err
}

// decodeCapability appends a tool for each action of one Capability.
func (c *Codec) decodeCapability(d *dialects.Doc, tools []canonical.Tool, at string, cp gjson.Result) ([]canonical.Tool, error) {
	if err := c.Read.Object(at, cp); err != nil {
		return tools, err
	}
	first := len(tools)
	var name string
	var err error
	d.ForEach(cp, func(k, v gjson.Result) bool {
		switch k.Str {
		case "name":
			name, err = c.Read.String(at+".name", v, false)
		case "actions":
			if err = c.Read.Array(at+".actions", v); err != nil {
				return false
			}
			j := 0
			d.ForEach(v, func(_, a gjson.Result) bool {
				var action string
				action, err = c.Read.String(at+".actions."+strconv.Itoa(j), a, false)
				tools = append(tools, canonical.Tool{Name: action})
				j++
				return err == nil
			})
		}
		return err == nil
	})
	for i := first; i < len(tools); i++ {
		tools[i].Capability = name
	}
	return tools, err
}

// decodeResponse reads a RESPONSE body. body.status decides the act: a
// success is a result; ERROR and TIMEOUT are a failure, or a refusal when
// the error code is REJECTED. A response with no status but an error object
// is a failure too. An ERROR or TIMEOUT with no error object (absent or
// null) but a non-null result is a failed result: act result, outcome
// failure (the work was done and its goal not met).
func (c *Codec) decodeResponse(d *dialects.Doc, env *canonical.Envelope, body gjson.Result, l *layout) error {
	var status, result, errv gjson.Result
	d.ForEach(body, func(k, v gjson.Result) bool {
		switch k.Str {
		case "status":
			status = v
		case "result":
			result = v
		case "error":
			errv = v
		case "context":
			env.Context = canonical.JSON(v.Raw)
		default:
			dialects.Keep(env, Name, "body", dialects.Key(k), v.Raw)
		}
		return true
	})
	var statusWord string
	if status.Exists() {
		var err error
		if statusWord, err = c.Read.String("body.status", status, false); err != nil {
			return err
		}
		o, ok := c.Outcomes.Canonical(statusWord)
		if !ok {
			return c.Read.Errorf("body.status", "unknown status %q (want one of %v)", statusWord, c.Outcomes.Words())
		}
		env.Outcome = canonical.Outcome(o)
		env.Origin.SetWord(canonical.KindOutcome, statusWord)
	}
	errObj := false
	switch {
	case errv.Type == gjson.Null && errv.Exists():
		l.nullError = true
	case errv.Exists():
		if err := c.Read.Object("body.error", errv); err != nil {
			return err
		}
		errObj = true
	}

	failedResult := env.Outcome == canonical.OutcomeFailure && !errObj && result.Exists() && result.Type != gjson.Null
	if failedResult || (env.Outcome != canonical.OutcomeFailure && (status.Exists() || !errObj)) {
		env.Act = canonical.ActResult
		env.Result = canonical.JSON(result.Raw)
		if errObj {
			dialects.Keep(env, Name, "body", "error", errv.Raw)
		}
		return nil
	}

	env.Act = canonical.ActFailure
	e := &canonical.Error{}
	if errObj {
		if err := c.decodeError(d, env, e, errv); err != nil {
			return err
		}
	}
	if coded := env.Origin.Words.Has(canonical.KindError); !coded {
		// A status that is itself an error word (TIMEOUT) gives the code.
		if code, ok := c.Errors.Canonical(statusWord); ok {
			e.Code = canonical.ErrorCode(code)
		}
	}
	if errObj || e.Code != "" {
		env.Error = e
	}
	if e.Code == canonical.ErrRejected {
		env.Act = canonical.ActRefuse
	}
	switch {
	case result.Type == gjson.Null && result.Exists():
		l.nullResult = true
	case result.Exists():
		dialects.Keep(env, Name, "body", "result", result.Raw)
	}
	return nil
}

// decodeError reads body.error (spec section 9.2). Error codes are an open
// vocabulary: an unknown code is kept as the source's word.
func (c *Codec) decodeError(d *dialects.Doc, env *canonical.Envelope, e *canonical.Error, v gjson.Result) error {
	var err error
	d.ForEach(v, func(k, v gjson.Result) bool {
		switch k.Str {
		case "code":
			err = c.Read.ReadErrorWord(env, e, c.Errors, "body.error", k, v)
		case "message":
			e.Message, err = c.Read.String("body.error.message", v, false)
		case "retryable":
			var b bool
			if b, err = c.Read.Bool("body.error.retryable", v); err == nil {
				e.Retryable = &b
			}
		case "retryAfter":
			e.RetryAfter, err = c.millis("body.error.retryAfter", v)
		case "details":
			e.Details = canonical.JSON(v.Raw)
		default:
			dialects.Keep(env, Name, "body.error", dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	return err
}

// decodeEvent reads a PUBLISH or BROADCAST body: the event's name and data.
func (c *Codec) decodeEvent(d *dialects.Doc, env *canonical.Envelope, body gjson.Result) error {
	var err error
	d.ForEach(body, func(k, v gjson.Result) bool {
		switch k.Str {
		case "event":
			env.Operation.Name, err = c.Read.String("body.event", v, false)
		case "data":
			env.Arguments = canonical.JSON(v.Raw)
		case "context":
			env.Context = canonical.JSON(v.Raw)
		default:
			dialects.Keep(env, Name, "body", dialects.Key(k), v.Raw)
		}
		return err == nil
	})
	return err
}
