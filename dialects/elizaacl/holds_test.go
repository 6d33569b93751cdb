package elizaacl

import (
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// full returns an envelope of another dialect holding every concept.
func full(act canonical.Act) *canonical.Envelope {
	yes := true
	return &canonical.Envelope{
		Origin:         canonical.Origin{Dialect: "other"},
		ID:             "m-1",
		Act:            act,
		Sender:         canonical.Party{ID: "a", Name: "A"},
		Receiver:       canonical.Address{Kind: canonical.AddressAgent, ID: "b", Name: "B"},
		InReplyTo:      "m-0",
		ReplyWith:      "r-1",
		CorrelationID:  "c-1",
		ConversationID: "conv-1",
		SessionID:      "s-1",
		TaskID:         "t-1",
		Time:           "2026-01-02T03:04:05Z",
		Priority:       canonical.PriorityHigh,
		Deadline:       "2026-01-03T00:00:00Z",
		TTL:            canonical.Dur(time.Minute),
		Trace:          canonical.Trace{TraceID: "tr", SpanID: "sp", ParentSpanID: "pa"},
		Language:       "en",
		Ontology:       "o",
		Operation:      canonical.Operation{Capability: "cap", Name: "op"},
		Description:    "d",
		Arguments:      `{"x":1}`,
		Result:         `{"y":2}`,
		Outcome:        canonical.OutcomeSuccess,
		Error: &canonical.Error{Code: canonical.ErrTimeout, Message: "m", Retryable: &yes,
			RetryAfter: canonical.Dur(time.Second), Details: `{}`, SuggestedActions: `[]`},
		Capabilities:   &canonical.Capabilities{Tools: []canonical.Tool{{Name: "t"}}, Topics: []string{"p"}},
		Inputs:         `[]`,
		Context:        `{}`,
		Metadata:       `{}`,
		Authentication: `{}`,
		Extensions:     `{}`,
		Extra:          []canonical.Field{{Dialect: "other", Key: "k", Value: `1`}},
	}
}

// TestHolds checks holds against what the encoder really writes: every held
// concept of a full envelope comes back when the message is decoded, no
// other concept does, and each concept not held is reported lost.
func TestHolds(t *testing.T) {
	c := New(mappings.MustDefaults().Vocabulary(Name))
	for _, act := range canonical.Acts {
		env := full(act)
		ctx := &dialects.EncodeContext{}
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			if act != canonical.ActEvent && act != canonical.ActNeedsInput {
				t.Errorf("%s: %v", act, err)
			}
			continue
		}
		back, err := c.Decode(out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", act, err, out)
		}
		h := holds(act)
		for _, k := range canonical.Concepts {
			if k == canonical.CExtra {
				continue
			}
			if h.Has(k) && !back.Has(k) {
				t.Errorf("%s: holds %s but it does not come back\n%s", act, k, out)
			}
			if !h.Has(k) && back.Has(k) {
				t.Errorf("%s: writes %s, which holds does not list\n%s", act, k, out)
			}
			if !h.Has(k) && !lost(ctx, k) {
				t.Errorf("%s: %s is not held and no loss was reported", act, k)
			}
		}
		if !lost(ctx, canonical.CExtra) {
			t.Errorf("%s: another dialect's extra member was not reported", act)
		}
	}
}

func lost(ctx *dialects.EncodeContext, k canonical.Concept) bool {
	for _, l := range ctx.Losses {
		if l.Concept == k && l.Kind == dialects.Dropped {
			return true
		}
	}
	return false
}
