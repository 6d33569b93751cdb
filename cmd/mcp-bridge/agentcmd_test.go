package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// TestAgentUsage checks the command lines the agent command refuses.
func TestAgentUsage(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no dialect", []string{"--stdio"}, "usage: mcp-bridge agent --dialect DIALECT"},
		{"no transport", []string{"--dialect", "swarm"}, "usage: mcp-bridge agent"},
		{"two transports", []string{"--dialect", "swarm", "--stdio", "--connect", "ws://127.0.0.1:1"}, "usage: mcp-bridge agent"},
		{"listen and stdio", []string{"--dialect", "swarm", "--stdio", "--listen", "127.0.0.1:0"}, "usage: mcp-bridge agent"},
		{"a stray argument", []string{"--dialect", "swarm", "--stdio", "extra"}, "usage: mcp-bridge agent"},
		{"unknown dialect", []string{"--dialect", "klingon", "--stdio"}, `agent: unknown dialect "klingon"`},
		{"unknown tool", []string{"--dialect", "swarm", "--stdio", "--tools", "add,teleport"}, `unknown tool "teleport"`},
		{"an id bluelabel cannot carry", []string{"--dialect", "bluelabel", "--stdio", "--id", "jules"}, `bluelabel cannot carry the id "jules"`},
		{"unknown log level", []string{"--dialect", "swarm", "--stdio", "--log-level", "chatty"}, `--log-level: "chatty"`},
		{"unknown flag", []string{"--dialect", "swarm", "--stdio", "--verbose"}, "flag provided but not defined"},
		{"a call over stdio", []string{"--dialect", "swarm", "--stdio", "--call", "add"}, "--call needs --connect URL, not --stdio"},
		{"arguments without a call", []string{"--dialect", "swarm", "--connect", "ws://127.0.0.1:1", "--args", "{}"}, "--args goes with --call OP"},
		{"a receiver without a call", []string{"--dialect", "swarm", "--connect", "ws://127.0.0.1:1", "--to", "jules"}, "--to goes with --call OP"},
		{"an empty call", []string{"--dialect", "swarm", "--connect", "ws://127.0.0.1:1", "--call", ""}, "--call needs an operation"},
		{"arguments that are not JSON", []string{"--dialect", "swarm", "--connect", "ws://127.0.0.1:1", "--call", "add", "--args", "{a:1}"}, "--args: not a JSON value: {a:1}"},
		{"no time to call", []string{"--dialect", "swarm", "--connect", "ws://127.0.0.1:1", "--call", "add", "--timeout", "0s"}, "--timeout must be positive"},
		{"a call that subscribes", []string{"--dialect", "swarm", "--connect", "ws://127.0.0.1:1", "--call", "add", "--subscribe", "news"}, "takes no --subscribe"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := runAgent(tc.args, strings.NewReader(""), &out, &errOut); code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errOut.String(), tc.stderr) || out.Len() != 0 {
				t.Errorf("stdout %q stderr %q, want %q on stderr", out.String(), errOut.String(), tc.stderr)
			}
		})
	}
}

// TestAgentStdio runs the agent command in process on a request read from
// standard input: the introduction and the reply on standard output, JSON
// log lines on standard error, exit 0 at the end of input.
func TestAgentStdio(t *testing.T) {
	req := agentRequest(t, "collab", "jules")
	var out, errOut bytes.Buffer
	code := runAgent([]string{"--dialect", "collab", "--id", "jules", "--stdio", "--tools", "add,echo", "--log-level", "debug"}, strings.NewReader(string(req)+"\n"), &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines on stdout, want the introduction and the reply:\n%s", len(lines), out.String())
	}
	intro := agentDecode(t, "collab", lines[0])
	if intro.Act != canonical.ActInformCapabilities || len(intro.Capabilities.Tools) != 2 {
		t.Errorf("introduction %s", lines[0])
	}
	checkAgentReply(t, "collab", lines[1])
	logs := agentLogs(t, errOut.String())
	for _, want := range []string{"agent serving standard input and output", "frame sent", "frame received", "agent stopped"} {
		if !logs[want] {
			t.Errorf("no %q log line in:\n%s", want, errOut.String())
		}
	}
}

// TestAgentProcess runs `mcp-bridge agent --stdio` as a child process: one
// request and its reply over its standard input and output, exit 0 at the
// end of input; and exit 0 on SIGTERM.
func TestAgentProcess(t *testing.T) {
	if _, registered := commands()["agent"]; !registered {
		t.Fatal(`main.go does not register the agent command: commands() needs "agent": {..., runAgent}`)
	}
	start := func(t *testing.T) (*exec.Cmd, io.WriteCloser, *bufio.Scanner, *bytes.Buffer) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "agent", "--dialect", "swarm", "--id", "jules", "--stdio", "--log-level", "debug")
		cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		lines := bufio.NewScanner(stdout)
		if !lines.Scan() {
			t.Fatalf("no introduction; stderr %s", stderr.String())
		}
		if intro := agentDecode(t, "swarm", lines.Text()); intro.Act != canonical.ActQueryCapabilities || intro.Sender.ID != "jules" {
			t.Fatalf("introduction %s", lines.Text())
		}
		return cmd, stdin, lines, &stderr
	}

	t.Run("a request, then the end of input", func(t *testing.T) {
		cmd, stdin, lines, stderr := start(t)
		if _, err := stdin.Write(append(agentRequest(t, "swarm", "jules"), '\n')); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no reply; stderr %s", stderr.String())
		}
		checkAgentReply(t, "swarm", lines.Text())
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit: %v; stderr %s", err, stderr.String())
		}
		logs := agentLogs(t, stderr.String())
		if !logs["frame received"] || !logs["agent stopped"] {
			t.Errorf("log lines %v", logs)
		}
	})
	t.Run("SIGTERM", func(t *testing.T) {
		cmd, _, _, stderr := start(t)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit: %v; stderr %s", err, stderr.String())
		}
	})
}

// agentRequest is a request for add {a: 2, b: 3} to the agent to, in
// dialect.
func agentRequest(t *testing.T, dialect, to string) []byte {
	t.Helper()
	c, _ := builtin.Default().Lookup(dialect)
	req, err := c.Encode(nil, &canonical.Envelope{Act: canonical.ActRequest, ID: "req-1", Sender: canonical.Party{ID: "eddy"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: to}, Operation: canonical.Operation{Name: "add"}, Arguments: `{"a":2,"b":3}`}, &dialects.EncodeContext{})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// agentDecode decodes one line of the agent's output, which must also be
// valid in its dialect.
func agentDecode(t *testing.T, dialect, line string) *canonical.Envelope {
	t.Helper()
	c, _ := builtin.Default().Lookup(dialect)
	if problems := c.Validate([]byte(line)); len(problems) > 0 {
		t.Errorf("invalid %s message %s: %v", dialect, line, problems)
	}
	env, err := c.Decode([]byte(line))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return env
}

// checkAgentReply checks the reply to agentRequest.
func checkAgentReply(t *testing.T, dialect, line string) {
	t.Helper()
	r := agentDecode(t, dialect, line)
	if r.Act != canonical.ActResult || r.InReplyTo != "req-1" || r.Receiver.ID != "eddy" || string(r.Result) != `{"sum":5}` {
		t.Errorf("reply %s", line)
	}
}

// agentLogs checks that every line of stderr is a JSON log line, and
// returns the messages seen, with the direction of "frame" lines ("frame
// sent", "frame received").
func agentLogs(t *testing.T, stderr string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var l struct {
			Msg       string `json:"msg"`
			Level     string `json:"level"`
			Direction string `json:"direction"`
			Agent     string `json:"agent"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil || l.Level == "" || l.Agent == "" {
			t.Errorf("not a JSON log line of the agent: %s", line)
			continue
		}
		if l.Direction != "" {
			l.Msg += " " + l.Direction
		}
		seen[l.Msg] = true
	}
	return seen
}

// waitServing waits until the bridge at addr lists the agent id READY
// with the tool capability among its capabilities (any, if capability is
// empty).
func waitServing(t *testing.T, addr, id, capability string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	query := ""
	if capability != "" {
		query = "?capability=" + url.QueryEscape(capability)
	}
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/v1/agents" + query); err == nil {
			var list struct {
				Agents []struct{ ID, Status string }
			}
			err = json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
			for _, a := range list.Agents {
				if err == nil && a.ID == id && a.Status == "READY" {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the bridge at %s never listed %s READY with %s", addr, id, capability)
}

// TestAgentCall pokes a running bridge (`serve` as a child) from the
// command line: `agent --call` sends one request in its dialect, to a
// named agent or routed by operation, prints the result and exits 0, or
// prints the error and exits 1. A reference agent with the default id
// serves the calls, and callers do not take its place.
func TestAgentCall(t *testing.T) {
	_, addr, _ := serveChild(t, "--listen", "127.0.0.1:0")
	bridgeURL := "ws://" + addr
	served, err := refagent.New(refagent.Options{Dialect: "swarm"}) // swarm-agent, every tool
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- served.Connect(ctx, bridgeURL, "") }()
	defer func() { cancel(); <-done }()
	waitServing(t, addr, "swarm-agent", "sentiment-analysis")

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // the whole of stdout
		stderr string // a part of stderr
	}{
		{"swarm to swarm-agent", []string{"--dialect", "swarm", "--call", "add", "--args", `{"a":2,"b":3}`, "--to", "swarm-agent"}, exitOK, "{\"sum\":5}\n", ""},
		{"swarm, routed by operation", []string{"--dialect", "swarm", "--call", "echo", "--args", `{"x":[1,2]}`}, exitOK, "{\"x\":[1,2]}\n", ""},
		{"elizaacl, routed by operation", []string{"--dialect", "elizaacl", "--call", "add", "--args", `{"a":1,"b":1}`}, exitOK, "{\"sum\":2}\n", ""},
		{"fuse, capability/action", []string{"--dialect", "fuse", "--call", "text-analysis/sentiment-analysis", "--args", `{"text":"I love it"}`, "--to", "swarm-agent"},
			exitOK, "{\"sentiment\":\"positive\",\"score\":0.5,\"confidence\":0.67}\n", ""},
		{"collab, no arguments", []string{"--dialect", "collab", "--call", "echo", "--to", "swarm-agent"}, exitOK, "{}\n", ""},
		{"bluelabel, with an id of its own", []string{"--dialect", "bluelabel", "--id", "POKER", "--call", "add", "--args", `{"a":2,"b":2}`}, exitOK,
			"{\"output\":\"result in data\",\"data\":{\"sum\":4}}\n", ""},
		{"the agent fails", []string{"--dialect", "fuse", "--call", "fail", "--args", `{"message":"boom"}`, "--to", "swarm-agent"}, exitInvalid, "",
			"mcp-bridge agent: call fail: swarm-agent answered failure execution-failed: boom"},
		{"nobody serves it", []string{"--dialect", "swarm", "--call", "teleport"}, exitInvalid, "",
			`call teleport: mcp-bridge answered failure not-found: no connected agent serves "teleport"`},
		{"no answer in time", []string{"--dialect", "fuse", "--call", "sleep", "--args", `{"ms":5000}`, "--to", "swarm-agent", "--timeout", "300ms"}, exitInvalid, "",
			"call sleep: no answer within 300ms"},
		// collab carries the time left as the request's ttl: the bridge times
		// the request out then too, and its timeout may come first.
		{"no answer in time, the bridge told", []string{"--dialect", "collab", "--call", "sleep", "--args", `{"ms":5000}`, "--to", "swarm-agent", "--timeout", "300ms"}, exitInvalid, "",
			"no answer"},
		{"no bridge there", []string{"--dialect", "swarm", "--call", "add", "--connect", "ws://127.0.0.1:1"}, exitInvalid, "",
			"call add: agent swarm-caller: connecting to ws://127.0.0.1:1/ws/swarm?agent=swarm-caller"},
		// Every swarm caller above connected as swarm-caller, not as the
		// served agent's swarm-agent: it still gets its requests.
		{"swarm-agent still serves", []string{"--dialect", "swarm", "--call", "add", "--args", `{"a":20,"b":22}`, "--to", "swarm-agent"}, exitOK, "{\"sum\":42}\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--connect", bridgeURL}, tc.args...)
			var out, errOut bytes.Buffer
			code := runAgent(args, strings.NewReader(""), &out, &errOut)
			if code != tc.code || out.String() != tc.stdout || !strings.Contains(errOut.String(), tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, %q on stderr", code, out.String(), errOut.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestAgentReconnects runs `mcp-bridge agent --connect` and `mcp-bridge
// serve` as child processes. The bridge stops (SIGTERM, closing with 1001)
// and another starts on the same port: the agent connects to it, declares
// its tools again, answers through it, and exits 0 on SIGINT.
func TestAgentReconnects(t *testing.T) {
	first, addr, firstErr := serveChild(t, "--listen", "127.0.0.1:0")
	cmd := exec.Command(os.Args[0], "agent", "--dialect", "fuse", "--id", "analyst", "--tools", "add,sentiment-analysis",
		"--connect", "ws://"+addr, "--backoff-min", "20ms", "--backoff-max", "200ms")
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	waitServing(t, addr, "analyst", "sentiment-analysis")

	if err := first.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, first, firstErr); code != exitOK {
		t.Fatalf("the first bridge exited %d; stderr %s", code, firstErr.String())
	}
	serveChild(t, "--listen", addr)
	waitServing(t, addr, "analyst", "sentiment-analysis")
	var out, errOut bytes.Buffer
	if code := runAgent([]string{"--dialect", "swarm", "--connect", "ws://" + addr, "--call", "add", "--args", `{"a":2,"b":3}`, "--to", "analyst"},
		strings.NewReader(""), &out, &errOut); code != exitOK || out.String() != "{\"sum\":5}\n" {
		t.Errorf("a call through the second bridge: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, stderr); code != exitOK {
		t.Errorf("the agent exited %d on SIGINT; stderr %s", code, stderr.String())
	}
	logs := agentLogs(t, stderr.String())
	for _, want := range []string{"agent connecting", "agent: the bridge went away; reconnecting", "agent: reconnected", "agent stopped"} {
		if !logs[want] {
			t.Errorf("no %q log line in:\n%s", want, stderr.String())
		}
	}
}
