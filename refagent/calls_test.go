package refagent

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// failureAs is what a dialect makes of a failure the agent sends: the act
// and error code its reader gets back.
type failureAs struct {
	act  canonical.Act
	code canonical.ErrorCode
}

// carried lists where a dialect cannot carry a failure's code as it is.
// collab reads REJECTED as a refusal, so it writes every failure code whose
// word would be REJECTED, and execution-failed, as INTERNAL; bluelabel
// writes invalid-arguments as VALIDATION_ERROR, which reads back as
// not-understood.
var carried = map[string]map[canonical.ErrorCode]failureAs{
	"collab": {
		canonical.ErrNotFound:         {canonical.ActFailure, canonical.ErrInternal},
		canonical.ErrInvalidArguments: {canonical.ActFailure, canonical.ErrInternal},
		canonical.ErrExecutionFailed:  {canonical.ActFailure, canonical.ErrInternal},
	},
	"bluelabel": {
		canonical.ErrInvalidArguments: {canonical.ActNotUnderstood, canonical.ErrInvalidMessage},
	},
}

// expectFailure returns what the caller of dialect reads for a failure of
// code.
func expectFailure(dialect string, code canonical.ErrorCode) failureAs {
	if f, found := carried[dialect][code]; found {
		return f
	}
	return failureAs{canonical.ActFailure, code}
}

const eddyCode = "def parse(lines):\n    return [l.split(' ')[3] for l in lines]\n"

// TestCalls wires two agents of each dialect back to back and calls every
// tool: results, failures and their codes, correlation, and the validity of
// every frame either agent sent.
func TestCalls(t *testing.T) {
	sentiment := canonical.Operation{Capability: sentimentCapability, Name: "sentiment-analysis"}
	cases := []struct {
		name   string
		op     canonical.Operation
		args   string
		result string              // the result body, as JSON; "" for a failure
		code   canonical.ErrorCode // the failure's code
		msg    []string            // substrings of the failure's message
	}{
		{name: "echo", op: op("echo"), args: `{"x":1,"y":["a",{"z":null}]}`, result: `{"x":1,"y":["a",{"z":null}]}`},
		{name: "add", op: op("add"), args: `{"a":2,"b":3.5}`, result: `{"sum":5.5}`},
		{name: "add negative", op: op("add"), args: `{"a":-2,"b":-40}`, result: `{"sum":-42}`},
		{name: "add missing b", op: op("add"), args: `{"a":2}`, code: canonical.ErrInvalidArguments, msg: []string{`"b"`, "missing"}},
		{name: "add string a", op: op("add"), args: `{"a":"2","b":3}`, code: canonical.ErrInvalidArguments, msg: []string{`"a"`, "number"}},
		{name: "sleep", op: op("sleep"), args: `{"ms":5}`, result: `{"slept_ms":5}`},
		{name: "sleep too long", op: op("sleep"), args: `{"ms":-1}`, code: canonical.ErrInvalidArguments, msg: []string{`"ms"`}},
		{name: "fail", op: op("fail"), args: `{}`, code: canonical.ErrExecutionFailed, msg: []string{defaultFailure}},
		{name: "fail with a message", op: op("fail"), args: `{"message":"disk on fire"}`, code: canonical.ErrExecutionFailed, msg: []string{"disk on fire"}},
		{name: "debug_code", op: op("debug_code"), args: `{"code_to_debug":` + quote(eddyCode) + `,"error_message":"IndexError: list index out of range","language":"python"}`,
			result: `{"analysis":"IndexError: a sequence was indexed at a position past its end. The cause: l.split(' ')[3] assumes that l.split(' ') has at least 4 items for every l in lines; a shorter one raises IndexError.",` +
				`"fixed_code":"def parse(lines):\n    return [l.split(' ')[3] for l in lines if len(l.split(' ')) > 3]\n",` +
				`"explanation":"Indexing past the end of a sequence raises IndexError; the subscript is now guarded by a length check, so short inputs are skipped (in a comprehension) or give None."}`},
		{name: "sentiment positive", op: sentiment, args: `{"text":"I really enjoyed using this new feature!"}`, result: `{"sentiment":"positive","score":0.5,"confidence":0.67}`},
		{name: "sentiment negated", op: sentiment, args: `{"text":"This is not good, it is slow and buggy.","language":"en"}`, result: `{"sentiment":"negative","score":-0.75,"confidence":0.8}`},
		{name: "sentiment no text", op: sentiment, args: `{"language":"en"}`, code: canonical.ErrInvalidArguments, msg: []string{`"text"`}},
		{name: "unknown tool", op: op("translate"), args: `{}`, code: canonical.ErrNotFound, msg: []string{`"translate"`, "echo, add, sleep, fail, debug_code, sentiment-analysis"}},
	}
	for _, dialect := range dialects.Names() {
		t.Run(dialect, func(t *testing.T) {
			p := startPair(t, dialect, "news")
			names := dialects.NamesSender(codecOf(t, dialect))
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
					defer cancel()
					reply, err := p.caller.Call(ctx, p.callee.ID(), tc.op, canonical.JSON(tc.args))
					if err != nil {
						t.Fatal(err)
					}
					// An answer in a dialect that names no agents (a2a)
					// says neither who sent it nor to whom: back to back,
					// the connection does.
					from, to := canonical.Address{Kind: canonical.AddressAgent, ID: p.callee.ID()}, canonical.Address{Kind: canonical.AddressAgent, ID: p.caller.ID()}
					if !names {
						from, to = canonical.Address{}, canonical.Address{}
					}
					if reply.Sender.ID != from.ID {
						t.Errorf("reply from %q, want %q", reply.Sender.ID, from.ID)
					}
					if reply.Receiver != to {
						t.Errorf("reply to %+v, want %+v", reply.Receiver, to)
					}
					if tc.result != "" {
						if reply.Act != canonical.ActResult {
							t.Fatalf("act %s (%+v), want result", reply.Act, reply.Error)
						}
						if got, want := body(t, dialect, reply), jsonValue(t, tc.result); !reflect.DeepEqual(got, want) {
							t.Errorf("result %v\nwant %v", got, want)
						}
						return
					}
					want := expectFailure(dialect, tc.code)
					if reply.Act != want.act || reply.Error == nil || reply.Error.Code != want.code {
						t.Fatalf("act %s error %+v, want %s with code %s", reply.Act, reply.Error, want.act, want.code)
					}
					for _, s := range tc.msg {
						if !strings.Contains(reply.Error.Message, s) {
							t.Errorf("message %q lacks %q", reply.Error.Message, s)
						}
					}
				})
			}
			checkValid(t, dialect, "the caller", p.callerFrames.all(Sent))
			checkValid(t, dialect, "the callee", p.calleeFrames.all(Sent))
		})
	}
}

// TestSleepBlocksNothing checks that a request being answered slowly holds
// up no other: an echo is answered while a long sleep is still under way.
func TestSleepBlocksNothing(t *testing.T) {
	for _, dialect := range dialects.Names() {
		t.Run(dialect, func(t *testing.T) {
			p := startPair(t, dialect)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			slept := make(chan error, 1)
			go func() {
				_, err := p.caller.Call(ctx, p.callee.ID(), op("sleep"), `{"ms":300000}`)
				slept <- err
			}()
			p.calleeFrames.waitFor(t, Received, func(f []byte) bool {
				env := decode(t, dialect, f)
				return env.Act == canonical.ActRequest && env.Operation.Name == "sleep"
			})
			reply, err := p.caller.Call(ctx, p.callee.ID(), op("echo"), `{"n":1}`)
			if err != nil || reply.Act != canonical.ActResult {
				t.Fatalf("echo during a sleep: %v %+v", err, reply)
			}
			select {
			case err := <-slept:
				t.Fatalf("the sleep of 300 s ended before the echo's reply was read: %v", err)
			default:
			}
		})
	}
}

// TestCallBeforeServing checks that Call and Send need a transport.
func TestCallBeforeServing(t *testing.T) {
	a, err := New(Options{Dialect: "swarm"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Call(context.Background(), "x", op("echo"), `{}`); err == nil || !strings.Contains(err.Error(), "no transport") {
		t.Errorf("Call: %v, want a no-transport error", err)
	}
	if err := a.Send(context.Background(), &canonical.Envelope{Act: canonical.ActEvent}); err == nil || !strings.Contains(err.Error(), "no transport") {
		t.Errorf("Send: %v, want a no-transport error", err)
	}
}

// TestSendEvent checks that events reach the other agent's observer and
// get no reply.
func TestSendEvent(t *testing.T) {
	for _, dialect := range []string{"collab", "fuse", "swarm"} {
		t.Run(dialect, func(t *testing.T) {
			p := startPair(t, dialect)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			ev := &canonical.Envelope{Act: canonical.ActEvent, Receiver: canonical.Address{Kind: canonical.AddressBroadcast}, Operation: op("build-finished"), Arguments: `{"ok":true}`}
			if err := p.caller.Send(ctx, ev); err != nil {
				t.Fatal(err)
			}
			// the echo's reply comes after the event was read: one reader, in order
			if _, err := p.caller.Call(ctx, p.callee.ID(), op("echo"), `{}`); err != nil {
				t.Fatal(err)
			}
			var event *canonical.Envelope
			for _, f := range p.calleeFrames.all(Received) {
				if env := decode(t, dialect, f); env.Act == canonical.ActEvent {
					if event != nil {
						t.Fatalf("the callee saw a second event: %+v", env)
					}
					event = env
				}
			}
			if event == nil || event.Sender.ID != p.caller.ID() || event.Operation.Name != "build-finished" || event.ID == "" {
				t.Fatalf("the callee saw the event as %+v", event)
			}
			for _, f := range p.calleeFrames.all(Sent) {
				if env := decode(t, dialect, f); env.InReplyTo == event.ID {
					t.Errorf("the callee answered the event with %s", env.Act)
				}
			}
		})
	}
}

func op(name string) canonical.Operation { return canonical.Operation{Name: name} }

// quote writes s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s) // strings always marshal
	return string(b)
}

// TestCallCarriesDeadline: a call whose context has a deadline sends a
// request with the time left as its time to live where the dialect has one
// (fuse has none), and no time to live without a deadline.
func TestCallCarriesDeadline(t *testing.T) {
	const within = 90 * time.Second
	for _, dialect := range dialects.Names() {
		t.Run(dialect, func(t *testing.T) {
			p := startPair(t, dialect)
			holds := p.caller.codec.Holds(canonical.ActRequest).Has(canonical.CTTL)
			ctx, cancel := context.WithTimeout(context.Background(), within)
			defer cancel()
			if _, err := p.caller.Call(ctx, p.callee.ID(), op("echo"), canonical.JSON(`{}`)); err != nil {
				t.Fatal(err)
			}
			if _, err := p.caller.Call(context.Background(), p.callee.ID(), op("echo"), canonical.JSON(`{}`)); err != nil {
				t.Fatal(err)
			}
			var ttls []canonical.Duration
			for _, f := range p.callerFrames.all(Sent) {
				if env := decode(t, dialect, f); env.Act == canonical.ActRequest {
					ttls = append(ttls, env.TTL)
				}
			}
			if len(ttls) != 2 {
				t.Fatalf("%d requests sent, want 2", len(ttls))
			}
			if got := ttls[0]; holds != (got.Set && got.D > within-10*time.Second && got.D <= within) {
				t.Errorf("with a deadline %s ahead: time to live %+v (the dialect has one: %v)", within, got, holds)
			}
			if ttls[1].Set {
				t.Errorf("with no deadline: time to live %+v", ttls[1])
			}
		})
	}
}
