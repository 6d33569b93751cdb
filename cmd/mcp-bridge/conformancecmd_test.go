package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
)

// selfAgent is the command line that runs this test binary as
// `mcp-bridge agent --dialect D --stdio`, for --command.
func selfAgent(dialect string) string {
	return "MCP_BRIDGE_RUN_MAIN=1 exec '" + os.Args[0] + "' agent --dialect " + dialect + " --stdio 2>/dev/null"
}

// runCLI runs the conformance command in process and returns its exit code
// and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"conformance"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestConformanceUsage checks the command lines the conformance command
// refuses, with exit 2 and what is wrong.
func TestConformanceUsage(t *testing.T) {
	dir := t.TempDir()
	unknown := filepath.Join(dir, "unknown.yaml")
	if err := os.WriteFile(unknown, []byte("- swarm.request.answered\n- swarm.nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no dialect", []string{"--command", "true"}, "usage: mcp-bridge conformance --dialect D"},
		{"no target", []string{"--dialect", "swarm"}, "usage: mcp-bridge conformance"},
		{"two targets", []string{"--dialect", "swarm", "--command", "true", "--url", "ws://127.0.0.1:1/"}, "usage: mcp-bridge conformance"},
		{"a stray argument", []string{"--dialect", "swarm", "--command", "true", "extra"}, "usage: mcp-bridge conformance"},
		{"a header without a colon", []string{"--dialect", "swarm", "--url", "ws://127.0.0.1:1/", "--header", "Authorization"}, `want "Name: value"`},
		{"a token without a URL", []string{"--dialect", "swarm", "--command", "true", "--token", "t"}, "--token and --header are sent to an agent at a --url"},
		{"an unknown dialect", []string{"--dialect", "klingon", "--command", "true"}, `no requirements for dialect "klingon"`},
		{"an unknown requirement", []string{"--dialect", "swarm", "--command", "true", "--only", "swarm.request.answered,swarm.nope"}, `swarm has no requirement "swarm.nope"`},
		{"an unknown level", []string{"--dialect", "swarm", "--command", "true", "--level", "may"}, `--level must be must or should, got "may"`},
		{"a bad timeout", []string{"--dialect", "swarm", "--command", "true", "--timeout", "0s"}, "--timeout must be positive"},
		{"no expected-failures file", []string{"--dialect", "swarm", "--command", "true", "--expected-failures", filepath.Join(dir, "none.yaml")}, "--expected-failures: open"},
		{"an unknown expected failure", []string{"--dialect", "swarm", "--command", "true", "--expected-failures", unknown}, `swarm has no requirement "swarm.nope"`},
		{"args without op", []string{"--dialect", "swarm", "--command", "true", "--args", "{}"}, "--args needs --op"},
		{"bluelabel without op", []string{"--dialect", "bluelabel", "--command", "true"}, "bluelabel agents do not declare their operations: give --op"},
		{"an agent that exits", []string{"--dialect", "swarm", "--command", "echo oops >&2; exit 3"}, "the agent exited (exit status 3); its standard error ends: oops"},
		{"nothing at the URL", []string{"--dialect", "swarm", "--url", "ws://127.0.0.1:1/"}, "dialing ws://127.0.0.1:1/"},
		{"an address in use", []string{"--dialect", "swarm", "--listen", "256.0.0.1:0"}, "listening on 256.0.0.1:0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, stderr %q, want %d and %q\nstdout: %s", code, errOut, exitUsage, tc.stderr, out)
			}
		})
	}
}

// TestConformanceReferenceAgents runs the command against the reference
// agent of each dialect, started as a child process (`mcp-bridge agent
// --stdio`): exit 0, a line per requirement and the summary; one run
// writes the JSON, JUnit and transcript files.
func TestConformanceReferenceAgents(t *testing.T) {
	for _, d := range []string{"elizaacl", "collab", "bluelabel", "fuse", "swarm"} {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"--dialect", d, "--command", selfAgent(d), "--timeout", "1s",
				"--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml"), "--transcript", filepath.Join(dir, "t.ndjson")}
			if d == "bluelabel" {
				args = append(args, "--op", "echo", "--args", `{"x":1}`)
			}
			code, out, errOut := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if !strings.Contains(out, "pass  MUST    "+d+".request.answered ") || !strings.Contains(out, d+": MUST ") || !strings.HasSuffix(out, "pass (exit 0)\n") {
				t.Errorf("stdout:\n%s", out)
			}
			var rep struct {
				Dialect string
				Verdict struct {
					ExitCode int `json:"exit_code"`
				}
				Results []struct{ ID string }
			}
			if err := json.Unmarshal(readBytes(t, filepath.Join(dir, "r.json")), &rep); err != nil || rep.Dialect != d || len(rep.Results) == 0 {
				t.Errorf("the JSON report: %v %+v", err, rep)
			}
			var junit struct {
				Tests int `xml:"tests,attr"`
			}
			if err := xml.Unmarshal(readBytes(t, filepath.Join(dir, "r.xml")), &junit); err != nil || junit.Tests != len(rep.Results) {
				t.Errorf("the JUnit report: %v, %d tests for %d results", err, junit.Tests, len(rep.Results))
			}
			for i, line := range strings.Split(strings.TrimSpace(string(readBytes(t, filepath.Join(dir, "t.ndjson")))), "\n") {
				if !json.Valid([]byte(line)) {
					t.Fatalf("transcript line %d is not JSON: %s", i+1, line)
				}
			}
		})
	}
}

// TestConformanceExitCodes runs the command against a swarm agent that
// does not answer requests for unknown tools (the reference agent with its
// TOOL_NOT_FOUND errors filtered out): exit 1; with --expected-failures
// listing exactly what fails, exit 0; with a listed requirement that
// passes (stale), or one failure not listed, exit 1.
func TestConformanceExitCodes(t *testing.T) {
	agent := selfAgent("swarm") + " | sed -u '/TOOL_NOT_FOUND/d'"
	base := []string{"--dialect", "swarm", "--command", agent, "--timeout", "500ms",
		"--only", "swarm.request.answered,swarm.unknown.answered,swarm.unknown.code"}
	dir := t.TempDir()
	list := func(name string, ids ...string) string {
		f := filepath.Join(dir, name)
		var b strings.Builder
		for _, id := range ids {
			b.WriteString("- " + id + "\n")
		}
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
	}{
		{"a MUST fails", nil, exitInvalid, []string{"FAIL  MUST    swarm.unknown.answered", "warn  SHOULD  swarm.unknown.code", "failed: swarm.unknown.answered\nFAIL (exit 1)"}},
		{"only the MUSTs", []string{"--level", "must"}, exitInvalid, []string{"FAIL  MUST    swarm.unknown.answered", "SHOULD 0 passed, 0 warned"}},
		{"exactly the expected failures", []string{"--expected-failures", list("exact.yaml", "swarm.unknown.answered", "swarm.unknown.code")}, exitOK,
			[]string{"FAIL  MUST    swarm.unknown.answered", "pass (exit 0)"}},
		{"a stale expected failure", []string{"--expected-failures", list("stale.yaml", "swarm.unknown.answered", "swarm.unknown.code", "swarm.request.answered")}, exitInvalid,
			[]string{"stale expected failures (they pass now): swarm.request.answered", "FAIL (exit 1)"}},
		{"a warning not expected", []string{"--expected-failures", list("short.yaml", "swarm.unknown.answered")}, exitInvalid,
			[]string{"failed: swarm.unknown.code", "FAIL (exit 1)"}},
		{"an expected failure not run", []string{"--skip", "swarm.unknown.code", "--expected-failures", list("notrun.yaml", "swarm.unknown.answered", "swarm.unknown.code")}, exitOK,
			[]string{"expected failures not run: swarm.unknown.code", "pass (exit 0)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(t, append(append([]string{}, base...), tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestConformanceWebSocket runs the command as a child process against the
// reference agent over WebSocket both ways: --url dials `mcp-bridge agent
// --listen`, and `mcp-bridge agent --connect` dials --listen.
func TestConformanceWebSocket(t *testing.T) {
	t.Run("url", func(t *testing.T) {
		t.Parallel()
		agent, logs := startSelf(t, "agent", "--dialect", "fuse", "--listen", "127.0.0.1:0")
		url := waitFor(t, logs, `"url":"`, `"`)
		code, out, errOut := runCLI(t, "--dialect", "fuse", "--url", url, "--timeout", "1s")
		if code != exitOK || !strings.Contains(out, "pass  MUST    fuse.request.correlated ") {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
		agent.Process.Kill()
	})
	t.Run("listen", func(t *testing.T) {
		t.Parallel()
		suite, logs := startSelf(t, "conformance", "--dialect", "collab", "--listen", "127.0.0.1:0", "--timeout", "1s")
		url := waitFor(t, logs, "waiting for the agent at ", "\n")
		agent, _ := startSelf(t, "agent", "--dialect", "collab", "--connect", url)
		defer agent.Process.Kill()
		done := make(chan error, 1)
		go func() { done <- suite.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the suite: %v\n%s", err, logs.String())
			}
		case <-time.After(time.Minute):
			t.Fatal("the suite did not finish")
		}
		if !strings.Contains(logs.String(), "pass  MUST    collab.request.answered ") || !strings.Contains(logs.String(), "pass (exit 0)") {
			t.Errorf("output:\n%s", logs.String())
		}
	})
}

// startSelf starts this test binary as mcp-bridge with args; its standard
// output and error go to the returned buffer.
func startSelf(t *testing.T, args ...string) (*exec.Cmd, *syncbuf.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, out
}

// waitFor waits until out holds prefix, and returns what follows it up to
// end.
func waitFor(t *testing.T, out *syncbuf.Buffer, prefix, end string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s := out.String()
		if i := strings.Index(s, prefix); i >= 0 {
			rest := s[i+len(prefix):]
			if j := strings.Index(rest, end); j >= 0 {
				return rest[:j]
			}
		}
	}
	t.Fatalf("no %q in:\n%s", prefix, out.String())
	return ""
}

func readBytes(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConformanceA2A runs the command against A2A agents over HTTP: the
// bridge's own A2A face (`serve` as a child, a reference swarm agent
// behind it at /a2a/jules), by its base URL and by its card's URL: exit 0,
// the JSON and JUnit reports; nothing at the URL: exit 2; another dialect
// at an http URL, or an a2a requirement over HTTP it does not have: exit
// 2.
func TestConformanceA2A(t *testing.T) {
	_, addr, _ := serveChild(t, "--listen", "127.0.0.1:0")
	agent, _ := startSelf(t, "agent", "--dialect", "swarm", "--id", "jules", "--connect", "ws://"+addr)
	defer agent.Process.Kill()
	waitServing(t, addr, "jules", "")
	base := "http://" + addr + "/a2a/jules"
	for _, url := range []string{base, base + "/.well-known/agent-card.json"} {
		t.Run(url, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runCLI(t, "--dialect", "a2a", "--url", url, "--timeout", "5s",
				"--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml"))
			if code != exitOK || !strings.Contains(out, "pass  MUST    a2a.http.task.not_found ") || !strings.HasSuffix(out, "pass (exit 0)\n") {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			var rep struct {
				Dialect string
				Target  string
				Strict  bool
				Results []struct{ ID, Status string }
			}
			if err := json.Unmarshal(readBytes(t, filepath.Join(dir, "r.json")), &rep); err != nil || rep.Dialect != "a2a" || rep.Target != base+"/.well-known/agent-card.json" || rep.Strict {
				t.Errorf("the JSON report: %v %+v", err, rep)
			}
			var junit struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
			}
			if err := xml.Unmarshal(readBytes(t, filepath.Join(dir, "r.xml")), &junit); err != nil || junit.Tests != len(rep.Results) || junit.Failures != 0 {
				t.Errorf("the JUnit report: %v, %d tests (%d failed) for %d results", err, junit.Tests, junit.Failures, len(rep.Results))
			}
		})
	}
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no agent", []string{"--dialect", "a2a", "--url", "http://" + addr + "/a2a/nobody"}, "HTTP 404"},
		{"nothing at the URL", []string{"--dialect", "a2a", "--url", "http://127.0.0.1:1/"}, "fetching the agent card"},
		{"another dialect", []string{"--dialect", "swarm", "--url", base}, "give --dialect a2a, not swarm"},
		{"a requirement of a2a's frames", []string{"--dialect", "a2a", "--url", base, "--only", "a2a.request.answered"}, `a2a has no requirement "a2a.request.answered"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != exitUsage || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, stderr %q, want %d and %q\nstdout: %s", code, errOut, exitUsage, tc.stderr, out)
			}
		})
	}
}

// TestConformanceStrict runs the command against a collab agent whose
// answers lose their trace context (the reference agent's, filtered): the
// SHOULD that checks it warns and the run exits 0; with --strict it fails
// and the run exits 1.
func TestConformanceStrict(t *testing.T) {
	agent := selfAgent("collab") + ` | sed -u 's/,"trace":{[^}]*}//'`
	base := []string{"--dialect", "collab", "--command", agent, "--timeout", "1s", "--only", "collab.request.answered,collab.trace.echo"}
	for _, tc := range []struct {
		strict bool
		code   int
		stdout []string
	}{
		{false, exitOK, []string{"warn  SHOULD  collab.trace.echo", "SHOULD 0 passed, 1 warned", "pass (exit 0)"}},
		{true, exitInvalid, []string{"FAIL  SHOULD  collab.trace.echo", "SHOULD 0 passed, 1 failed (--strict)", "failed: collab.trace.echo\nFAIL (exit 1)"}},
	} {
		t.Run(map[bool]string{false: "lenient", true: "strict"}[tc.strict], func(t *testing.T) {
			t.Parallel()
			args := append([]string{}, base...)
			if tc.strict {
				args = append(args, "--strict")
			}
			code, out, errOut := runCLI(t, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
