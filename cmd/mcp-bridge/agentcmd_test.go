package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
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
