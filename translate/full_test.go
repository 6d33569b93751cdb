package translate_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	c "github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// TestFullEnvelopes is the property behind "never emit a message the
// dialect's own schema rejects": an envelope of every act with every
// concept populated (dialecttest.FullEnvelope), as it comes from each
// source (another dialect's codec, or each dialect's own: the full envelope
// written in that dialect and decoded again), encoded through the default
// mappings into every dialect (the five built-ins and the declared hook of
// examples/hook.yaml). Each encode is either refused with an error naming
// the target (or, for a capability declaration naming no sender, a
// *translate.SenderError), or writes a message that passes the target's
// Validate; and every concept the source held either comes back from the
// output with its value or is reported as a loss.
func TestFullEnvelopes(t *testing.T) {
	m := dialects.DefaultMappings()
	hook, err := os.ReadFile(filepath.Join("..", "examples", "hook.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add("hook.yaml", hook); err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	tr := &translate.Translator{Registry: reg, Mappings: m}
	sources := append([]string{"other"}, reg.Names()...)
	for variant, build := range fullVariants {
		for _, act := range c.Acts {
			for _, from := range sources {
				for _, to := range reg.Names() {
					// Each translation gets its own envelope: the
					// mapping stage edits it.
					env := build(act)
					if from != "other" {
						if env = inDialect(t, tr, from, env); env == nil {
							break // the source has no message for the act
						}
					}
					t.Run(variant+"/"+string(act)+"/"+from+"_to_"+to, func(t *testing.T) {
						checkFull(t, tr, from, to, env)
					})
				}
			}
		}
	}
}

// fullVariants build an envelope holding every concept, for an act: as
// dialecttest.FullEnvelope has them, and with values a target must bend to
// hold (odd ids, a topic, out-of-range numbers, raw values of other types
// than objects, texts past the dialects' limits).
var fullVariants = map[string]func(c.Act) *c.Envelope{
	"plain": dialecttest.FullEnvelope,
	"awkward": func(act c.Act) *c.Envelope {
		env := dialecttest.FullEnvelope(act)
		env.Sender = c.Party{ID: "agent one.x", Name: "Agent \u00e9"}
		env.Receiver = c.Address{Kind: c.AddressTopic, ID: "news.tech"}
		env.TaskID = strings.Repeat("t", 80)
		env.Time = "YYYY-MM-DDTHH:MM:SSZ"
		env.Deadline = "soon"
		env.Priority = c.PriorityCritical
		env.TTL = c.Dur(1500 * time.Millisecond)
		env.Description = strings.Repeat("d\u00e9 ", 400)
		env.Operation = c.Operation{Capability: "cap.x"}
		env.Arguments = `[1,2]`
		env.Result = `"ok"`
		env.Context = `"text"`
		env.Metadata = `[1]`
		env.Authentication = `"tok"`
		env.Extensions = `{"a":1}`
		env.Inputs = `[{"id":1},"why?"]`
		env.Error.Details = `"x"`
		env.Error.SuggestedActions = `[1,{"a":2}]`
		env.Error.Code = c.ErrRateLimited
		env.Capabilities.Tools = append(env.Capabilities.Tools, c.Tool{Name: "raw",
			InputSchema: `{"type":"object","properties":{"a":{"type":["string","null"]}},"additionalProperties":false}`})
		if act == c.ActResult {
			env.Outcome = c.OutcomePartial
		}
		return env
	},
	"sparse": func(act c.Act) *c.Envelope {
		env := dialecttest.FullEnvelope(act)
		env.ID, env.Time, env.TaskID = "", "", ""
		env.InReplyTo, env.ReplyWith, env.CorrelationID = "", "", ""
		env.Receiver = c.Address{Kind: c.AddressBroadcast}
		env.Sender = c.Party{}
		env.Operation = c.Operation{}
		env.Outcome = ""
		env.Error = &c.Error{}
		env.Capabilities = &c.Capabilities{}
		return env
	},
}

// inDialect returns env as a message of dialect d would carry it: written
// in d and decoded again. It is nil when d cannot express env's act.
func inDialect(t *testing.T, tr *translate.Translator, d string, env *c.Envelope) *c.Envelope {
	t.Helper()
	res, err := tr.Encode(nil, "other", d, env, translate.Options{Context: dialecttest.EncodeContext()})
	if err != nil || res.Dropped {
		return nil
	}
	codec, _ := tr.Codec(d)
	back, err := codec.Decode(res.Output)
	if err != nil {
		t.Fatalf("%s: its own output does not decode: %v\n%s", d, err, res.Output)
	}
	return back
}

func checkFull(t *testing.T, tr *translate.Translator, from, to string, env *c.Envelope) {
	dst, _ := tr.Codec(to)
	res, err := tr.Encode(nil, from, to, env, translate.Options{Context: dialecttest.EncodeContext()})
	if err != nil {
		var de *dialects.Error
		var se *translate.SenderError
		switch {
		case errors.As(err, &se):
			if env.Act != c.ActInformCapabilities || env.Sender.ID != "" || se.To != to {
				t.Fatalf("refused for its sender: %v", err)
			}
		case !errors.As(err, &de) || de.Dialect != to:
			t.Fatalf("refusal does not name %s: %v", to, err)
		}
		return
	}
	if res.Dropped {
		if len(res.Losses) == 0 {
			t.Fatal("dropped by the mappings with no loss saying so")
		}
		return
	}
	if p := dst.Validate(res.Output); len(p) != 0 {
		t.Fatalf("output does not pass %s's Validate: %v\n%s", to, p, res.Output)
	}
	back, err := dst.Decode(res.Output)
	if err != nil {
		t.Fatalf("output does not decode: %v\n%s", err, res.Output)
	}
	touched := map[c.Concept]bool{}
	extras := map[string]bool{}
	for _, l := range res.Losses {
		touched[l.Concept] = true
		if l.Concept == c.CExtra {
			extras[l.Path] = true
		}
	}
	own := from == to
	for _, cc := range env.Present() {
		switch {
		case cc == c.CExtra:
			for _, f := range env.Extra {
				if !own && !extras[f.Path()] {
					t.Errorf("extra member %s of %s is neither written nor reported", f.Path(), f.Dialect)
				}
			}
		case touched[cc]:
		case !back.Has(cc):
			t.Errorf("%s is lost and no loss says so\n%s", cc, res.Output)
		case touched[c.CAct] && back.Act != env.Act:
			// Written as another act: the act loss covers how its
			// concepts read back.
		default:
			if a, b := dialecttest.ConceptValue(env, cc), dialecttest.ConceptValue(back, cc); a != b {
				t.Errorf("%s changed from %s to %s and no loss says so\n%s", cc, a, b, res.Output)
			}
		}
	}
}
