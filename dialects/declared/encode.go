package declared

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Encode appends env as a message of the dialect to dst, in one pass: the
// declared paths in declaration order, nested objects grouped by prefix,
// detection marks with their values, extra members back at their parents.
// A message decoded from the dialect is written back as it was; one from
// another dialect gets stand-ins, reported as filled, for the required
// members it lacks.
func (c *Codec) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	e := encoder{c: c, env: env, ctx: ctx, own: env.Origin.Dialect == c.Name()}
	act, ok := dialects.Word(ctx, env, c.Name(), c.act.table, string(env.Act), canonical.CAct)
	if !ok {
		return dst, dialects.Errorf(c.Name(), "", "cannot express act %q: %s has no word for it (words: %s)", env.Act, c.Name(), strings.Join(c.act.table.Words(), ", "))
	}
	e.actWord = act
	dialects.ReportLosses(ctx, env, c.Name(), c.holds)
	if e.own && env.Origin.Form != "" {
		e.absent = strings.Split(env.Origin.Form, ",")
	}
	e.w = jsonw.New(dst)
	e.w.Open()
	e.members(c.root)
	dialects.WriteExtras(&e.w, env, c.Name(), "")
	e.w.Close()
	return e.w.Buf, nil
}

// encoder writes one envelope.
type encoder struct {
	c   *Codec
	env *canonical.Envelope
	ctx *dialects.EncodeContext
	w   jsonw.Writer
	// own says the envelope came from this dialect: it is written back as
	// it was, with no stand-ins.
	own bool
	// absent are the marks the source message lacked.
	absent  []string
	actWord string
}

// members writes the declared members of the object at n; wrote says
// whether it wrote any.
func (e *encoder) members(n *node) (wrote bool) {
	w := &e.w
	for _, child := range n.children {
		switch {
		case child.mark != nil:
			if e.own && slices.Contains(e.absent, child.path) {
				continue
			}
			w.Key(child.key)
			w.String(child.mark.value)
			wrote = true
		case child.field != nil:
			wrote = e.field(child.key, child.field) || wrote
		default:
			// An object is written only when something goes in it.
			saved := *w
			w.Key(child.key)
			w.Open()
			inner := e.members(child)
			if !inner && !dialects.HasExtras(e.env, e.c.Name(), child.path) {
				*w = saved
				continue
			}
			dialects.WriteExtras(w, e.env, e.c.Name(), child.path)
			w.Close()
			wrote = true
		}
	}
	return wrote
}

// field writes f as member key, when the envelope has its concept or the
// message must have it; wrote says whether it did.
func (e *encoder) field(key string, f *field) (wrote bool) {
	w, env := &e.w, e.env
	switch f.kind {
	case mappings.KindWord:
		word := e.wordValue(f)
		if word == "" {
			return false
		}
		w.Key(key)
		w.String(word)
	case mappings.KindRaw:
		v := raw(env, f.concept)
		if v == "" {
			if !e.mustFill(f) {
				return false
			}
			v = "{}"
			e.ctx.Fill(f.concept, f.path, string(v))
		}
		w.Key(key)
		w.Raw(string(v))
	case mappings.KindMilli:
		if !env.TTL.Set {
			if !e.mustFill(f) {
				return false
			}
			e.ctx.Fill(f.concept, f.path, "0")
		}
		w.Key(key)
		w.Raw(string(e.millis(f, env.TTL.D)))
	default:
		s := e.textValue(f)
		if s == "" {
			return false
		}
		w.Key(key)
		w.String(s)
	}
	return true
}

// millis returns the number of milliseconds to write for d. A duration
// from another dialect that the dialect's number cannot hold (below 0,
// beyond maxMillis, or too fine to read back) becomes the nearest whole
// number of milliseconds it can, reported as approximated.
func (e *encoder) millis(f *field, d time.Duration) []byte {
	text := appendMillis(nil, d)
	if e.own {
		return text
	}
	ms, err := strconv.ParseFloat(string(text), 64)
	if back, ok := millis(ms); err == nil && ok && back.D == d {
		return text
	}
	n := min(max(d.Round(time.Millisecond)/time.Millisecond, 0), time.Duration(maxMillis))
	text = strconv.AppendInt(nil, int64(n), 10)
	dialects.Approximate(e.ctx, f.concept, e.c.Name(), d.String(), string(text)+" ms")
	return text
}

// mustFill reports whether f lacks a value the message must have: the
// envelope is from another dialect and f is required.
func (e *encoder) mustFill(f *field) bool { return !e.own && f.fill }

// textValue returns the text to write for f; "" writes nothing.
func (e *encoder) textValue(f *field) string {
	s := text(e.env, f.concept)
	if s == "" && e.mustFill(f) {
		switch f.concept {
		case canonical.CID:
			s = e.ctx.ID()
		case canonical.CTime, canonical.CDeadline:
			s = string(canonical.NewTimestamp(e.ctx.Time()))
		default:
			s = "unknown"
		}
		e.ctx.Fill(f.concept, f.path, s)
		return s
	}
	if r := e.env.Receiver; f.concept == canonical.CReceiver && r.Kind == canonical.AddressAgent && !e.own && (r.ID == broadcast || strings.HasPrefix(r.ID, topicPrefix)) {
		// An agent id that reads as a broadcast or a topic.
		e.ctx.Lose(dialects.Approximated, canonical.CReceiver, f.path, fmt.Sprintf("agent id %q reads as %s in %s", r.ID, readsAs(r.ID), e.c.Name()))
	}
	return s
}

func readsAs(id string) string {
	if id == broadcast {
		return "a broadcast"
	}
	return "a topic"
}

// wordValue returns the word to write for f; "" writes nothing.
func (e *encoder) wordValue(f *field) string {
	env := e.env
	var value string
	switch f.concept {
	case canonical.CAct:
		return e.actWord
	case canonical.CPriority:
		value = env.Priority.String()
	case canonical.COutcome:
		value = string(env.Outcome)
	case canonical.CErrorCode:
		if env.Error != nil {
			value = string(env.Error.Code)
			if w := env.Origin.Words.Get(canonical.KindError); value == "" && w != "" {
				return w // a word with no canonical meaning travels as it is
			}
		}
	}
	if value != "" {
		return e.word(f, value)
	}
	if !e.mustFill(f) {
		return ""
	}
	w := fillWord(f.table, env.Act)
	e.ctx.Fill(f.concept, f.path, w)
	return w
}
