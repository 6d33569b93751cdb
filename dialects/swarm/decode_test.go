package swarm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

func TestDecodeMessageTypes(t *testing.T) {
	cases := []struct {
		name  string
		msg   string
		check func(t *testing.T, e *canonical.Envelope)
	}{
		{"request", `{"message_id":"m1","message_type":"request","sender_id":"a","receiver_id":"b","correlation_id":"c9","priority":"urgent","payload":{"tool_name":"echo","arguments":{"x":1},"timeout":45}}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Act), "request")
				want(t, e.ID, "m1")
				want(t, e.Receiver.ID, "b")
				want(t, e.CorrelationID, "c9") // not a reply: a correlation id
				want(t, e.InReplyTo, "")
				want(t, e.Priority.String(), "critical")
				want(t, e.Operation.Name, "echo")
				want(t, string(e.Arguments), `{"x":1}`)
				if e.TTL != canonical.Dur(45*time.Second) {
					t.Errorf("TTL %+v", e.TTL)
				}
			}},
		{"response success", `{"message_type":"response","sender_id":"b","receiver_id":"a","correlation_id":"m1","payload":{"success":true,"result":{"y":2},"error":null}}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Act), "result")
				want(t, e.InReplyTo, "m1") // a reply: what it answers
				want(t, string(e.Outcome), "success")
				want(t, string(e.Result), `{"y":2}`)
				if e.Error != nil {
					t.Errorf("error %+v", e.Error)
				}
			}},
		{"response failure", `{"message_type":"response","sender_id":"b","receiver_id":"a","correlation_id":"m1","payload":{"success":false,"result":null,"error":"disk full"}}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Act), "result")
				want(t, string(e.Outcome), "failure")
				want(t, e.Error.Message, "disk full")
			}},
		{"error", `{"message_type":"error","sender_id":"b","receiver_id":null,"correlation_id":"m1","payload":{"error_code":"TOOL_NOT_FOUND","error_message":"no such tool","error_type":"not_found","details":{"tool_name":"x"}}}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Act), "failure")
				want(t, e.Receiver.Kind.String(), "broadcast")
				want(t, string(e.Error.Code), "not-found")
				want(t, e.Origin.Words.Get(canonical.KindError), "TOOL_NOT_FOUND")
				want(t, string(e.Error.Details), `{"tool_name":"x"}`)
				want(t, e.Extra[0].Path(), "payload.error_type")
			}},
		{"error with an unknown code", `{"message_type":"error","sender_id":"b","payload":{"error_code":"DISK_FULL","error_message":"m"}}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Error.Code), "")
				want(t, e.Origin.Words.Get(canonical.KindError), "DISK_FULL")
			}},
		{"broadcast notification", `{"message_type":"notification","sender_id":"a","receiver_id":null,"payload":{"event_type":"status","data":{"s":"busy"}}}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Act), "event")
				want(t, e.Receiver.Kind.String(), "broadcast")
				want(t, e.Operation.Name, "status")
				want(t, string(e.Arguments), `{"s":"busy"}`)
			}},
		{"request with null receiver routes by tool", `{"message_type":"request","sender_id":"a","receiver_id":null,"payload":{"tool_name":"t"}}`,
			func(t *testing.T, e *canonical.Envelope) { want(t, e.Receiver.Kind.String(), "none") }},
		{"handshake request", `{"message_type":"handshake_request","sender_id":"a","payload":{"agent_id":"a","agent_name":"Alpha","agent_role":"r","tools":["x","y"]}}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Act), "query-capabilities")
				want(t, e.Sender.Name, "Alpha")
				if len(e.Capabilities.Tools) != 2 || e.Capabilities.Tools[1].Name != "y" || e.Capabilities.Dialect != "swarm" {
					t.Errorf("capabilities %+v", e.Capabilities)
				}
			}},
		{"handshake response accepted at the top level", `{"message_type":"handshake_response","sender_id":"b","correlation_id":"h1","payload":{"agent_id":"b","agent_name":"B","agent_role":"r"},"accepted":false}`,
			func(t *testing.T, e *canonical.Envelope) {
				want(t, string(e.Act), "inform-capabilities")
				want(t, string(e.Outcome), "failure")
				want(t, e.InReplyTo, "h1")
			}},
		{"unknown members are kept", `{"message_type":"notification","sender_id":"a","hops":3,"payload":{"event_type":"e","seq":7}}`,
			func(t *testing.T, e *canonical.Envelope) {
				if len(e.Extra) != 2 || e.Extra[0].Path() != "hops" || e.Extra[1].Path() != "payload.seq" {
					t.Errorf("extra %+v", e.Extra)
				}
			}},
	}
	c := codec()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := c.Decode([]byte(tc.msg))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, e)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ msg, want string }{
		{`{"message_type":`, "swarm: not valid JSON: unexpected end of JSON input at byte 16"},
		{`{"message_type" "request"}`, "swarm: not valid JSON: invalid character '\"' after object key at byte 16"},
		{"{\"message_type\":\"request\",\"payload\":{\"arguments\":{\"t\":\"a\xc3(\"}}}", "swarm: payload.arguments.t: not valid UTF-8: 0xc3 at byte 56"},
		{`[]`, "swarm: a message must be a JSON object, got an array"},
		{`{"sender_id":"a","payload":{}}`, "swarm: message_type: missing"},
		{`{"message_type":"gossip","sender_id":"a"}`, `swarm: message_type: unknown message type "gossip" (want one of [request response error notification handshake_request handshake_response])`},
		{`{"message_type":"request","priority":"critical"}`, `swarm: priority: unknown priority "critical" (want one of [low normal high urgent])`},
		{`{"message_type":"request","priority":2}`, "swarm: priority: must be a string, got a number (2)"},
		{`{"message_type":"request","receiver_id":7}`, "swarm: receiver_id: must be a string, got a number (7)"},
		{`{"message_type":"request","payload":[]}`, "swarm: payload: must be an object, got an array"},
		{`{"message_type":"request","payload":{"timeout":"30"}}`, "swarm: payload.timeout: must be a number, got a string"},
		{`{"message_type":"response","payload":{"success":"yes"}}`, "swarm: payload.success: must be true or false, got a string"},
		{`{"message_type":"handshake_response","accepted":1,"payload":{}}`, "swarm: accepted: must be true or false, got a number (1)"},
		{`{"message_type":"handshake_request","payload":{"tools":["a",2]}}`, "swarm: payload.tools.1: must be a string, got a number (2)"},
	}
	c := codec()
	for _, tc := range cases {
		_, err := c.Decode([]byte(tc.msg))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.msg, err, tc.want)
		}
	}
}

func TestValidateRules(t *testing.T) {
	cases := []struct{ msg, want string }{
		{`{"message_type":"request","sender_id":"a","receiver_id":null,"payload":{"tool_name":"t"}}`, "receiver_id: a request needs a receiver"},
		{`{"message_type":"response","sender_id":"a","receiver_id":"b","payload":{"success":true}}`, "correlation_id: a response must carry the correlation_id"},
		{`{"message_type":"request","sender_id":"a","receiver_id":"b","payload":{"tool_name":"t","timeout":0}}`, "payload.timeout: must be between 1 and 300, got 0"},
		{`{"message_type":"handshake_request","sender_id":"a","payload":{"agent_id":"a","agent_name":"A","agent_role":"r","version":"1.0"}}`, "payload.version"},
		{`{"message_type":"notification","sender_id":"a","payload":{}}`, "payload: missing property 'event_type'"},
		{`{"message_type":"notification","sender_id":"a","sender_id":"b","payload":{"event_type":"e"}}`, "sender_id: member given more than once"},
	}
	c := codec()
	for _, tc := range cases {
		var all []string
		for _, p := range c.Validate([]byte(tc.msg)) {
			all = append(all, p.String())
		}
		if !strings.Contains(strings.Join(all, "\n"), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.msg, all, tc.want)
		}
	}
}

// TestRoundTripSparse writes back swarm messages that lack members the
// encoder otherwise always writes, or carry empty and null values.
func TestRoundTripSparse(t *testing.T) {
	for _, msg := range []string{
		`{"message_type":"handshake_response","sender_id":"0","correlation_id":"0","payload":{"agent_id":"0","agent_name":"","agent_role":""}}`,
		`{"message_type":"notification","sender_id":"a","payload":{"event_type":"e"}}`,
		`{"message_id":"","message_type":"request","sender_id":"","receiver_id":"","timestamp":"","correlation_id":"","payload":{"tool_name":"","arguments":[1]}}`,
		`{"message_type":"response","sender_id":"a","receiver_id":"b","correlation_id":"c","payload":{"success":true,"error":""}}`,
		`{"message_type":"response","sender_id":"a","receiver_id":"b","correlation_id":"c","payload":{"success":false}}`,
		`{"message_type":"error","sender_id":"a","payload":{"error_code":"","error_message":"","details":null}}`,
		`{"message_type":"request","sender_id":"a","receiver_id":"b","payload":{"tool_name":"t","timeout":30.0}}`,
		`{"message_type":"notification","sender_id":"a","receiver_id":null,"correlation_id":null,"payload":{"event_type":"e","data":"text"}}`,
	} {
		c := codec()
		env, err := c.Decode([]byte(msg))
		if err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		ctx := dialecttest.EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !dialecttest.JSONEqual([]byte(msg), out) || len(ctx.Losses) != 0 {
			t.Errorf("round trip:\n in  %s\n out %s\n losses %v", msg, out, ctx.Losses)
		}
	}
}

// TestOptionalNulls: the members upstream's Pydantic models declare
// optional (X | None) may be null. Such a null is valid, carries no value
// (nothing to lose in another dialect) and is written back on a round trip.
func TestOptionalNulls(t *testing.T) {
	for _, msg := range []string{
		`{"message_type":"request","sender_id":"a","receiver_id":"b","correlation_id":null,"payload":{"tool_name":"t","arguments":{},"timeout":null}}`,
		`{"message_type":"response","sender_id":"b","receiver_id":"a","correlation_id":"c","payload":{"success":true,"result":null,"error":null,"execution_time":null}}`,
		`{"message_type":"notification","sender_id":"a","receiver_id":null,"payload":{"event_type":"e"}}`,
	} {
		c := codec()
		if p := c.Validate([]byte(msg)); len(p) != 0 {
			t.Errorf("%s: %v", msg, p)
		}
		env, err := c.Decode([]byte(msg))
		if err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		if env.TTL.Set || len(env.Extra) != 0 || env.Has(canonical.CResult) || env.Has(canonical.CErrorMessage) {
			t.Errorf("%s: a null carries a value: ttl %v, extra %v", msg, env.TTL, env.Extra)
		}
		ctx := dialecttest.EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil || !dialecttest.JSONEqual([]byte(msg), out) || len(ctx.Losses) != 0 {
			t.Errorf("round trip:\n in  %s\n out %s\n losses %v, %v", msg, out, ctx.Losses, err)
		}
	}
}

// TestEncodeForeign encodes envelopes as another dialect would hand them
// over: stand-ins are filled and reported, values swarm cannot take are
// approximated and reported, and the output validates.
func TestEncodeForeign(t *testing.T) {
	cases := []struct {
		name   string
		env    canonical.Envelope
		out    []string // substrings of the output
		losses []string // substrings of the loss report, in order
	}{
		{"bare request", canonical.Envelope{Origin: canonical.Origin{Dialect: "collab"}, Act: canonical.ActRequest, Arguments: `["a"]`},
			[]string{`"message_id":"00000000-0000-4000-8000-00000000000b"`, `"sender_id":"unknown"`, `"receiver_id":"unknown"`, `"timestamp":"2026-01-02T03:04:05Z"`, `"tool_name":"request"`, `"arguments":{"value":["a"]}`},
			[]string{"filled sender_id", "filled receiver_id", "filled payload.tool_name", "approximated arguments"}},
		{"timeout clamped, priority nearest", canonical.Envelope{Origin: canonical.Origin{Dialect: "collab"}, Act: canonical.ActRequest, ID: "x", Sender: canonical.Party{ID: "a"},
			Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "b"}, Time: "2026-01-01T00:00:00Z", Operation: canonical.Operation{Name: "t"},
			TTL: canonical.Dur(1500 * time.Millisecond), Priority: canonical.PriorityBatch},
			[]string{`"timeout":2`, `"priority":"low"`},
			[]string{"approximated priority", "approximated ttl"}},
		{"refusal as an error", canonical.Envelope{Origin: canonical.Origin{Dialect: "elizaacl"}, Act: canonical.ActRefuse, ID: "x", Sender: canonical.Party{ID: "a"},
			Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "b"}, Time: "2026-01-01T00:00:00Z", InReplyTo: "r1", Error: &canonical.Error{Code: canonical.ErrUnavailable, Message: "busy"}},
			[]string{`"message_type":"error"`, `"correlation_id":"r1"`, `"error_code":"EXECUTION_FAILED"`, `"error_message":"busy"`},
			[]string{"approximated act", "approximated error.code"}},
		{"topic event to all", canonical.Envelope{Origin: canonical.Origin{Dialect: "collab"}, Act: canonical.ActEvent, ID: "x", Sender: canonical.Party{ID: "a"},
			Receiver: canonical.Address{Kind: canonical.AddressTopic, ID: "findings"}, Time: "YYYY-MM-DDTHH:MM:SSZ", Operation: canonical.Operation{Name: "NewFinding"}},
			[]string{`"receiver_id":null`, `"timestamp":"2026-01-02T03:04:05Z"`, `"event_type":"NewFinding"`},
			[]string{"approximated receiver", "approximated time"}},
		{"topic request to an agent of that name", canonical.Envelope{Origin: canonical.Origin{Dialect: "collab"}, Act: canonical.ActRequest, ID: "x", Sender: canonical.Party{ID: "a"},
			Receiver: canonical.Address{Kind: canonical.AddressTopic, ID: "findings"}, Time: "2026-01-01T00:00:00Z", Operation: canonical.Operation{Name: "t"}},
			[]string{`"receiver_id":"findings"`},
			[]string{`approximated receiver: swarm has no topics, and a request needs a receiver; topic "findings" sent to receiver_id "findings"`}},
		{"reply without correlation", canonical.Envelope{Origin: canonical.Origin{Dialect: "bluelabel"}, Act: canonical.ActResult, Sender: canonical.Party{ID: "A"},
			Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "B"}, Time: "2026-01-01T00:00:00Z", TaskID: "TASK-1", Outcome: canonical.OutcomePartial},
			[]string{`"correlation_id":"TASK-1"`, `"success":true`},
			[]string{"dropped task_id", "filled correlation_id", "approximated outcome"}},
		{"declaration with more than names", canonical.Envelope{Origin: canonical.Origin{Dialect: "fuse"}, Act: canonical.ActInformCapabilities, ID: "x",
			Sender: canonical.Party{ID: "a"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "b"}, Time: "2026-01-01T00:00:00Z", InReplyTo: "q1",
			Capabilities: &canonical.Capabilities{Topics: []string{"news"}, Tools: []canonical.Tool{{Name: "plain"}, {Name: "rich", Capability: "text", Version: "1.0"}}}},
			[]string{`"tools":["plain","rich"]`},
			[]string{`approximated capabilities: swarm handshakes list tool names only; dropped the group, title, description, schemas and version of "rich"`,
				`approximated capabilities: swarm handshakes have no topics; dropped "news"`}},
	}
	c := codec()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := dialecttest.EncodeContext()
			env := tc.env
			out, err := c.Encode(nil, &env, ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.out {
				if !strings.Contains(string(out), s) {
					t.Errorf("output lacks %s:\n%s", s, out)
				}
			}
			var got []string
			for _, l := range ctx.Losses {
				got = append(got, l.String())
			}
			joined := strings.Join(got, "\n")
			for _, s := range tc.losses {
				if !strings.Contains(joined, s) {
					t.Errorf("losses lack %q:\n%s", s, joined)
				}
			}
			if p := c.Validate(out); len(p) != 0 {
				t.Errorf("output does not validate: %v\n%s", p, out)
			}
		})
	}
	// Acts with no message type are refused, naming the dialect.
	_, err := c.Encode(nil, &canonical.Envelope{Act: canonical.ActAccept}, nil)
	if de, ok := err.(*dialects.Error); !ok || de.Dialect != "swarm" || !strings.Contains(de.Problem, `cannot express act "accept"`) {
		t.Errorf("accept: %v", err)
	}
}

// TestCapabilitiesNamesOnly: a declaration of tool names alone loses
// nothing in swarm.
func TestCapabilitiesNamesOnly(t *testing.T) {
	ctx := dialecttest.EncodeContext()
	env := canonical.Envelope{Origin: canonical.Origin{Dialect: "collab"}, Act: canonical.ActInformCapabilities, ID: "x",
		Sender: canonical.Party{ID: "a"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "b"}, Time: "2026-01-01T00:00:00Z", InReplyTo: "q1",
		Capabilities: &canonical.Capabilities{Tools: []canonical.Tool{{Name: "x"}, {Name: "y"}}}}
	if _, err := codec().Encode(nil, &env, ctx); err != nil {
		t.Fatal(err)
	}
	for _, l := range ctx.Losses {
		if l.Concept == canonical.CCapabilities {
			t.Errorf("lost %s", l)
		}
	}
}

func want(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
