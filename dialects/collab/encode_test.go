package collab_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/tidwall/gjson"
)

// foreign returns an envelope as another dialect's decoder would give it.
func foreign(act canonical.Act) *canonical.Envelope {
	return &canonical.Envelope{
		Origin:   canonical.Origin{Dialect: "swarm"},
		ID:       "m-1",
		Act:      act,
		Sender:   canonical.Party{ID: "agent-a"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "agent-b"},
		Time:     "2026-01-02T03:04:05Z",
	}
}

// encode writes env, checks that the output validates and decodes, and
// returns it with the losses reported.
func encode(t *testing.T, env *canonical.Envelope) (gjson.Result, *canonical.Envelope, []dialects.Loss) {
	t.Helper()
	c := codec()
	ctx := dialecttest.EncodeContext()
	out, err := c.Encode(nil, env, ctx)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if p := c.Validate(out); len(p) != 0 {
		t.Errorf("output does not validate: %v\n%s", p, out)
	}
	back, err := c.Decode(out)
	if err != nil {
		t.Fatalf("output does not decode: %v\n%s", err, out)
	}
	return gjson.ParseBytes(out), back, ctx.Losses
}

// lossOf returns the losses of a concept.
func lossOf(losses []dialects.Loss, c canonical.Concept) []dialects.Loss {
	var out []dialects.Loss
	for _, l := range losses {
		if l.Concept == c {
			out = append(out, l)
		}
	}
	return out
}

func TestEncodeEvents(t *testing.T) {
	tests := []struct {
		to        canonical.Address
		msgType   string
		dest      string
		roundTrip canonical.Address
	}{
		{canonical.Address{Kind: canonical.AddressTopic, ID: "findings"}, "PUBLISH", "topic:findings", canonical.Address{Kind: canonical.AddressTopic, ID: "findings"}},
		{canonical.Address{Kind: canonical.AddressBroadcast}, "BROADCAST", "*", canonical.Address{Kind: canonical.AddressBroadcast}},
		{canonical.Address{}, "BROADCAST", "*", canonical.Address{Kind: canonical.AddressBroadcast}},
		{canonical.Address{Kind: canonical.AddressAgent, ID: "agent-b"}, "PUBLISH", "agent-b", canonical.Address{Kind: canonical.AddressAgent, ID: "agent-b"}},
	}
	for _, tt := range tests {
		env := foreign(canonical.ActEvent)
		env.Receiver = tt.to
		env.Operation.Name = "status_changed"
		env.Arguments = `{"status":"busy"}`
		msg, back, losses := encode(t, env)
		want(t, msg.Get("header.type").Str, tt.msgType)
		want(t, msg.Get("header.destination").Str, tt.dest)
		want(t, msg.Get("body.event").Str, "status_changed")
		want(t, msg.Get("body.data.status").Str, "busy")
		want(t, back.Receiver, tt.roundTrip)
		want(t, back.Act, canonical.ActEvent)
		want(t, len(losses), 0)
	}
}

func TestEncodeResponses(t *testing.T) {
	t.Run("result", func(t *testing.T) {
		env := foreign(canonical.ActResult)
		env.InReplyTo = "req-1"
		env.Outcome = canonical.OutcomeSuccess
		env.Result = `{"processed":true}`
		msg, back, losses := encode(t, env)
		want(t, msg.Get("header.correlationId").Str, "req-1")
		want(t, msg.Get("body.status").Str, "SUCCESS")
		want(t, msg.Get("body.result").Raw, `{"processed":true}`)
		want(t, msg.Get("body.error").Exists(), false)
		want(t, back.Act, canonical.ActResult)
		want(t, len(losses), 0)
	})
	t.Run("correlation filled", func(t *testing.T) {
		for _, tt := range []struct{ corr, task, want string }{
			{"corr-1", "task-1", "corr-1"},
			{"", "task-1", "task-1"},
			{"", "", "unknown"},
		} {
			env := foreign(canonical.ActResult)
			env.Outcome = canonical.OutcomeSuccess
			env.CorrelationID, env.TaskID = tt.corr, tt.task
			msg, back, losses := encode(t, env)
			want(t, msg.Get("header.correlationId").Str, tt.want)
			want(t, back.InReplyTo, tt.want)
			if l := lossOf(losses, canonical.CInReplyTo); len(l) != 1 || l[0].Kind != dialects.Filled {
				t.Errorf("%+v: in_reply_to losses %v", tt, l)
			}
		}
	})
	t.Run("no outcome", func(t *testing.T) {
		env := foreign(canonical.ActResult)
		env.InReplyTo = "req-1"
		msg, _, losses := encode(t, env)
		want(t, msg.Get("body.status").Str, "SUCCESS")
		want(t, lossOf(losses, canonical.COutcome)[0].Kind, dialects.Filled)
	})
	t.Run("partial", func(t *testing.T) {
		env := foreign(canonical.ActResult)
		env.InReplyTo = "req-1"
		env.Outcome = canonical.OutcomePartial
		msg, _, losses := encode(t, env)
		want(t, msg.Get("body.status").Str, "SUCCESS")
		want(t, len(lossOf(losses, canonical.COutcome)), 1)
	})
	t.Run("failure timeout", func(t *testing.T) {
		env := foreign(canonical.ActFailure)
		env.InReplyTo = "req-1"
		yes := true
		env.Error = &canonical.Error{Code: canonical.ErrTimeout, Message: "slow", Retryable: &yes, RetryAfter: canonical.Dur(1500 * time.Millisecond), Details: `{"waited":30}`}
		msg, back, losses := encode(t, env)
		want(t, msg.Get("body.status").Str, "ERROR")
		want(t, msg.Get("body.error").Raw, `{"code":"TIMEOUT","message":"slow","retryable":true,"retryAfter":1500,"details":{"waited":30}}`)
		want(t, back.Act, canonical.ActFailure)
		want(t, back.Error.RetryAfter, canonical.Dur(1500*time.Millisecond))
		want(t, len(losses), 0)
	})
	t.Run("failure without error", func(t *testing.T) {
		env := foreign(canonical.ActFailure)
		env.InReplyTo = "req-1"
		msg, _, losses := encode(t, env)
		want(t, msg.Get("body.error.code").Str, "INTERNAL")
		want(t, msg.Get("body.error.message").Str, "execution-failed")
		want(t, lossOf(losses, canonical.CErrorMessage)[0].Kind, dialects.Filled)
	})
	t.Run("failure with a code that would read as refusal", func(t *testing.T) {
		env := foreign(canonical.ActFailure)
		env.InReplyTo = "req-1"
		env.Error = &canonical.Error{Code: canonical.ErrNotFound, Message: "no such tool"}
		msg, back, losses := encode(t, env)
		want(t, msg.Get("body.error.code").Str, "INTERNAL")
		want(t, back.Act, canonical.ActFailure)
		want(t, len(lossOf(losses, canonical.CAct)), 0)
		want(t, len(lossOf(losses, canonical.CErrorCode)), 1)
	})
	t.Run("refuse", func(t *testing.T) {
		env := foreign(canonical.ActRefuse)
		env.InReplyTo = "req-1"
		env.Error = &canonical.Error{Code: canonical.ErrUnauthorized, Message: "not allowed"}
		msg, back, losses := encode(t, env)
		want(t, msg.Get("body.status").Str, "ERROR")
		want(t, msg.Get("body.error.code").Str, "REJECTED")
		want(t, back.Act, canonical.ActRefuse)
		want(t, len(lossOf(losses, canonical.CErrorCode)), 1)
		want(t, len(lossOf(losses, canonical.CAct)), 0)
	})
	t.Run("refuse with a retryable code", func(t *testing.T) {
		env := foreign(canonical.ActRefuse)
		env.InReplyTo = "req-1"
		env.Error = &canonical.Error{Code: canonical.ErrTimeout, Message: "busy"}
		msg, back, _ := encode(t, env)
		want(t, msg.Get("body.error.code").Str, "REJECTED")
		want(t, back.Act, canonical.ActRefuse)
	})
	t.Run("not understood", func(t *testing.T) {
		env := foreign(canonical.ActNotUnderstood)
		env.InReplyTo = "req-1"
		env.Error = &canonical.Error{Code: canonical.ErrInvalidMessage, Message: "bad JSON"}
		msg, back, losses := encode(t, env)
		want(t, msg.Get("header.type").Str, "RESPONSE")
		want(t, msg.Get("body.error.code").Str, "REJECTED")
		want(t, back.Act, canonical.ActRefuse)
		want(t, len(lossOf(losses, canonical.CAct)), 1)
	})
}

func TestEncodeRequests(t *testing.T) {
	t.Run("request", func(t *testing.T) {
		env := foreign(canonical.ActRequest)
		env.Operation = canonical.Operation{Capability: "text-analysis", Name: "sentiment"}
		env.Arguments = `{"text":"hi"}`
		env.Context = `{"sessionId":"s-1"}`
		env.CorrelationID = "c-1"
		env.Priority = canonical.PriorityCritical
		env.TTL = canonical.Dur(30 * time.Second)
		env.Trace = canonical.Trace{TraceID: "t", SpanID: "s", ParentSpanID: "p"}
		msg, back, losses := encode(t, env)
		want(t, msg.Get("header").Raw, `{"messageId":"m-1","correlationId":"c-1","type":"REQUEST","source":"agent-a","destination":"agent-b","timestamp":"2026-01-02T03:04:05Z","priority":4,"ttl":30000}`)
		want(t, msg.Get("body").Raw, `{"action":"sentiment","payload":{"text":"hi"},"context":{"sessionId":"s-1"}}`)
		want(t, msg.Get("trace").Raw, `{"traceId":"t","spanId":"s","parentSpan":"p"}`)
		want(t, back.CorrelationID, "c-1")
		want(t, back.Priority, canonical.PriorityCritical)
		if l := lossOf(losses, canonical.CCapability); len(losses) != 1 || len(l) != 1 {
			t.Errorf("losses %v, want operation.capability dropped", losses)
		}
	})
	t.Run("fills", func(t *testing.T) {
		env := &canonical.Envelope{Origin: canonical.Origin{Dialect: "fuse"}, Act: canonical.ActRequest, Priority: canonical.PriorityBatch}
		msg, _, losses := encode(t, env)
		want(t, msg.Get("header.messageId").Str, "00000000-0000-4000-8000-00000000000b")
		want(t, msg.Get("header.source").Str, "unknown")
		want(t, msg.Get("header.destination").Str, "unknown")
		want(t, msg.Get("header.timestamp").Str, "2026-01-02T03:04:05Z")
		want(t, msg.Get("header.priority").Raw, "0")
		want(t, msg.Get("body").Raw, `{}`)
		want(t, len(lossOf(losses, canonical.CSender)), 1)
		want(t, len(lossOf(losses, canonical.CReceiver)), 1)
	})
	t.Run("placeholder timestamp", func(t *testing.T) {
		env := foreign(canonical.ActRequest)
		env.Time = "YYYY-MM-DDTHH:MM:SSZ"
		msg, _, losses := encode(t, env)
		want(t, msg.Get("header.timestamp").Str, "2026-01-02T03:04:05Z")
		want(t, len(lossOf(losses, canonical.CTime)), 1)
	})
	t.Run("non-object payload", func(t *testing.T) {
		env := foreign(canonical.ActRequest)
		env.Operation.Name = "echo"
		env.Arguments = `["a","b"]`
		msg, _, losses := encode(t, env)
		want(t, msg.Get("body.payload").Raw, `{"value":["a","b"]}`)
		want(t, len(lossOf(losses, canonical.CArguments)), 1)
	})
	t.Run("ttl", func(t *testing.T) {
		for _, tt := range []struct {
			d     time.Duration
			ms    string
			lossy bool
		}{
			{90 * time.Second, "90000", false},
			{0, "0", false},
			{1500 * time.Microsecond, "2", true},
			{-time.Second, "0", true},
		} {
			env := foreign(canonical.ActRequest)
			env.TTL = canonical.Dur(tt.d)
			msg, _, losses := encode(t, env)
			want(t, msg.Get("header.ttl").Raw, tt.ms)
			want(t, len(lossOf(losses, canonical.CTTL)) == 1, tt.lossy)
		}
	})
	t.Run("query-if", func(t *testing.T) {
		env := foreign(canonical.ActQueryIf)
		env.Operation.Name = "is-indexed"
		msg, back, losses := encode(t, env)
		want(t, msg.Get("header.type").Str, "REQUEST")
		want(t, back.Act, canonical.ActRequest)
		want(t, len(lossOf(losses, canonical.CAct)), 1)
	})
	t.Run("registry action name", func(t *testing.T) {
		env := foreign(canonical.ActRequest)
		env.Operation.Name = "registry.find"
		_, back, losses := encode(t, env)
		want(t, back.Act, canonical.ActQueryCapabilities)
		want(t, len(lossOf(losses, canonical.CAct)), 1)
	})
	t.Run("query capabilities", func(t *testing.T) {
		env := foreign(canonical.ActQueryCapabilities)
		env.Arguments = `{"capability":"verification"}`
		msg, back, losses := encode(t, env)
		want(t, msg.Get("body").Raw, `{"action":"registry.find","payload":{"capability":"verification"}}`)
		want(t, back.Act, canonical.ActQueryCapabilities)
		want(t, len(losses), 0)
	})
	t.Run("inform capabilities", func(t *testing.T) {
		env := foreign(canonical.ActInformCapabilities)
		env.Sender.Name = "Worker"
		env.InReplyTo = "q-1"
		env.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{
			{Name: "sentiment", Capability: "text-analysis"},
			{Name: "process_data"},
			{Name: "summarize", Capability: "text-analysis"},
		}}
		msg, back, losses := encode(t, env)
		want(t, msg.Get("header.correlationId").Str, "q-1")
		want(t, msg.Get("body.action").Str, "registry.register")
		want(t, msg.Get("body.payload").Raw, `{"id":"agent-a","name":"Worker","capabilities":[{"name":"text-analysis","actions":["sentiment","summarize"]},{"name":"process_data","actions":["process_data"]}]}`)
		want(t, back.Act, canonical.ActInformCapabilities)
		want(t, back.InReplyTo, "q-1")
		want(t, back.Sender.Name, "Worker")
		want(t, len(back.Capabilities.Tools), 3)
		want(t, len(losses), 0)
	})
	t.Run("inform capabilities with schemas", func(t *testing.T) {
		env := foreign(canonical.ActInformCapabilities)
		env.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{{Name: "echo", Description: "echoes", InputSchema: `{"type":"object"}`}}}
		msg, _, losses := encode(t, env)
		want(t, msg.Get("body.payload.name").Str, "agent-a")
		want(t, len(lossOf(losses, canonical.CCapabilities)), 1)
		want(t, lossOf(losses, canonical.CSenderName)[0].Kind, dialects.Filled)
	})
}

func TestEncodeRefusesActs(t *testing.T) {
	for _, act := range []canonical.Act{canonical.ActAccept, canonical.ActNeedsInput} {
		_, err := codec().Encode(nil, foreign(act), dialecttest.EncodeContext())
		var de *dialects.Error
		if !errors.As(err, &de) || de.Dialect != "collab" || !strings.Contains(err.Error(), string(act)) {
			t.Errorf("%s: error %v", act, err)
		}
	}
}

// TestEncodeFailedResult covers a result whose outcome is failure (the
// work was done, its goal not met): a RESPONSE with an error status, the
// result and no error object, read back as a result with outcome failure.
func TestEncodeFailedResult(t *testing.T) {
	tests := []struct {
		name    string
		result  canonical.JSON
		err     *canonical.Error
		written string // body.result
		filled  bool   // result filled
		dropped []canonical.Concept
	}{
		{"with a result", `{"output":"Test run failed"}`, nil, `{"output":"Test run failed"}`, false, nil},
		{"with a non-object result", `"no match"`, nil, `"no match"`, false, nil},
		{"with an error beside", `{"partialOutput":"x"}`, &canonical.Error{Code: canonical.ErrExecutionFailed, Message: "tool failed"}, `{"partialOutput":"x"}`,
			false, []canonical.Concept{canonical.CErrorCode, canonical.CErrorMessage}},
		{"without a result", "", nil, `{}`, true, nil},
		{"with a null result", "null", nil, `{}`, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := foreign(canonical.ActResult)
			env.InReplyTo = "req-1"
			env.Outcome = canonical.OutcomeFailure
			env.Result, env.Error = tt.result, tt.err
			msg, back, losses := encode(t, env)
			want(t, msg.Get("header.type").Str, "RESPONSE")
			want(t, msg.Get("body.status").Str, "ERROR")
			want(t, msg.Get("body.result").Raw, tt.written)
			want(t, msg.Get("body.error").Exists(), false)
			want(t, back.Act, canonical.ActResult)
			want(t, back.Outcome, canonical.OutcomeFailure)
			want(t, back.Error, (*canonical.Error)(nil))
			want(t, len(lossOf(losses, canonical.CAct)), 0)
			want(t, len(lossOf(losses, canonical.COutcome)), 0)
			if l := lossOf(losses, canonical.CResult); tt.filled != (len(l) == 1 && l[0].Kind == dialects.Filled) || len(l) > 1 {
				t.Errorf("result losses %v, want filled %v", l, tt.filled)
			}
			var dropped []canonical.Concept
			for _, l := range losses {
				if l.Kind == dialects.Dropped {
					dropped = append(dropped, l.Concept)
				}
			}
			want(t, dropped, tt.dropped)
			if !tt.filled {
				want(t, len(losses), len(tt.dropped))
			}
		})
	}
}

// TestEncodeForeignErrorWord covers an error whose code is another
// dialect's word with no canonical meaning (Code "", the word in
// Origin.Words): a failure carries it verbatim; a refusal is REJECTED.
func TestEncodeForeignErrorWord(t *testing.T) {
	tests := []struct {
		act     canonical.Act
		word    string
		code    string // body.error.code written
		back    canonical.Act
		backErr canonical.ErrorCode
		approx  bool // error.code reported approximated
	}{
		{canonical.ActFailure, "API_ERROR", "API_ERROR", canonical.ActFailure, "", false},
		{canonical.ActFailure, "QUOTA", "QUOTA", canonical.ActFailure, "", false},
		{canonical.ActRefuse, "API_ERROR", "REJECTED", canonical.ActRefuse, canonical.ErrRejected, true},
		{canonical.ActNotUnderstood, "PARSE_FAILED", "REJECTED", canonical.ActRefuse, canonical.ErrRejected, true},
		// Words collab itself reads: a failure cannot be REJECTED; another
		// word is written but now has a meaning.
		{canonical.ActFailure, "REJECTED", "INTERNAL", canonical.ActFailure, canonical.ErrInternal, true},
		{canonical.ActFailure, "UNAVAILABLE", "UNAVAILABLE", canonical.ActFailure, canonical.ErrUnavailable, true},
	}
	for _, tt := range tests {
		env := foreign(tt.act)
		env.Origin.Dialect = "fuse"
		env.InReplyTo = "req-1"
		env.Origin.SetWord(canonical.KindError, tt.word)
		env.Error = &canonical.Error{Message: "upstream API returned 502"}
		msg, back, losses := encode(t, env)
		want(t, msg.Get("body.error.code").Str, tt.code)
		want(t, msg.Get("body.error.message").Str, "upstream API returned 502")
		want(t, back.Act, tt.back)
		want(t, back.Error.Code, tt.backErr)
		want(t, back.Origin.Words.Get(canonical.KindError), tt.code)
		if l := lossOf(losses, canonical.CErrorCode); (len(l) == 1) != tt.approx || len(l) > 1 || (len(l) == 1 && l[0].Kind != dialects.Approximated) {
			t.Errorf("%s %s: error.code losses %v, want approximated %v", tt.act, tt.word, l, tt.approx)
		}
		if tt.act == canonical.ActFailure && !tt.approx && len(losses) != 0 {
			t.Errorf("%s %s: losses %v, want none", tt.act, tt.word, losses)
		}
	}
}

// TestRoundTripVariants checks messages beyond the samples that must come
// back exactly: layouts, nulls, open words and kept members.
func TestRoundTripVariants(t *testing.T) {
	msgs := []string{
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"TIMEOUT"}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"TIMEOUT","error":null,"result":null}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"TIMEOUT","error":{"message":"slow"}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR"}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"error":{"code":"REJECTED","message":"no"}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","result":{"partial":1},"error":{"code":"QUOTA_EXCEEDED","message":"later","hint":"tomorrow"}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","error":{"code":"","message":"m"}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"SUCCESS","result":null,"error":{"code":"INTERNAL","message":"stale"}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","result":{"passed":0}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"TIMEOUT","result":[1],"error":null}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","result":{"passed":0},"error":{}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"TIMEOUT","result":{"passed":0},"error":{"message":"slow"}}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","result":null}}`,
		`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","error":{"code":"API_ERROR","message":"m"}}}`,
		`{"type":"RESPONSE","body":{"result":"ok"}}`,
		`{"type":"RESPONSE","correlationId":"r"}`,
		`{"header":{"messageId":"m","type":"RESPONSE","source":"a","destination":"b","correlationId":"h"},"correlationId":"t","body":{"status":"SUCCESS"}}`,
		`{"header":{"messageId":"m","type":"REQUEST","source":"a","destination":"","region":"eu"},"type":"X","body":{"action":"a","payload":"raw","context":[1]}}`,
		`{"header":{"type":"PUBLISH","destination":"*","ttl":1.5,"priority":0},"body":{"event":"e","data":null}}`,
		`{"header":{"type":"BROADCAST"},"trace":{"traceId":"t","sampled":true},"version":"2"}`,
		`{"type":"REQUEST","timestamp":"YYYY-MM-DDTHH:MM:SSZ","source":"a","body":{"action":"registry.register","payload":{"id":"a","capabilities":[],"extra":1}}}`,
		`{"type":"REQUEST","body":{"action":"registry.find"}}`,
		`{"type":"REQUEST","destination":"topic:x","body":{"action":"registry.register"}}`,
	}
	c := codec()
	for _, m := range msgs {
		env, err := c.Decode([]byte(m))
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		ctx := dialecttest.EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		if !dialecttest.JSONEqual([]byte(m), out) {
			t.Errorf("round trip changed the message:\n got %s\nwant %s", out, m)
		}
		if len(ctx.Losses) != 0 {
			t.Errorf("%s: losses %v", m, ctx.Losses)
		}
	}
}
