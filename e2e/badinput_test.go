package e2e

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// invalidButDecodable returns frame without one member that its dialect's
// schema or rules require (the decoder alone would take it), and that
// member's name.
func invalidButDecodable(t *testing.T, codec dialects.Codec, frame []byte) ([]byte, string) {
	t.Helper()
	var out []byte
	var key string
	var try func(prefix string, v gjson.Result)
	try = func(prefix string, v gjson.Result) {
		v.ForEach(func(k, m gjson.Result) bool {
			path := prefix + k.String()
			cut, err := sjson.DeleteBytes(frame, path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := codec.Decode(append([]byte(nil), cut...)); err == nil && len(codec.Validate(cut)) > 0 {
				out, key = cut, k.String()
				return false
			}
			if m.IsObject() && prefix == "" {
				try(path+".", m)
			}
			return out == nil
		})
	}
	try("", gjson.ParseBytes(frame))
	if out == nil {
		t.Fatalf("%s: no member of a request is required by the schema alone: %s", codec.Name(), frame)
	}
	return out, key
}

// TestBadInput sends each kind of bad input in each dialect and checks the
// answer comes back in that dialect, valid, naming the dialect and the
// problem, and that the connection then still carries a good request.
func TestBadInput(t *testing.T) {
	cfg := config.Default()
	cfg.MaxFrame = 4096
	h := start(t, cfg)
	h.runAgent("swarm", responder("swarm"))
	for _, d := range dialectNames {
		t.Run(d, func(t *testing.T) {
			c := h.dial(d, requester(d))
			c.t = t
			good := c.encode(request(d, responder("swarm"), "echo", `{"n":1}`, "good-"+d))
			schemaBad, missing := invalidButDecodable(t, c.codec, good)
			cases := []struct {
				name  string
				frame []byte
				code  canonical.ErrorCode
				says  []string
				once  string // said exactly once, when set
			}{
				{"malformed JSON", []byte(`{"oops": `), canonical.ErrInvalidMessage,
					[]string{d + ": not valid JSON: unexpected end of JSON input at byte 9"}, "not valid JSON"},
				{"invalid UTF-8", notUTF8(t, c.encode(request(d, responder("swarm"), "echo", `{"s":"utf8probe"}`, "utf8-"+d))), canonical.ErrInvalidMessage,
					[]string{d + ":", ".s: not valid UTF-8: 0xff at byte "}, "not valid UTF-8"},
				{"schema violation", schemaBad, canonical.ErrInvalidMessage, []string{d + ":", missing}, ""},
				{"unknown receiver", c.encode(request(d, "nobody-here", "echo", `{}`, "to-nobody")), canonical.ErrNotFound, []string{"NOBODY-HERE"}, ""},
				{"oversize", c.encode(request(d, responder("swarm"), "echo", `{"pad":"`+strings.Repeat("x", 5000)+`"}`, "big")), canonical.ErrTooLarge, []string{d + ":", "4096"}, ""},
			}
			for _, tc := range cases {
				c.send(tc.frame)
				frame := c.recv()
				reply := c.decode(frame)
				if reply.Error == nil {
					t.Errorf("%s: the answer has no error: %s", tc.name, frame)
					continue
				}
				msg := strings.ToUpper(reply.Error.Message)
				for _, s := range tc.says {
					if !strings.Contains(msg, strings.ToUpper(s)) {
						t.Errorf("%s: error %q does not say %q", tc.name, reply.Error.Message, s)
					}
				}
				if tc.once != "" && strings.Count(msg, strings.ToUpper(tc.once)) != 1 {
					t.Errorf("%s: error %q does not say %q exactly once", tc.name, reply.Error.Message, tc.once)
				}
				if !sameClass(d, reply, tc.code) {
					t.Errorf("%s: error code %q (word %q), want %s: %s", tc.name, reply.Error.Code, reply.Origin.Words.Get(canonical.KindError), tc.code, frame)
				}
			}
			// The connection carries on.
			c.send(good)
			for {
				reply := c.decode(c.recv())
				if reply.Act == canonical.ActAccept {
					continue
				}
				res := gjson.Parse(string(reply.Result))
				if res.Get("data").Exists() { // bluelabel's {output, data}
					res = res.Get("data")
				}
				if reply.Act != canonical.ActResult || res.Get("n").Int() != 1 {
					t.Errorf("after bad input, a good request got %s %s", reply.Act, reply.Result)
				}
				break
			}
			if !strings.Contains(h.logs.String(), `"msg":"refused","dialect":"`+d+`"`) {
				t.Errorf("no log line for %s's refusals", d)
			}
		})
	}
}

// notUTF8 returns frame with a byte that is not UTF-8 in its string
// "utf8probe".
func notUTF8(t *testing.T, frame []byte) []byte {
	t.Helper()
	if bytes.Count(frame, []byte(`"utf8probe"`)) != 1 {
		t.Fatalf("no one probe string in %s", frame)
	}
	return bytes.Replace(frame, []byte(`"utf8probe"`), []byte("\"utf8\xffprobe\""), 1)
}

// sameClass reports whether reply carries the error code want, as closely
// as dialect d can write it: what d's codec reads back from an error of
// code want that it wrote (swarm, for one, has no word for too-large), in
// the act the bridge sends it as: a message it could not take is not
// understood.
func sameClass(d string, reply *canonical.Envelope, want canonical.ErrorCode) bool {
	codec, _ := builtin.Default().Lookup(d)
	act := canonical.ActFailure
	if want == canonical.ErrInvalidMessage || want == canonical.ErrTooLarge {
		act = canonical.ActNotUnderstood
	}
	env := &canonical.Envelope{Act: act, Outcome: canonical.OutcomeFailure, Error: &canonical.Error{Code: want, Message: "m"}}
	frame, err := codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		return false
	}
	back, err := codec.Decode(frame)
	return err == nil && back.Error != nil && back.Error.Code == reply.Error.Code
}

// TestUndetectable: on /ws the dialect comes from the first message; one
// no dialect recognises gets a plain JSON error, and the next one that is
// recognisable binds the connection to its dialect.
func TestUndetectable(t *testing.T) {
	h := start(t, nil)
	h.runAgent("fuse", responder("fuse"))
	c := h.dial("swarm", "")
	c.c.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, h.wsURL()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	c.c = conn
	c.send([]byte(`{"hello":"world"}`))
	if got := gjson.ParseBytes(c.recv()); got.Get("error.code").String() != "invalid-message" || !strings.Contains(got.Get("error.message").String(), "no dialect recognises") {
		t.Errorf("undetectable message answered %s", got.Raw)
	}
	c.send(c.encode(request("swarm", "fuse-agent", "echo", `{"k":"v"}`, "detected")))
	frame := c.recv()
	if gjson.GetBytes(frame, "correlation_id").String() != "detected" || gjson.GetBytes(frame, "message_type").String() != "response" {
		t.Errorf("after detection: %s", frame)
	}
}

// TestDecodeOnly: with validate: decode, a message its schema refuses but
// its decoder reads is routed; malformed JSON is still answered.
func TestDecodeOnly(t *testing.T) {
	cfg := config.Default()
	cfg.Validate = "decode"
	h := start(t, cfg)
	h.runAgent("fuse", responder("fuse"))
	c := h.dial("swarm", requester("swarm"))
	good := c.encode(request("swarm", responder("fuse"), "echo", `{"n":7}`, "lenient"))
	bad, missing := invalidButDecodable(t, c.codec, good)
	c.send(bad)
	if reply := c.decode(c.recv()); reply.Act != canonical.ActResult {
		t.Errorf("without %s, decode-only answered %s %+v", missing, reply.Act, reply.Error)
	}
	c.send([]byte(`{"message_type":`))
	if reply := c.decode(c.recv()); reply.Error == nil || !strings.Contains(reply.Error.Message, "not valid JSON") {
		t.Errorf("malformed JSON under decode-only: %+v", reply.Error)
	}
	// Text that is not UTF-8 is refused by the decoder itself: it is not
	// passed on changed.
	c.send(notUTF8(t, c.encode(request("swarm", responder("fuse"), "echo", `{"s":"utf8probe"}`, "bytes"))))
	if reply := c.decode(c.recv()); reply.Error == nil || !strings.Contains(reply.Error.Message, "swarm: payload.arguments.s: not valid UTF-8: 0xff at byte ") {
		t.Errorf("invalid UTF-8 under decode-only: %s %+v", reply.Act, reply.Error)
	}
}

// TestUndecodableNamed: a message that is JSON but does not decode is
// answered naming it, its id read where the dialect's record says it is:
// the message id, or bluelabel's task id.
func TestUndecodableNamed(t *testing.T) {
	h := start(t, nil)
	for _, tc := range []struct {
		dialect, frame, path, want string
	}{
		{"swarm", `{"message_id":"m-odd","message_type":"frobnicate","sender_id":"swarm-req","receiver_id":"x","timestamp":"2026-11-25T10:00:00Z","payload":{}}`,
			"correlation_id", "m-odd"},
		{"elizaacl", `{"mcp_version":"0.1.0","message_id":"e-odd","performative":"TASK_FROBNICATE","sender":{"agent_id":"elizaacl-req"},"receiver":{"agent_id":"x"},"timestamp":"2026-11-25T10:00:00Z","payload":{}}`,
			"in_reply_to", "e-odd"},
		{"bluelabel", `{"type":"task_frobnicate","sender_id":"BLUELABEL-REQ","recipient_id":"X","timestamp":"2026-11-25T10:00:00Z","task_id":"T-ODD","payload":{}}`,
			"task_id", "T-ODD"},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			c := h.dial(tc.dialect, requester(tc.dialect))
			c.send([]byte(tc.frame))
			answer := c.recv()
			if got := gjson.GetBytes(answer, tc.path).Str; got != tc.want {
				t.Errorf("%s %q, want %q: %s", tc.path, got, tc.want, answer)
			}
		})
	}
}
