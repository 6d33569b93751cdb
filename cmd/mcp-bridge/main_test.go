package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain lets the test binary act as mcp-bridge itself when asked, so
// that one test can run the real program as a child process.
func TestMain(m *testing.M) {
	if os.Getenv("MCP_BRIDGE_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

type cliCase struct {
	name     string
	args     []string
	stdin    string
	code     int
	stdout   []string // substrings stdout must contain
	stderr   []string // substrings stderr must contain
	noStderr bool
	exactOut string // when set, all that stdout must hold
}

func TestCLI(t *testing.T) {
	garbage := `{"message_type": "request", "sender_id": 7}`
	// A swarm request whose argument text holds a byte that is not UTF-8.
	badUTF8 := "{\"message_id\":\"m1\",\"message_type\":\"request\",\"sender_id\":\"a\",\"receiver_id\":\"b\"," +
		"\"payload\":{\"tool_name\":\"echo\",\"arguments\":{\"text\":\"ab\xffcd\"}}}"
	cases := []cliCase{
		{name: "help", args: []string{"help"}, code: 0, stdout: []string{"translate", "validate"}},
		{name: "no command", args: nil, code: 2, stdout: []string{"usage: mcp-bridge"}},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: []string{`unknown command "frobnicate"`}},
		{name: "version", args: []string{"version"}, code: 0, stdout: []string{"mcp-bridge "}},
		{name: "dialects", args: []string{"dialects"}, code: 0, stdout: []string{"swarm", "accept=(none)", "refuse~error"}},

		{name: "translate swarm to collab", args: []string{"translate", "--from", "swarm", "--to", "collab", "testdata/swarm_request.json"},
			code: 0, stdout: []string{`"type": "REQUEST"`, `"action": "process_data"`, `"priority": 3`, `"ttl": 30000`}, noStderr: true},
		{name: "translate auto, flags after file", args: []string{"translate", "testdata/swarm_request.json", "--to", "fuse", "--compact"},
			code: 0, stdout: []string{`"messageType":"request"`, `"action":"process_data"`}},
		{name: "translate from stdin", args: []string{"translate", "--to", "swarm", "-"}, stdin: readFile(t, "testdata/elizaacl_request.json"),
			code: 0, stdout: []string{`"tool_name": "debug_code"`, `"priority": "normal"`},
			stderr: []string{"warning: elizaacl -> swarm", "language", "ontology", "reply_with", "description", "time"}},
		{name: "strict loss", args: []string{"translate", "--strict", "--to", "swarm", "testdata/elizaacl_request.json"},
			code: 1, stderr: []string{"error: elizaacl -> swarm", "--strict"}},
		{name: "malformed JSON", args: []string{"translate", "--from", "swarm", "--to", "collab", "-"}, stdin: `{"message_type":`,
			code: 1, stderr: []string{"swarm: not valid JSON: unexpected end of JSON input at byte 16"}},
		{name: "malformed JSON detected", args: []string{"translate", "--to", "collab", "-"}, stdin: `{"performative":"TASK_REQUEST","x" 1}`,
			code: 1, stderr: []string{"auto: not valid JSON: invalid character '1' after object key at byte 35"}},
		{name: "invalid UTF-8 refused under strict", args: []string{"translate", "--strict", "--to", "collab", "-"}, stdin: badUTF8,
			code: 1, stderr: []string{"swarm: payload.arguments.text: not valid UTF-8: 0xff at byte 131"}},
		{name: "invalid UTF-8 refused", args: []string{"translate", "--to", "collab", "-"}, stdin: badUTF8,
			code: 1, stderr: []string{"swarm: payload.arguments.text: not valid UTF-8: 0xff at byte 131"}},
		{name: "wrong type names the path", args: []string{"translate", "--from", "swarm", "--to", "collab", "-"}, stdin: garbage,
			code: 1, stderr: []string{"swarm: sender_id: must be a string, got a number (7)"}},
		{name: "unknown message type", args: []string{"translate", "--from", "swarm", "--to", "collab", "-"}, stdin: `{"message_type":"gossip","sender_id":"a","payload":{}}`,
			code: 1, stderr: []string{`swarm: message_type: unknown message type "gossip"`}},
		{name: "undetectable", args: []string{"translate", "--to", "collab", "-"}, stdin: `{"hello":"world"}`,
			code: 1, stderr: []string{"no dialect recognises this message"}},
		{name: "missing --to", args: []string{"translate", "testdata/swarm_request.json"}, code: 2, stderr: []string{"usage: mcp-bridge translate"}},
		{name: "unknown target", args: []string{"translate", "--to", "klingon", "testdata/swarm_request.json"}, code: 2, stderr: []string{`unknown dialect "klingon"`}},
		{name: "unknown flag", args: []string{"translate", "--to", "swarm", "--bogus"}, code: 2, stderr: []string{"flag provided but not defined"}},
		{name: "missing file", args: []string{"translate", "--to", "swarm", "testdata/nope.json"}, code: 1, stderr: []string{"nope.json"}},

		{name: "validate ok", args: []string{"validate", "testdata/swarm_request.json"}, code: 0, stdout: []string{"swarm_request.json: ok (swarm)"}},
		{name: "validate rule", args: []string{"validate", "--dialect", "swarm", "testdata/swarm_timeout_900.json"},
			code: 1, stdout: []string{"swarm: payload.timeout: must be between 1 and 300, got 900"}},
		{name: "validate several", args: []string{"validate", "testdata/swarm_request.json", "testdata/swarm_timeout_900.json"},
			code: 1, stdout: []string{"ok (swarm)", "must be between 1 and 300"}},
		{name: "validate decode error, once", args: []string{"validate", "--dialect", "swarm", "-"},
			stdin: `{"message_type":"request","sender_id":7,"receiver_id":"b","payload":{"tool_name":"t"}}`,
			code:  1, exactOut: "<stdin>: swarm: sender_id: must be a string, got a number (7)\n"},
		{name: "validate syntax error, once", args: []string{"validate", "--dialect", "elizaacl", "-"}, stdin: `{"performative":"TASK_REQUEST","x" 1}`,
			code: 1, exactOut: "<stdin>: elizaacl: not valid JSON: invalid character '1' after object key at byte 35\n"},
		{name: "validate missing member, once", args: []string{"validate", "--dialect", "swarm", "-"}, stdin: `{"sender_id":"a","payload":{}}`,
			code: 1, exactOut: "<stdin>: swarm: message_type: missing\n"},
		{name: "validate invalid UTF-8, once", args: []string{"validate", "-"}, stdin: badUTF8,
			code: 1, exactOut: "<stdin>: swarm: payload.arguments.text: not valid UTF-8: 0xff at byte 131\n"},
		{name: "validate a swarm null timeout", args: []string{"validate", "-"},
			stdin: `{"message_type":"request","sender_id":"a","receiver_id":"b","payload":{"tool_name":"t","timeout":null}}`,
			code:  0, exactOut: "<stdin>: ok (swarm)\n"},
		{name: "validate no files", args: []string{"validate"}, code: 2, stderr: []string{"usage: mcp-bridge validate"}},
		{name: "validate a capability declaration", args: []string{"validate", "testdata/fuse_capabilities.json"},
			code: 0, exactOut: "testdata/fuse_capabilities.json: ok (fuse, a capability declaration naming no sender: the agent of its connection sends it)\n"},
		{name: "validate a capability declaration with its sender", args: []string{"validate", "--sender", "text-bot", "testdata/fuse_capabilities.json"},
			code: 0, exactOut: "testdata/fuse_capabilities.json: ok (fuse, a capability declaration of text-bot)\n"},
		{name: "validate another sender", args: []string{"validate", "--sender", "agent-9", "testdata/swarm_request.json"},
			code: 1, exactOut: "testdata/swarm_request.json: swarm: the message names its sender \"agent-1\", not \"agent-9\" (--sender)\n"},
		{name: "translate a capability declaration", args: []string{"translate", "--sender", "text-bot", "--to", "swarm", "testdata/fuse_capabilities.json"},
			code: 0, stdout: []string{`"sender_id": "text-bot"`, `"message_type": "handshake_response"`, `"sentiment-analysis"`}},
		{name: "translate a capability declaration naming no sender", args: []string{"translate", "--to", "swarm", "testdata/fuse_capabilities.json"},
			code: 1, stderr: []string{"fuse -> swarm: the capability declaration names no sender, and swarm needs one", "hint: name it with --sender ID"}},
		{name: "translate with another sender", args: []string{"translate", "--sender", "agent-9", "--to", "collab", "testdata/swarm_request.json"},
			code: 1, stderr: []string{`swarm: the message names its sender "agent-1", not "agent-9"`}},

		{name: "declared dialect", args: []string{"translate", "--mapping", "../../examples/hook.yaml", "--to", "swarm", "testdata/hook.json"},
			code: 0, stdout: []string{`"tool_name": "debug_code"`, `"sender_id": "ci-bot"`}, noStderr: true},
		{name: "into a declared dialect", args: []string{"translate", "--mapping", "../../examples/hook.yaml", "--to", "hook", "--compact", "testdata/swarm_request.json"},
			code: 0, stdout: []string{`"hook":"1"`, `"event":"call"`, `"action":"process_data"`}},
		{name: "validate a declared dialect", args: []string{"validate", "--mapping", "../../examples/hook.yaml", "testdata/hook.json"},
			code: 0, stdout: []string{"hook.json: ok (hook)"}},
		{name: "declared dialect unknown without its file", args: []string{"translate", "--to", "hook", "testdata/swarm_request.json"},
			code: 2, stderr: []string{`unknown dialect "hook"`}},
		{name: "bad mapping file", args: []string{"translate", "--mapping", "testdata/bad-mapping.yaml", "--to", "swarm", "testdata/hook.json"},
			code: 2, stderr: []string{`testdata/bad-mapping.yaml:4: aliases.bluelabel.eddy: maps a second id to "EDDY"`, "testdata/bad-mapping.yaml:6: rewrites[0].do[0].delete: malformed path"}},
		{name: "id hint", args: []string{"translate", "--to", "bluelabel", "testdata/swarm_request.json"},
			code: 0, stderr: []string{`approximated sender_id: "agent-1" is not a bluelabel id`, `hint: to choose the id yourself, add to a mapping file: aliases: {bluelabel: {"agent-1": "AGENT-1"}}`}},
		{name: "id hint under strict", args: []string{"translate", "--strict", "--to", "bluelabel", "testdata/swarm_request.json"},
			code: 1, stderr: []string{`error: swarm -> bluelabel: approximated sender_id`, "hint: to choose the id yourself"}},
		{name: "act dropped by policy", args: []string{"translate", "--mapping", "testdata/drop-accept.yaml", "--to", "swarm", "-"},
			stdin: `{"performative":"TASK_ACCEPT","message_id":"m","in_reply_to":"r","sender":{"agent_id":"Jules"},"receiver":{"agent_id":"Eddy"},"payload":{"status":"accepted"}}`,
			code:  0, stderr: []string{"dropped act: swarm cannot express accept; dropped by the policy at testdata/drop-accept.yaml:3"}},
		{name: "act rejected by default", args: []string{"translate", "--to", "swarm", "-"},
			stdin: `{"performative":"TASK_ACCEPT","message_id":"m","in_reply_to":"r","payload":{"status":"accepted"}}`,
			code:  1, stderr: []string{`swarm: cannot express act "accept"`}},

		{name: "mappings check ok", args: []string{"mappings", "check", "../../examples/hook.yaml", "testdata/drop-accept.yaml"},
			code: 0, stdout: []string{"examples/hook.yaml: ok", "testdata/drop-accept.yaml: ok"}},
		{name: "mappings check lists every problem", args: []string{"mappings", "check", "testdata/bad-mapping.yaml"},
			code: 1, stdout: []string{"testdata/bad-mapping.yaml:4: aliases.bluelabel.eddy", "testdata/bad-mapping.yaml:6: rewrites[0].do[0].delete"}},
		{name: "mappings show", args: []string{"mappings", "show", "--dialect", "swarm", "--mapping", "testdata/drop-accept.yaml"},
			code: 0, stdout: []string{"dialect: swarm", "vocabulary:", "urgent: critical", "accept: drop   # testdata/drop-accept.yaml:3"}},
		{name: "mappings show declared", args: []string{"mappings", "show", "--mapping", "../../examples/hook.yaml", "--dialect", "hook"},
			code: 0, stdout: []string{"dialect: hook", "declare:", "act: event", "call: request"}},
		{name: "mappings show unknown dialect", args: []string{"mappings", "show", "--dialect", "klingon"}, code: 2, stderr: []string{`unknown dialect "klingon"`}},
		{name: "mappings no subcommand", args: []string{"mappings"}, code: 2, stderr: []string{"usage: mcp-bridge mappings check"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, strings.NewReader(tc.stdin), &out, &errOut)
			if code != tc.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errOut.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut.String())
				}
			}
			if tc.noStderr && errOut.Len() > 0 {
				t.Errorf("unexpected stderr: %s", errOut.String())
			}
			if tc.exactOut != "" && out.String() != tc.exactOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), tc.exactOut)
			}
		})
	}
}

// TestTranslateOutputIsJSON checks that printed messages are JSON, indented
// and compact.
func TestTranslateOutputIsJSON(t *testing.T) {
	for _, compact := range []bool{false, true} {
		args := []string{"translate", "--to", "elizaacl", "testdata/swarm_request.json"}
		if compact {
			args = append(args, "--compact")
		}
		var out, errOut bytes.Buffer
		if code := run(args, nil, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("not JSON: %s", out.String())
		}
		if lines := strings.Count(out.String(), "\n"); compact != (lines == 1) {
			t.Errorf("compact=%v printed %d lines", compact, lines)
		}
	}
}

// TestProcess runs the real program as a child process: exit codes and
// streams as a shell sees them.
func TestProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "translate", "--strict", "--from", "swarm", "--to", "elizaacl", "-")
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	cmd.Stdin = strings.NewReader(`{"message_type":"request","sender_id":`)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1; stderr %s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "swarm: not valid JSON: unexpected end of JSON input at byte 38") || out.Len() != 0 {
		t.Errorf("stdout %q stderr %q", out.String(), errOut.String())
	}

	cmd = exec.Command(os.Args[0], "validate", "testdata/swarm_request.json")
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), "ok (swarm)") {
		t.Fatalf("validate: %v: %s", err, got)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
