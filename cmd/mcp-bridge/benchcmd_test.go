package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBenchUsage checks the command lines the bench command refuses.
func TestBenchUsage(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"one agent", []string{"--agents", "1"}, "bench: agents 1: at least 2"},
		{"no pairs", []string{"--pairs", "0"}, "bench: pairs 0: at least 1"},
		{"negative rate", []string{"--rate", "-1"}, "bench: rate -1:"},
		{"no window", []string{"--window", "0"}, "bench: window 0: at least 1"},
		{"unknown validation", []string{"--validate", "none"}, `bench: validate "none": schema or decode`},
		{"negative payload", []string{"--payload", "-3"}, "bench: payload -3:"},
		{"negative fail-every", []string{"--fail-every", "-1"}, "bench: fail-every -1:"},
		{"no time", []string{"--timeout", "0s"}, "bench: timeout 0s: more than 0"},
		{"no instance", []string{"--instances", "0"}, "bench: instances 0: at least 1"},
		{"negative idle", []string{"--idle", "-1"}, "bench: idle -1: 0 or more agents"},
		{"a heap profile of no idle agents", []string{"--spawn", "--heap-profile", "x.prof"}, `bench: heap profile "x.prof": taken of a bridge in its own process`},
		{"a heap profile of a bridge in process", []string{"--idle", "5", "--heap-profile", "x.prof"}, `bench: heap profile "x.prof": taken of a bridge in its own process`},
		{"a cluster of an external bridge", []string{"--instances", "2", "--external", "http://127.0.0.1:7300"}, "bench: instances 2: a cluster runs in this process"},
		{"a cluster of two agents", []string{"--instances", "2", "--agents", "2"}, "bench: agents 2: at least 3 with 2 instances"},
		{"not a number", []string{"--pairs", "many"}, `invalid value "many" for flag -pairs`},
		{"a stray argument", []string{"--pairs", "10", "extra"}, `bench: unexpected argument "extra"`},
		{"unknown flag", []string{"--verbose"}, "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := runBench(tc.args, strings.NewReader(""), &out, &errOut); code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errOut.String(), tc.stderr) || out.Len() != 0 {
				t.Errorf("stdout %q stderr %q, want %q on stderr", out.String(), errOut.String(), tc.stderr)
			}
		})
	}
}

// TestBench runs small loads in process: a clean one exits 0 with the
// report on standard output; one whose responders fail every 10th request
// exits 1 and says why.
func TestBench(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
	}{
		{"clean", []string{"--agents", "10", "--pairs", "500"}, exitOK,
			[]string{"10 agents (5 requesters, 5 responders, over 5 dialects), validate schema, window 8", "500 asked, 500 sent, 500 completed", "lost         0", "\nPASS: "}},
		{"decode, a fixed rate", []string{"--agents", "10", "--pairs", "200", "--validate", "decode", "--rate", "2000", "--window", "2"}, exitOK,
			[]string{"validate decode, window 2, 2000 pairs/s offered", "200 completed", "\nPASS: "}},
		{"a cluster", []string{"--agents", "10", "--pairs", "300", "--instances", "2"}, exitOK,
			[]string{"2 bridges in a cluster on one NATS, every pair across instances", "300 completed", "single bridge", "cross-instance", "\nPASS: "}},
		{"errors", []string{"--agents", "10", "--pairs", "500", "--fail-every", "10"}, exitInvalid,
			[]string{"450 completed", "errors       50", "\nFAIL: 50 errors\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runBench(tc.args, strings.NewReader(""), &out, &errOut)
			t.Log("\n" + out.String())
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, errOut.String())
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("no %q in the report", want)
				}
			}
		})
	}
}

// TestBenchProcess runs `mcp-bridge bench` as a child process.
func TestBenchProcess(t *testing.T) {
	if _, registered := commands()["bench"]; !registered {
		t.Fatal(`main.go does not register the bench command: commands() needs "bench": {..., runBench}`)
	}
	cmd := exec.Command(os.Args[0], "bench", "--agents", "10", "--pairs", "300")
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("exit: %v; stderr %s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "300 completed") || !strings.Contains(out.String(), "\nPASS: ") {
		t.Errorf("stdout %s", out.String())
	}
	if !strings.Contains(errOut.String(), "mcp-bridge bench: a bridge on loopback, 10 agents, 300 pairs") {
		t.Errorf("stderr %s", errOut.String())
	}
}

// TestBenchOwnProcess: with --spawn the bench starts `serve` as a child and
// drives it, with --external it drives a serve child the test started;
// either way the report has the bridge process's memory and GC pauses, and
// with --idle what the idle agents cost and how fast one answers.
func TestBenchOwnProcess(t *testing.T) {
	t.Setenv("MCP_BRIDGE_RUN_MAIN", "1") // the spawned child runs main
	cmd, addr, errOut := serveChild(t, "--listen", "127.0.0.1:0")
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		waitExit(t, cmd, errOut)
	}()
	profile := filepath.Join(t.TempDir(), "bench.prof")
	heap := filepath.Join(t.TempDir(), "heap.prof")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"spawn", []string{"--spawn", "--agents", "10", "--pairs", "300", "--idle", "50", "--heap-profile", heap},
			[]string{"its own process: RSS", "collections during the load", "50 agents connected", "KB resident", "a request to one of them: p50", "\nPASS: "}},
		{"external", []string{"--external", "http://" + addr, "--agents", "10", "--pairs", "300"},
			[]string{"its own process: RSS", "300 completed", "\nPASS: "}},
		{"a profile of the load generator", []string{"--external", "http://" + addr, "--agents", "10", "--pairs", "300", "--cpuprofile", profile},
			[]string{"300 completed", "\nPASS: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			if code := runBench(tc.args, strings.NewReader(""), &out, &stderr); code != exitOK {
				t.Fatalf("exit %d; stderr %s\n%s", code, stderr.String(), out.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("no %q in the report:\n%s", want, out.String())
				}
			}
		})
	}
	// The load generator's profile and the bridge's heap with and without
	// the idle agents: gzipped protobuf, and not empty.
	for flag, file := range map[string]string{"--cpuprofile": profile, "--heap-profile": heap, "--heap-profile's before": heap + ".before"} {
		if b, err := os.ReadFile(file); err != nil || len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s wrote %d bytes (%v), want a gzipped profile", flag, len(b), err)
		}
	}
	var out, stderr bytes.Buffer
	if code := runBench([]string{"--cpuprofile", filepath.Join(t.TempDir(), "no", "such.prof"), "--pairs", "10"}, strings.NewReader(""), &out, &stderr); code != exitInvalid ||
		!strings.Contains(stderr.String(), "bench: --cpuprofile: open ") || out.Len() > 0 {
		t.Errorf("a profile that cannot be written: exit %d, stdout %q, stderr %s", code, out.String(), stderr.String())
	}
	stderr.Reset()
	if code := runBench([]string{"--spawn", "--external", "http://" + addr}, strings.NewReader(""), &out, &stderr); code != exitUsage {
		t.Errorf("--spawn with --external: exit %d, want %d", code, exitUsage)
	}
	if code := runBench([]string{"--external", "http://127.0.0.1:1", "--pairs", "10"}, strings.NewReader(""), &out, &stderr); code != exitInvalid ||
		!strings.Contains(stderr.String(), "external bridge http://127.0.0.1:1") {
		t.Errorf("no bridge there: exit %d, stderr %s", code, stderr.String())
	}
}
