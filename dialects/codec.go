package dialects

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// Decoder turns one message of a dialect into a canonical envelope.
type Decoder interface {
	// Decode reads one message. It fails on malformed JSON, on known
	// fields of the wrong type and on words the dialect's vocabulary does
	// not have; the error is an *Error. It does not check required fields:
	// Validate does.
	//
	// Decode takes ownership of msg: the envelope's raw JSON and strings
	// share its memory (no copy is made), so the caller must not modify
	// msg afterwards. A caller that reuses its read buffer passes a copy.
	Decode(msg []byte) (*canonical.Envelope, error)
}

// RootDecoder is a Decoder that can also decode a message from its parsed
// root object, for a caller that has already checked it (DecodeValid).
type RootDecoder interface {
	// DecodeRoot decodes the message whose root is root, a JSON object
	// read from text in UTF-8; it fails as Decode does, but for the
	// check of that text.
	DecodeRoot(root gjson.Result) (*canonical.Envelope, error)
}

// DecodeValid decodes msg, which c's Validate has found nothing wrong with,
// and so which is JSON text in UTF-8: with a RootDecoder it does not check
// that again. Otherwise, and for anything but an object, it is c.Decode.
func DecodeValid(c Codec, msg []byte) (*canonical.Envelope, error) {
	if rd, ok := c.(RootDecoder); ok {
		if root := parseInPlace(msg); root.IsObject() {
			return rd.DecodeRoot(root)
		}
	}
	return c.Decode(msg)
}

// DocValidator is a codec whose Validate can hand over the message as it
// read it, for its DocDecoder to decode without parsing it again.
type DocValidator interface {
	// ValidateDoc is Validate that also returns, when it finds nothing
	// wrong, the message as it read it (Base.StartDoc); nil otherwise.
	// The caller releases the Doc.
	ValidateDoc(msg []byte) ([]Problem, *Doc)
}

// DocDecoder is a Decoder that can also decode a message from the Doc its
// codec's ValidateDoc read.
type DocDecoder interface {
	// DecodeDoc decodes the message d holds, whose root is a JSON object,
	// as DecodeRoot decodes its root.
	DecodeDoc(d *Doc) (*canonical.Envelope, error)
}

// ValidateDecode validates msg with c and, when c finds nothing wrong,
// decodes it as DecodeValid does, reading it once where c can
// (DocValidator and DocDecoder). It returns the problems, or the envelope
// and the decoder's error.
func ValidateDecode(c Codec, msg []byte) ([]Problem, *canonical.Envelope, error) {
	dv, validates := c.(DocValidator)
	dd, decodes := c.(DocDecoder)
	if !validates || !decodes {
		if problems := c.Validate(msg); len(problems) > 0 {
			return problems, nil, nil
		}
		env, err := DecodeValid(c, msg)
		return nil, env, err
	}
	problems, d := dv.ValidateDoc(msg)
	defer d.Release()
	if len(problems) > 0 {
		return problems, nil, nil
	}
	if !d.Root().IsObject() {
		env, err := c.Decode(msg)
		return nil, env, err
	}
	env, err := dd.DecodeDoc(d)
	return nil, env, err
}

// Encoder writes a canonical envelope as one message of a dialect.
type Encoder interface {
	// Encode appends the message to dst. What the dialect cannot hold is
	// reported through ctx.Lose; an envelope the dialect cannot express at
	// all (an act it has no word for) is an error.
	Encode(dst []byte, env *canonical.Envelope, ctx *EncodeContext) ([]byte, error)
}

// Detector tells whether a message looks like a dialect's.
type Detector interface {
	// Detect scores how surely msg is of this dialect: 0 is not at all,
	// higher is surer. msg is known to be valid JSON.
	Detect(msg []byte) int
}

// Validator checks a message against the dialect's schema and rules.
type Validator interface {
	// Validate returns every problem found; none means valid.
	Validate(msg []byte) []Problem
	// Schema returns the dialect's JSON Schema (draft 2020-12).
	Schema() []byte
}

// Codec is a dialect: its name, the four abilities above, and what its
// messages can carry.
type Codec interface {
	Name() string
	Decoder
	Encoder
	Detector
	Validator
	// Holds returns the concepts a message of act can carry; Encode
	// reports the others as dropped.
	Holds(act canonical.Act) canonical.ConceptSet
}

// TwoLevel reports whether c's requests name their operation in two
// levels, a capability and an action (fuse): mapping files and the
// reference agent then write an operation name "capability/action".
func TwoLevel(c Codec) bool {
	return c.Holds(canonical.ActRequest).Has(canonical.CCapability)
}

// NamesSender reports whether c's requests name their sender. Those of a
// dialect whose frames name no agent (a2a: the connection says who talks)
// get their sender from the connection they arrive on.
func NamesSender(c Codec) bool {
	return c.Holds(canonical.ActRequest).Has(canonical.CSender)
}

// EncodeContext carries what an encoder may need beyond the envelope, and
// collects what it could not write.
type EncodeContext struct {
	// Refusal says the envelope is the bridge's refusal of a message it
	// could not take (no agent got it): a dialect that answers those apart
	// from an agent's failure writes it so (a2a: a JSON-RPC error, no task).
	Refusal bool
	// Now gives the time for timestamps an encoder must create.
	Now func() time.Time
	// NewID gives ids an encoder must create (a dialect that requires a
	// message id, when the envelope has none).
	NewID func() string
	// Losses are appended to by the encoder.
	Losses []Loss
}

// Time returns the current time by ctx.Now, or the clock when unset.
func (c *EncodeContext) Time() time.Time {
	if c != nil && c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// ID returns a new id by ctx.NewID, or a random UUID when unset.
func (c *EncodeContext) ID() string {
	if c != nil && c.NewID != nil {
		return c.NewID()
	}
	return uuid.NewString()
}

// Lose records that concept could not be written as it was.
func (c *EncodeContext) Lose(kind LossKind, concept canonical.Concept, path, detail string) {
	if c != nil {
		c.Losses = append(c.Losses, Loss{Kind: kind, Concept: concept, Path: path, Detail: detail})
	}
}

// Fill records that the target requires concept, the envelope has none, and
// the encoder wrote value in its place.
func (c *EncodeContext) Fill(concept canonical.Concept, field, value string) {
	if c != nil {
		c.Losses = append(c.Losses, Loss{Kind: Filled, Concept: concept, Path: field, tmpl: tmplFill, to: value})
	}
}

// Rewrite records that the value from, written at field, had to become to
// because it breaks the target's rule why ("is not a bluelabel id").
func (c *EncodeContext) Rewrite(concept canonical.Concept, field, from, to, why string) {
	if c != nil {
		c.Losses = append(c.Losses, Loss{Kind: Approximated, Concept: concept, Path: field, tmpl: tmplRewrite, from: from, to: to, why: why})
	}
}

// LossKind says how data was lost.
type LossKind uint8

// The kinds of Loss.
const (
	// Dropped: the target has no place for the data.
	Dropped LossKind = iota
	// Approximated: the target holds the concept but not this value; the
	// nearest value it has was written.
	Approximated
	// Filled: the target requires a value the envelope lacks; a stand-in
	// was written.
	Filled
)

func (k LossKind) String() string {
	switch k {
	case Approximated:
		return "approximated"
	case Filled:
		return "filled"
	}
	return "dropped"
}

// Loss is data of an envelope that an encoder could not carry, or carried
// only approximately.
type Loss struct {
	Kind LossKind
	// Concept is what was lost.
	Concept canonical.Concept
	// Path names the field: the target's field for what was filled or
	// rewritten, the member's path in the source for a CExtra member, and
	// otherwise the concept's name.
	Path string
	// Detail says what happened, with the value; Message renders it.
	Detail string
	// Hint says how to avoid the loss, when there is a way (not part of
	// Message).
	Hint string

	// Losses are reported on most translations, so their text is only made
	// when asked for, from these.
	tmpl          uint8
	env           *canonical.Envelope
	field         *canonical.Field
	target        string
	from, to, why string
}

// The lazily rendered loss texts.
const (
	tmplDetail = iota
	tmplDropped
	tmplApprox
	tmplFill
	tmplRewrite
)

// Rewritten returns the value a Rewrite loss had to change, and what it
// became.
func (l Loss) Rewritten() (from, to string, ok bool) {
	return l.from, l.to, l.tmpl == tmplRewrite
}

// Message says what happened to the data, with its value.
func (l Loss) Message() string {
	switch {
	case l.Detail != "":
		return l.Detail
	case l.tmpl == tmplFill:
		return fmt.Sprintf("required %s is absent; wrote %q", l.Path, l.to)
	case l.tmpl == tmplApprox:
		return fmt.Sprintf("%s cannot write %s %s as it is; wrote %s", l.target, l.Concept, l.from, l.to)
	case l.tmpl == tmplRewrite:
		return fmt.Sprintf("%q %s; wrote %q", l.from, l.why, l.to)
	case l.field != nil:
		return fmt.Sprintf("%s has no place for %s member %s = %s", l.target, l.field.Dialect, l.field.Path(), clip(string(l.field.Value)))
	case l.env != nil:
		return fmt.Sprintf("%s has no place for %s %s (act %s)", l.target, l.Concept, l.env.Describe(l.Concept), l.env.Act)
	}
	return ""
}

func (l Loss) String() string {
	return fmt.Sprintf("%s %s: %s", l.Kind, l.Path, l.Message())
}
