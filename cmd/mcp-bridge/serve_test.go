package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestServeProcess runs `mcp-bridge serve` as a child: it says where it
// listens, answers /healthz there, and exits 0 on SIGTERM.
func TestServeProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line: %v; stderr %s", err, errOut.String())
	}
	m := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+) \(the embedded default config\)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("startup line %q", first)
	}
	go io.Copy(io.Discard, stdout)
	resp, err := http.Get(m[1] + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %s", resp.Status)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v; stderr %s", err, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
}

// TestServeBadConfig: a config with problems is refused with file:line.
func TestServeBadConfig(t *testing.T) {
	f := t.TempDir() + "/bad.yaml"
	if err := os.WriteFile(f, []byte("listen: 127.0.0.1:0\nagents:\n  - id: A\n    dialect: klingon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"serve", "--config", f}, nil, &out, &errOut); code != exitInvalid {
		t.Errorf("exit %d, want %d", code, exitInvalid)
	}
	if want := f + `:4: agents[0].dialect: unknown dialect "klingon"`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q lacks %q", errOut.String(), want)
	}
}

// TestDemo plays the demo and checks each scene's messages went through.
func TestDemo(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"demo"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	s := out.String()
	for _, want := range []string{
		`delivered Eddy   (elizaacl) {"mcp_version":"0.1.0"`, `"performative":"TASK_ACCEPT"`, `"performative":"INFORM_RESULT"`,
		`delivered Jules  (swarm)   {"message_id"`, `"tool_name":"debug_code"`,
		`delivered Collie (collab)`, `"action":"sentiment-analysis"`, `delivered Fusey  (fuse)`, `"sentiment":"positive"`,
		`"type":"needs_input"`, `delivered BLUE-LEAD (bluelabel) {"type":"task_result"`,
		`"type":"BROADCAST"`, `"eventType":"agent_status_changed"`,
		`mcp client tools/list: [Collie__sentiment-analysis Eddy__echo Fusey__echo Jules__debug_code]`,
		`"sender_id":"mcp-client","receiver_id":"Jules"`, `"structuredContent":{"analysis":`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the demo did not show %s", want)
		}
	}
}

// TestServeSecondSignal: with a request in flight the first SIGTERM waits
// for it (up to shutdown_timeout); a second one exits at once.
func TestServeSecondSignal(t *testing.T) {
	cfgFile := t.TempDir() + "/serve.yaml"
	if err := os.WriteFile(cfgFile, []byte("listen: 127.0.0.1:0\nshutdown_timeout: 1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "serve", "--config", cfgFile)
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut syncWriter
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	first, _ := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("startup line %q", first)
	}
	go io.Copy(io.Discard, stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	silent, _, err := websocket.Dial(ctx, "ws://"+m[1]+"/ws/swarm?agent=silent", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.CloseNow()
	asker, _, err := websocket.Dial(ctx, "ws://"+m[1]+"/ws/swarm?agent=asker", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer asker.CloseNow()
	req := `{"message_id":"q1","message_type":"request","sender_id":"asker","receiver_id":"silent","timestamp":"2026-11-21T10:00:00Z","payload":{"tool_name":"wait","arguments":{}}}`
	if err := asker.Write(ctx, websocket.MessageText, []byte(req)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := silent.Read(ctx); err != nil { // the request is in flight
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The silent agent hears of the shutdown: the bridge is waiting for it.
	if _, msg, err := silent.Read(ctx); err != nil || !strings.Contains(string(msg), "SystemShutdown") {
		t.Fatalf("shutdown notice: %s %v", msg, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitInvalid {
			t.Errorf("exit %v, want code %d", err, exitInvalid)
		}
	case <-ctx.Done():
		t.Fatal("a second SIGTERM did not end it")
	}
	if !strings.Contains(errOut.String(), "again: exiting now") {
		t.Errorf("stderr: %s", errOut.String())
	}
}

// syncWriter is a buffer the child's stderr copier and the test share.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestServeEveryMistake: a config with mistakes of every kind (its own
// keys, a mapping file it names, an unknown dialect) reports them all at
// once, each with its file:line.
func TestServeEveryMistake(t *testing.T) {
	dir := t.TempDir()
	mapping := dir + "/site.yaml"
	if err := os.WriteFile(mapping, []byte("aliases:\n  swarm: [not, a, mapping]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := dir + "/serve.yaml"
	if err := os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\nrequest_timeout: soon\nmappings: [site.yaml]\nagents:\n  - id: A\n    dialect: klingon\n    colour: red\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"serve", "--config", cfg}, nil, &out, &errOut); code != exitInvalid {
		t.Fatalf("exit %d, want %d: %s", code, exitInvalid, errOut.String())
	}
	for _, want := range []string{
		cfg + `:2: request_timeout: "soon" is not a duration`,
		cfg + `:6: agents[0].dialect: unknown dialect "klingon"`,
		cfg + `:7: agents[0].colour: unknown key`,
		mapping + `:2: aliases.swarm:`,
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
}
