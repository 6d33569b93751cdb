package fuse

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// full returns an envelope of act holding every concept.
func full(act canonical.Act) *canonical.Envelope {
	f := false
	return &canonical.Envelope{
		Origin:         canonical.Origin{Dialect: "elsewhere"},
		ID:             "m-1",
		Act:            act,
		Sender:         canonical.Party{ID: "agent-a", Name: "Agent A"},
		Receiver:       canonical.Address{Kind: canonical.AddressAgent, ID: "agent-b", Name: "Agent B"},
		InReplyTo:      "m-0",
		ReplyWith:      "rw-1",
		CorrelationID:  "corr-1",
		ConversationID: "conv-1",
		SessionID:      "sess-1",
		TaskID:         "task-1",
		Time:           "2026-01-02T03:04:05Z",
		Priority:       canonical.PriorityHigh,
		Deadline:       "2026-01-03T00:00:00Z",
		TTL:            canonical.Dur(30e9),
		Trace:          canonical.Trace{TraceID: "t", SpanID: "s", ParentSpanID: "p"},
		Language:       "en",
		Ontology:       "o",
		Operation:      canonical.Operation{Capability: "math", Name: "calculate"},
		Description:    "d",
		Arguments:      `{"x":1}`,
		Result:         `{"y":2}`,
		Outcome:        canonical.OutcomeSuccess,
		Error: &canonical.Error{Code: canonical.DefaultErrorCode(act), Message: "m", Retryable: &f,
			RetryAfter: canonical.Dur(1e9), Details: `{"d":1}`, SuggestedActions: `["retry"]`},
		Capabilities:   &canonical.Capabilities{Tools: []canonical.Tool{{Name: "calculate", Capability: "math"}}},
		Inputs:         `[{"id":"x"}]`,
		Context:        `{"c":1}`,
		Metadata:       `{"m":1}`,
		Authentication: `{"type":"jwt","token":"x"}`,
		Extensions:     `[{"name":"e"}]`,
		Extra:          []canonical.Field{{Dialect: Name, Key: "x-fuse", Value: `1`}},
	}
}

// TestHolds checks that every concept holds lists for an act survives an
// encode and decode, and that every other concept is reported as dropped.
func TestHolds(t *testing.T) {
	c := New(mappings.MustDefaults().Vocabulary(Name))
	for _, act := range canonical.Acts {
		env := full(act)
		if act.IsError() {
			env.Outcome = canonical.OutcomeFailure
		}
		ctx := dialecttest.EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			if act != canonical.ActAccept && act != canonical.ActNeedsInput {
				t.Errorf("%s: %v", act, err)
			}
			continue
		}
		back, err := c.Decode(out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", act, err, out)
		}
		h := holds(act)
		dropped := map[canonical.Concept]bool{}
		for _, l := range ctx.Losses {
			if l.Kind == dialects.Dropped && l.Concept != canonical.CExtra {
				dropped[l.Concept] = true
			}
		}
		for _, cn := range canonical.Concepts {
			if h.Has(cn) && !back.Has(cn) {
				t.Errorf("%s: holds %s but it does not come back\n%s", act, cn, out)
			}
			if !h.Has(cn) && cn != canonical.CExtra && !dropped[cn] {
				t.Errorf("%s: %s is not held and not reported dropped", act, cn)
			}
			if h.Has(cn) && dropped[cn] && cn != canonical.CAct {
				t.Errorf("%s: %s is held but reported dropped", act, cn)
			}
		}
	}
}
