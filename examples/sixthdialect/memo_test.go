package sixthdialect_test

import (
	_ "embed"
	"strconv"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
)

// This file is the whole of memo, written as a dialect package would be:
// its codec, and its record registered from init. memo is a flat JSON
// message: {"memo": "ask", "id", "from", "to", "op", "args"}, answered by
// "answer" (re, result) or "fail" (re, code, text); an agent introduces
// itself with "hello" (tools).

// memoName is the dialect's name.
const memoName = "memo"

var (
	//go:embed testdata/schema.json
	memoSchema []byte
	//go:embed testdata/mapping.yaml
	memoMapping []byte
	//go:embed testdata/conformance.yaml
	memoRequirements []byte
)

func init() {
	dialects.Register(dialects.Record{
		Name:    memoName,
		Summary: "the registry's throwaway test dialect: ask, answer, fail, hello",
		Spec:    "examples/sixthdialect/doc.go",
		New: func(v *mappings.Vocabulary) dialects.Codec {
			return &memo{Base: dialects.NewBase(memoName, memoSchema, v)}
		},
		Mapping:      memoMapping,
		Requirements: memoRequirements,
		Load: dialects.LoadPaths{Type: "memo", Request: "ask", Sender: "from", ID: "id",
			Arguments: "args", Correlation: []string{"re"}},
	})
}

// memo reads and writes memo messages.
type memo struct {
	dialects.Base
}

// Holds says which concepts a memo message of each act can carry.
func (c *memo) Holds(act canonical.Act) canonical.ConceptSet {
	s := canonical.SetOf(canonical.CID, canonical.CAct, canonical.CSender, canonical.CReceiver, canonical.CExtra)
	switch act {
	case canonical.ActRequest, canonical.ActQueryIf, canonical.ActQueryRef:
		s = s.With(canonical.COperation, canonical.CArguments)
	case canonical.ActResult:
		s = s.With(canonical.CInReplyTo, canonical.CResult)
	case canonical.ActFailure, canonical.ActRefuse, canonical.ActNotUnderstood:
		s = s.With(canonical.CInReplyTo, canonical.CErrorCode, canonical.CErrorMessage)
	case canonical.ActInformCapabilities:
		s = s.With(canonical.CCapabilities)
	}
	return s
}

// Detect scores msg as memo: a "memo" member holding one of its words.
func (c *memo) Detect(msg []byte) int {
	v := gjson.GetBytes(msg, "memo")
	if v.Type != gjson.String {
		return 0
	}
	if _, ok := c.Acts.Canonical(v.Str); ok {
		return 3
	}
	return 1
}

// Validate checks msg against memo's schema.
func (c *memo) Validate(msg []byte) []dialects.Problem {
	if _, rules, ok := dialects.CheckRules(msg); !ok {
		return rules.List
	}
	return c.CheckSchema(msg)
}

// Decode reads one memo message.
func (c *memo) Decode(msg []byte) (*canonical.Envelope, error) {
	root, err := c.Read.Parse(msg)
	if err != nil {
		return nil, err
	}
	env := &canonical.Envelope{Origin: canonical.Origin{Dialect: memoName}}
	var word string
	// text reads a string member into dst; an empty one is kept as it is.
	text := func(key string, v gjson.Result, dst *string) {
		if *dst, err = c.Read.String(key, v, false); err == nil && *dst == "" {
			dialects.Keep(env, memoName, "", key, v.Raw)
		}
	}
	failure := func() *canonical.Error {
		if env.Error == nil {
			env.Error = &canonical.Error{}
		}
		return env.Error
	}
	root.ForEach(func(k, v gjson.Result) bool {
		key := dialects.Key(k)
		switch key {
		case "memo":
			word, err = c.Read.String(key, v, false)
		case "id":
			text(key, v, &env.ID)
		case "from":
			text(key, v, &env.Sender.ID)
		case "to":
			env.Receiver.Kind = canonical.AddressAgent
			env.Receiver.ID, err = c.Read.String(key, v, false)
		case "re":
			text(key, v, &env.InReplyTo)
		case "op":
			text(key, v, &env.Operation.Name)
		case "args":
			env.Arguments = canonical.JSON(v.Raw)
		case "result":
			env.Result = canonical.JSON(v.Raw)
		case "code":
			var w string
			if w, err = c.Read.String(key, v, false); err == nil {
				code, ok := c.Errors.Canonical(w)
				if !ok {
					err = c.Read.Errorf(key, "%q is not a memo error code", w)
				}
				failure().Code = canonical.ErrorCode(code)
			}
		case "text":
			failure().Message, err = c.Read.String(key, v, false)
		case "tools":
			err = c.decodeTools(env, v)
		default:
			dialects.Keep(env, memoName, "", key, v.Raw)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if word == "" {
		return nil, c.Read.Errorf("memo", "missing: the message's kind (ask, answer, fail or hello)")
	}
	act, ok := c.Acts.Canonical(word)
	if !ok {
		return nil, c.Read.Errorf("memo", "%q is not a memo kind (ask, answer, fail or hello)", word)
	}
	env.Act = canonical.Act(act)
	return env, nil
}

// decodeTools reads hello's tools; the array is kept as written, for
// another memo message.
func (c *memo) decodeTools(env *canonical.Envelope, v gjson.Result) error {
	if err := c.Read.Array("tools", v); err != nil {
		return err
	}
	caps := &canonical.Capabilities{Raw: canonical.JSON(v.Raw), Dialect: memoName}
	var err error
	i := 0
	v.ForEach(func(_, t gjson.Result) bool {
		at := dialects.Join("tools", strconv.Itoa(i))
		i++
		if err = c.Read.Object(at, t); err != nil {
			return false
		}
		var tool canonical.Tool
		if tool.Name, err = c.Read.String(dialects.Join(at, "name"), t.Get("name"), false); err != nil {
			return false
		}
		if d := t.Get("description"); d.Exists() {
			if tool.Description, err = c.Read.String(dialects.Join(at, "description"), d, false); err != nil {
				return false
			}
		}
		if s := t.Get("input_schema"); s.Exists() {
			tool.InputSchema = canonical.JSON(s.Raw)
		}
		caps.Tools = append(caps.Tools, tool)
		return true
	})
	env.Capabilities = caps
	return err
}

// Encode appends env as a memo message.
func (c *memo) Encode(dst []byte, env *canonical.Envelope, ctx *dialects.EncodeContext) ([]byte, error) {
	word, ok := dialects.Word(ctx, env, memoName, c.Acts, string(env.Act), canonical.CAct)
	if !ok {
		return nil, c.Read.Errorf("", "memo has no word for the act %s", env.Act)
	}
	holds := c.Holds(env.Act)
	dialects.ReportLosses(ctx, env, memoName, holds)
	w := jsonw.New(dst)
	w.Open()
	w.StringField("memo", word)
	id := env.ID
	if id == "" {
		id = ctx.ID()
		ctx.Fill(canonical.CID, "id", id)
	}
	w.StringField("id", id)
	w.StringField("from", env.Sender.ID)
	switch env.Receiver.Kind {
	case canonical.AddressAgent:
		w.Key("to")
		w.String(env.Receiver.ID)
	case canonical.AddressTopic, canonical.AddressBroadcast:
		ctx.Lose(dialects.Dropped, canonical.CReceiver, "to", "memo sends to one agent: it has no topics and no broadcast")
	}
	if holds.Has(canonical.CInReplyTo) {
		w.StringField("re", env.InReplyTo)
	}
	if holds.Has(canonical.COperation) {
		w.StringField("op", env.Operation.Name)
		w.RawField("args", string(env.Arguments))
	}
	if holds.Has(canonical.CResult) {
		w.RawField("result", string(env.Result))
	}
	if holds.Has(canonical.CErrorCode) && env.Error != nil {
		if env.Error.Code != "" {
			code, _ := dialects.Word(ctx, env, memoName, c.Errors, string(env.Error.Code), canonical.CErrorCode)
			w.StringField("code", code)
		}
		w.StringField("text", env.Error.Message)
	}
	if holds.Has(canonical.CCapabilities) && env.Capabilities != nil {
		c.encodeTools(&w, env.Capabilities)
	}
	dialects.WriteExtras(&w, env, memoName, "")
	w.Close()
	return w.Buf, nil
}

// encodeTools writes hello's tools: as read, for a memo declaration.
func (c *memo) encodeTools(w *jsonw.Writer, caps *canonical.Capabilities) {
	if caps.Dialect == memoName && caps.Raw != "" {
		w.RawField("tools", string(caps.Raw))
		return
	}
	w.Key("tools")
	w.OpenArray()
	for _, t := range caps.Tools {
		w.Open()
		w.StringField("name", t.Name)
		w.StringField("description", t.Description)
		w.RawField("input_schema", string(t.InputSchema))
		w.Close()
	}
	w.CloseArray()
}
