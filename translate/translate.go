// Package translate turns a message of one dialect into a message of
// another: decode with the source codec, encode with the target's, and say
// what the target could not hold.
package translate

import (
	"fmt"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Auto asks Translate to detect the source dialect.
const Auto = "auto"

// Translator translates between the dialects of a registry, applying the
// rules of a mapping set on the way.
type Translator struct {
	Registry *dialects.Registry
	// Mappings are the aliases, operation names, act policies and
	// rewrites applied between decoding and encoding; nil applies none.
	Mappings *mappings.Set
}

// Options adjust one translation.
type Options struct {
	// Strict makes data the target cannot hold (dropped or approximated)
	// an error instead of a warning.
	Strict bool
	// Context supplies the clock and ids encoders use; nil means the real
	// clock and random ids.
	Context *dialects.EncodeContext
	// CanonicalIDs says the envelope's agent ids are canonical already
	// (the bridge resolves them where a message enters): only the target
	// dialect's aliases apply, not the source's.
	CanonicalIDs bool
	// Sender is the agent that sends the message when it names none, as
	// the source dialect names it: a fuse capability declaration document
	// names none, since the agent of its connection sends it. A message
	// that names another sender is a *SenderError.
	Sender string
}

// Result is a translated message.
type Result struct {
	// From and To are the source and target dialects.
	From, To string
	// Envelope is the message in canonical form.
	Envelope *canonical.Envelope
	// Output is the message in the target dialect.
	Output []byte
	// Losses are what the target could not hold, or held approximately,
	// and the required values it had to fill in.
	Losses []dialects.Loss
	// Dropped is set when a mapping's act policy drops the message: there
	// is no Output, and Losses say why.
	Dropped bool
}

// LossError is the error of a strict translation that lost data.
type LossError struct {
	From, To string
	Losses   []dialects.Loss
}

func (e *LossError) Error() string {
	parts := make([]string, 0, len(e.Losses))
	for _, l := range e.Losses {
		parts = append(parts, l.String())
	}
	return fmt.Sprintf("%s -> %s loses data: %s", e.From, e.To, strings.Join(parts, "; "))
}

// SenderError is the error of a message whose sender is not known as it
// must be: it names another sender than Options.Sender, or it is a
// capability declaration that names none, translated into a dialect that
// needs one (a declaration speaks for the agent that sends it).
type SenderError struct {
	From, To string
	// Named is the sender the message names; Given is Options.Sender.
	Named, Given string
}

func (e *SenderError) Error() string {
	if e.Named != "" {
		return fmt.Sprintf("%s: the message names its sender %q, not %q", e.From, e.Named, e.Given)
	}
	return fmt.Sprintf("%s -> %s: the capability declaration names no sender, and %s needs one: say which agent it declares", e.From, e.To, e.To)
}

// Codec returns the codec of a dialect, or an error naming the known ones.
func (t *Translator) Codec(name string) (dialects.Codec, error) {
	c, ok := t.Registry.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown dialect %q (known: %s)", name, strings.Join(t.Registry.Names(), ", "))
	}
	return c, nil
}

// Source returns the codec to decode msg with: from's, or the detected one
// when from is Auto.
func (t *Translator) Source(from string, msg []byte) (dialects.Codec, error) {
	if from == Auto {
		return t.Registry.Detect(msg)
	}
	return t.Codec(from)
}

// Translate decodes msg as from (or detects it) and encodes it as to,
// appending to dst. Like Decode, it takes ownership of msg, which must not
// overlap dst.
func (t *Translator) Translate(dst []byte, from, to string, msg []byte, opts Options) (Result, error) {
	src, err := t.Source(from, msg)
	if err != nil {
		return Result{}, err
	}
	dstCodec, err := t.Codec(to)
	if err != nil {
		return Result{}, err
	}
	env, err := src.Decode(msg)
	if err != nil {
		return Result{}, err
	}
	if opts.Sender != "" {
		switch env.Sender.ID {
		case "":
			env.Sender.ID = opts.Sender
		case opts.Sender:
		default:
			return Result{}, &SenderError{From: src.Name(), To: to, Named: env.Sender.ID, Given: opts.Sender}
		}
	}
	return t.encode(dst, src.Name(), dstCodec, env, opts)
}

// Encode writes env, decoded from the dialect from, as a message of the
// dialect to, applying the mapping stage first. It modifies env: callers
// that encode one envelope for several targets pass each a copy.
func (t *Translator) Encode(dst []byte, from, to string, env *canonical.Envelope, opts Options) (Result, error) {
	dstCodec, err := t.Codec(to)
	if err != nil {
		return Result{}, err
	}
	return t.encode(dst, from, dstCodec, env, opts)
}

func (t *Translator) encode(dst []byte, from string, dstCodec dialects.Codec, env *canonical.Envelope, opts Options) (Result, error) {
	to := dstCodec.Name()
	ctx := opts.Context
	if ctx == nil {
		ctx = &dialects.EncodeContext{}
	}
	ctx.Losses = ctx.Losses[:0]
	if t.Mappings != nil {
		drop, err := t.applyMappings(env, from, to, opts.CanonicalIDs, ctx)
		if err != nil {
			return Result{}, err
		}
		if drop {
			return Result{From: from, To: to, Envelope: env, Losses: ctx.Losses, Dropped: true}, nil
		}
	}
	out, err := dstCodec.Encode(dst, env, ctx)
	if err != nil {
		return Result{}, err
	}
	res := Result{From: from, To: to, Envelope: env, Output: out, Losses: ctx.Losses}
	if env.Act == canonical.ActInformCapabilities && env.Sender.ID == "" && filled(res.Losses, canonical.CSender) {
		// A stand-in would declare the tools of an agent "unknown".
		return Result{}, &SenderError{From: from, To: to}
	}
	if t.Mappings != nil {
		suggestAliases(res.Losses, to)
	}
	if opts.Strict {
		var lost []dialects.Loss
		for _, l := range res.Losses {
			if l.Kind != dialects.Filled {
				lost = append(lost, l)
			}
		}
		if len(lost) > 0 {
			return res, &LossError{From: res.From, To: to, Losses: lost}
		}
	}
	return res, nil
}

// filled reports whether an encoder wrote a stand-in for concept.
func filled(losses []dialects.Loss, concept canonical.Concept) bool {
	for _, l := range losses {
		if l.Kind == dialects.Filled && l.Concept == concept {
			return true
		}
	}
	return false
}

// suggestAliases adds to each agent id the target had to rewrite the alias
// entry that would name the agent there instead.
func suggestAliases(losses []dialects.Loss, to string) {
	for i := range losses {
		l := &losses[i]
		if l.Concept != canonical.CSender && l.Concept != canonical.CReceiver {
			continue
		}
		if from, as, ok := l.Rewritten(); ok {
			l.Hint = fmt.Sprintf("to choose the id yourself, add to a mapping file: aliases: {%s: {%q: %q}}", to, from, as)
		}
	}
}
