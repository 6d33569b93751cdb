package conformance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// agentEnv names, in the environment of the test binary run as a child,
// the agent it is to be: "DIALECT" for the reference agent, or
// "DIALECT:FAULT" for one of faults.
const agentEnv = "CONFORMANCE_TEST_AGENT"

// fault is a reference agent that breaks one rule.
type fault struct {
	dialect string
	// breaks is the requirement the fault breaks; the run must fail it (or
	// warn, for a SHOULD) and no other MUST.
	breaks string
	// shows is what the report of breaks must say (detail, frame or rule).
	shows string
	// opening rewrites the frames the agent opens with.
	opening func(intro [][]byte) [][]byte
	// reply rewrites what the reference agent answers to a frame; false
	// makes the agent exit with status 1 instead.
	reply func(in []byte, out [][]byte) ([][]byte, bool)
	// delay holds back the answers to a frame.
	delay func(in []byte) time.Duration
}

// faults are the agents that break one rule each.
var faults = map[string]fault{
	"wrong-correlation": {dialect: "swarm", breaks: "swarm.request.correlated", shows: "it quotes \"not-the-request\"",
		reply: onType("message_type", []string{"response", "error"}, func(f []byte) []byte { return set(f, "correlation_id", "not-the-request") })},
	"silent-handshake": {dialect: "swarm", breaks: "swarm.handshake.response", shows: "no answer within",
		reply: onType("message_type", []string{"handshake_response"}, drop)},
	"chatty-first": {dialect: "swarm", breaks: "swarm.handshake.first", shows: "the first message must be query-capabilities",
		opening: func(intro [][]byte) [][]byte {
			hello := []byte(`{"message_id":"hello-1","message_type":"notification","sender_id":"swarm-agent","receiver_id":null,"timestamp":"2026-01-10T14:30:00Z","correlation_id":null,"priority":"normal","payload":{"event_type":"hello","data":{}}}`)
			return append([][]byte{hello}, intro...)
		}},
	"silent-unknown": {dialect: "swarm", breaks: "swarm.unknown.answered", shows: "no answer within",
		reply: func(in []byte, out [][]byte) ([][]byte, bool) {
			if strings.Contains(string(in), unknownOperation) {
				return nil, true
			}
			return out, true
		}},
	"slow": {dialect: "swarm", breaks: "swarm.ttl.met", shows: "past its own time limit",
		delay: func(in []byte) time.Duration {
			if gjson.GetBytes(in, "payload.timeout").Exists() {
				return 1200 * time.Millisecond
			}
			return 0
		}},
	"oversize": {dialect: "swarm", breaks: "swarm.frames.valid", shows: "a frame is at most 1048576 bytes",
		opening: func(intro [][]byte) [][]byte {
			big := `{"message_id":"big-1","message_type":"notification","sender_id":"swarm-agent","receiver_id":null,"timestamp":"2026-01-10T14:30:00Z","correlation_id":null,"priority":"normal","payload":{"event_type":"big","data":{"blob":"` +
				strings.Repeat("x", DefaultMaxFrame+10) + `"}}}`
			return append([][]byte{[]byte(big)}, intro...)
		}},
	"quotes-nothing": {dialect: "elizaacl", breaks: "elizaacl.request.correlated", shows: "it quotes \"nothing\"",
		reply: onType("performative", []string{"INFORM_RESULT"}, func(f []byte) []byte { return set(f, "in_reply_to", "nothing") })},
	"double-answer": {dialect: "elizaacl", breaks: "elizaacl.conversation.single", shows: "another answer came after the final one",
		reply: func(in []byte, out [][]byte) ([][]byte, bool) {
			var twice [][]byte
			for _, f := range out { // the TASK_ACCEPT once, the INFORM_RESULT twice
				twice = append(twice, f)
				if gjson.GetBytes(f, "performative").String() == "INFORM_RESULT" {
					twice = append(twice, f)
				}
			}
			return twice, true
		}},
	"capabilities-unquoted": {dialect: "elizaacl", breaks: "elizaacl.capabilities.in_reply_to", shows: "it quotes \"unknown\"",
		reply: onType("performative", []string{"INFORM_CAPABILITIES"}, func(f []byte) []byte { return set(f, "in_reply_to", "unknown") })},
	"crash-on-malformed": {dialect: "collab", breaks: "collab.malformed.survives", shows: "the agent exited (exit status 1)",
		reply: func(in []byte, out [][]byte) ([][]byte, bool) { return out, gjson.ValidBytes(in) }},
	"bad-timestamp": {dialect: "collab", breaks: "collab.frames.valid", shows: "header.timestamp",
		reply: onType("header.type", []string{"RESPONSE"}, func(f []byte) []byte { return set(f, "header.timestamp", "yesterday") })},
	"garbage": {dialect: "collab", breaks: "collab.frames.valid", shows: "not valid JSON",
		opening: func(intro [][]byte) [][]byte { return append([][]byte{[]byte("hello, I am not JSON")}, intro...) }},
	"no-trace": {dialect: "collab", breaks: "collab.trace.echo", shows: "at trace.traceId: must be present",
		reply: onType("header.type", []string{"RESPONSE"}, func(f []byte) []byte { b, _ := sjson.DeleteBytes(f, "trace"); return b })},
	"wrong-task": {dialect: "bluelabel", breaks: "bluelabel.request.correlated", shows: "it quotes \"OTHER-TASK\"",
		reply: onType("type", []string{"task_result", "error"}, func(f []byte) []byte { return set(f, "task_id", "OTHER-TASK") })},
	"crash-on-invalid": {dialect: "bluelabel", breaks: "bluelabel.invalid.survives", shows: "the agent exited (exit status 1)",
		reply: func(in []byte, out [][]byte) ([][]byte, bool) {
			c, _ := builtin.Default().Lookup("bluelabel")
			return out, !gjson.ValidBytes(in) || len(c.Validate(in)) == 0
		}},
	"echo-token": {dialect: "fuse", breaks: "fuse.auth.not_echoed", shows: "must not contain",
		reply: func(in []byte, out [][]byte) ([][]byte, bool) {
			if auth := gjson.GetBytes(in, "authentication"); auth.Exists() {
				for i := range out {
					out[i], _ = sjson.SetRawBytes(out[i], "authentication", []byte(auth.Raw))
				}
			}
			return out, true
		}},
	"ignores-auth": {dialect: "fuse", breaks: "fuse.auth.answered", shows: "no answer within",
		reply: func(in []byte, out [][]byte) ([][]byte, bool) {
			if gjson.GetBytes(in, "authentication").Exists() {
				return nil, true
			}
			return out, true
		}},
	"wrong-request-id": {dialect: "fuse", breaks: "fuse.request.correlated", shows: "it quotes \"not-the-request\"",
		reply: onType("messageType", []string{"response"}, func(f []byte) []byte {
			if gjson.GetBytes(f, "content.capabilities").Exists() {
				return f
			}
			return set(f, "content.requestId", "not-the-request")
		})},
}

// onType applies edit to the answers whose member at path is one of types.
func onType(path string, types []string, edit func([]byte) []byte) func([]byte, [][]byte) ([][]byte, bool) {
	return func(_ []byte, out [][]byte) ([][]byte, bool) {
		var kept [][]byte
		for _, f := range out {
			t := gjson.GetBytes(f, path).String()
			for _, want := range types {
				if t == want {
					f = edit(f)
					break
				}
			}
			if f != nil {
				kept = append(kept, f)
			}
		}
		return kept, true
	}
}

// drop is the edit that leaves a frame out.
func drop([]byte) []byte { return nil }

// set sets a string member.
func set(f []byte, path, value string) []byte {
	out, err := sjson.SetBytes(f, path, value)
	if err != nil {
		panic(err)
	}
	return out
}

// serveTestAgent runs the agent spec names on standard input and output,
// until standard input ends; it returns the exit status.
func serveTestAgent(spec string) int {
	dialect, name, _ := strings.Cut(spec, ":")
	a, err := refagent.New(refagent.Options{Dialect: dialect})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if name == "" {
		if err := a.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if name == "flood" {
		return flood(a)
	}
	f, ok := faults[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "no test agent %q\n", name)
		return 2
	}
	return f.serve(a)
}

// serve runs a faulty agent: the reference agent's Handle with the
// fault's changes, each frame answered on its own goroutine.
func (f fault) serve(a *refagent.Agent) int {
	var mu sync.Mutex
	write := func(frames [][]byte) {
		mu.Lock()
		defer mu.Unlock()
		for _, fr := range frames {
			os.Stdout.Write(append(bytes.Clone(fr), '\n'))
		}
	}
	intro := a.Introduction()
	if f.opening != nil {
		intro = f.opening(intro)
	}
	write(intro)
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var wg sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			out := a.Handle(bytes.Clone(line))
			carryOn := true
			if f.reply != nil {
				out, carryOn = f.reply(line, out)
			}
			if !carryOn {
				os.Exit(1)
			}
			var wait time.Duration
			if f.delay != nil {
				wait = f.delay(line)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(wait)
				write(out)
			}()
		}
		if err != nil {
			wg.Wait()
			return 0
		}
	}
}

// floodFrames is how many frames the flooding agent sends.
const floodFrames = 3000

// flood serves a swarm agent that sends floodFrames notifications when it
// starts, then behaves.
func flood(a *refagent.Agent) int {
	hello := `{"message_id":"flood-%d","message_type":"notification","sender_id":"swarm-agent","receiver_id":null,"timestamp":"2026-01-10T14:30:00Z","correlation_id":null,"priority":"normal","payload":{"event_type":"flood","data":{}}}`
	f := fault{opening: func(intro [][]byte) [][]byte {
		for i := range floodFrames {
			intro = append(intro, fmt.Appendf(nil, hello, i))
		}
		return intro
	}}
	return f.serve(a)
}
