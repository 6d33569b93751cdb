package bluelabel

import (
	"fmt"
	"math"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// Limits of the upstream schemas.
const (
	maxTaskID      = 64   // task_assignment task_id
	maxDescription = 500  // task_assignment content.description
	maxNotes       = 1000 // v1.3 task_result notes
	minTimeout     = 1    // seconds written for timeout and timeout_seconds
)

// defaultAction is the action written for a request that names none.
const defaultAction = "execute"

// assignment writes a task_assignment payload: {"type", "content"}.
func (e *encoder) assignment(base string) {
	w, env := &e.w, e.env
	w.Open()
	w.Name("type")
	w.String(e.msgType)
	dialects.WriteExtras(w, env, Name, base)
	cbase := base + ".content"
	w.Name("content")
	w.Open()
	if !hasExtra(env, cbase, "task_id") {
		w.NameString("task_id", e.taskID)
	}
	action := env.Operation.Name
	desc := env.Description
	if !e.own {
		if action == "" {
			action = env.Operation.Capability
			if action == "" {
				action = defaultAction
			}
			e.ctx.Fill(canonical.COperation, "payload.content.action", action)
		}
		if desc == "" {
			desc = action
			e.ctx.Fill(canonical.CDescription, "payload.content.description", desc)
		}
		desc = e.clip(canonical.CDescription, "payload.content.description", desc, maxDescription)
	}
	w.NameString("description", desc)
	w.NameString("action", action)
	e.object("parameters", env.Arguments, canonical.CArguments)
	if env.Priority != 0 {
		if p, ok := dialects.Word(e.ctx, env, Name, e.c.Priorities, env.Priority.String(), canonical.CPriority); ok {
			w.Name("priority")
			w.String(p)
		} else {
			e.ctx.Lose(dialects.Dropped, canonical.CPriority, canonical.CPriority.String(), "bluelabel has no priority word for "+env.Priority.String())
		}
	}
	e.deadline()
	e.seconds("timeout", canonical.CTTL)
	dialects.WriteExtras(w, env, Name, cbase)
	w.Close()
	w.Close()
}

func (e *encoder) deadline() {
	d := e.env.Deadline
	switch {
	case d == "":
		return
	case e.own:
	default:
		v, ok := dateTime(d)
		if !ok {
			e.ctx.Lose(dialects.Dropped, canonical.CDeadline, canonical.CDeadline.String(), fmt.Sprintf("deadline %q is not a date-time; not written", d))
			return
		}
		d = v
	}
	e.w.Name("deadline")
	e.w.String(string(d))
}

// seconds writes the envelope's TTL as a number of seconds: exactly for an
// own envelope, else in whole seconds of at least 1.
func (e *encoder) seconds(key string, concept canonical.Concept) {
	ttl := e.env.TTL
	if !ttl.Set {
		return
	}
	e.w.Key(key)
	if e.own {
		if ttl.D%time.Second == 0 {
			e.w.Int(int64(ttl.D / time.Second))
		} else {
			e.w.Float(ttl.D.Seconds())
		}
		return
	}
	secs := int64(math.Ceil(ttl.D.Seconds()))
	n := max(secs, minTimeout)
	if n != secs || float64(secs) != ttl.D.Seconds() {
		e.approx(concept, fmt.Sprintf("%s holds whole seconds of at least %d; %s written as %d", key, minTimeout, ttl.D, n))
	}
	e.w.Int(n)
}
