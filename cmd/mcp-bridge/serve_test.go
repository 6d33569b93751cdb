package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
)

// serveChild runs `mcp-bridge serve args...` as a child process and
// returns it once it has printed where it listens, with that host:port and
// its standard error. The child is killed when the test ends.
func serveChild(t *testing.T, args ...string) (*exec.Cmd, string, *syncbuf.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut := &syncbuf.Buffer{}
	cmd.Stderr = errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line: %v; stderr %s", err, errOut.String())
	}
	m := regexp.MustCompile(`listening on http://(127\.0\.0\.1:\d+) \(`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("startup line %q", first)
	}
	go io.Copy(io.Discard, stdout)
	return cmd, m[1], errOut
}

// waitExit waits for cmd to exit and returns its exit code (-1 when it
// was killed by a signal), failing the test if it takes longer than a
// graceful shutdown should.
func waitExit(t *testing.T, cmd *exec.Cmd, stderr *syncbuf.Buffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("wait: %v", err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatalf("the process did not exit; stderr %s", stderr.String())
		return -1
	}
}

// dialSwarm connects to the bridge at addr as the swarm agent id, and
// returns once the bridge lists it; the connection is dropped when the
// test ends.
func dialSwarm(ctx context.Context, t *testing.T, addr, id string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws/swarm?agent="+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	waitServing(t, addr, id, "")
	return c
}

// TestServeProcess runs `mcp-bridge serve` as a child: it says where it
// listens, answers /healthz there, and exits 0 on SIGTERM.
func TestServeProcess(t *testing.T) {
	cmd, addr, errOut := serveChild(t, "--listen", "127.0.0.1:0")
	resp, err := http.Get("http://" + addr + "/healthz")
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
	if code := waitExit(t, cmd, errOut); code != exitOK {
		t.Errorf("exit %d after SIGTERM; stderr %s", code, errOut.String())
	}
}

// TestServeGoingAway: on SIGTERM and on SIGINT the real process tells a
// connected agent that it is going away (the SystemShutdown notice), then
// closes its WebSocket with status 1001 and a reason, not a bare end of
// stream, and exits 0.
func TestServeGoingAway(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, addr, errOut := serveChild(t, "--listen", "127.0.0.1:0")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := dialSwarm(ctx, t, addr, "watcher")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var frames []string
			var end error
			for end == nil {
				var msg []byte
				if _, msg, end = c.Read(ctx); end == nil {
					frames = append(frames, string(msg))
				}
			}
			if len(frames) != 1 || !strings.Contains(frames[0], `"SystemShutdown"`) {
				t.Errorf("before the close the agent got %q, want the SystemShutdown notice", frames)
			}
			var ce websocket.CloseError
			if !errors.As(end, &ce) || ce.Code != websocket.StatusGoingAway || ce.Reason != "the bridge is shutting down" {
				t.Errorf("the connection ended with %v, want status 1001 (going away) and the reason", end)
			}
			if code := waitExit(t, cmd, errOut); code != exitOK {
				t.Errorf("exit %d after %v; stderr %s", code, sig, errOut.String())
			}
		})
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
		`delivered Collie (collab)  {"header":{"messageId"`, `"type":"BROADCAST"`,
		`delivered Fusey  (fuse)    {"version":"1.0","messageType":"event"`, `"eventType":"agent_status_changed"`,
		broadcastNote,
		`mcp client tools/list: [Collie__sentiment-analysis Eddy__echo Fusey__echo Jules__debug_code]`,
		`"sender_id":"mcp-client","receiver_id":"Jules"`, `"structuredContent":{"analysis":`,
		// Jules finds and fixes the off-by-one of the debugging scene.
		"Jules's answer, as Eddy read it:", "off-by-one.", "      | print(get_item([1, 2, 3], 2))",
		`"fixed_code":"print([1, 2, 3][2])"`,
		"a2a client card of Jules: skills [debug_code]", `"sender_id":"a2a-client","receiver_id":"Jules"`,
		"a2a client task TASK_STATE_COMPLETED", `a2a client artifacts  [{"artifactId"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the demo did not show %s", want)
		}
	}
	if strings.Contains(s, "No fix was found") {
		t.Errorf("debug_code found no fix in a scene of the demo")
	}
	// The broadcast's note says who got it: exactly Collie and Fusey.
	scene := s[strings.Index(s, "== 4."):]
	scene = scene[:strings.Index(scene, "== 5.")]
	for _, line := range strings.Split(scene, "\n") {
		if strings.HasPrefix(line, "  delivered") && !strings.HasPrefix(line, "  delivered Collie") && !strings.HasPrefix(line, "  delivered Fusey") {
			t.Errorf("the broadcast was delivered to another agent: %s", line)
		}
	}
	if n := strings.Count(scene, "  delivered"); n != 2 {
		t.Errorf("the broadcast was delivered %d times, want 2 (Collie, Fusey):\n%s", n, scene)
	}
}

// TestServeSecondSignal: with a request in flight the first SIGTERM waits
// for it (up to shutdown_timeout); a second one exits at once.
func TestServeSecondSignal(t *testing.T) {
	cfgFile := t.TempDir() + "/serve.yaml"
	if err := os.WriteFile(cfgFile, []byte("listen: 127.0.0.1:0\nshutdown_timeout: 1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, addr, errOut := serveChild(t, "--config", cfgFile)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	silent := dialSwarm(ctx, t, addr, "silent")
	asker := dialSwarm(ctx, t, addr, "asker")
	req := `{"message_id":"q1","message_type":"request","sender_id":"asker","receiver_id":"silent","timestamp":"2026-11-21T10:00:00Z","payload":{"tool_name":"wait","arguments":{}}}`
	if err := asker.Write(ctx, websocket.MessageText, []byte(req)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := silent.Read(ctx); err != nil { // the request is in flight
		t.Fatal(err)
	}
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
	if code := waitExit(t, cmd, errOut); code != exitInvalid {
		t.Errorf("exit %d after a second SIGTERM, want %d", code, exitInvalid)
	}
	if !strings.Contains(errOut.String(), "again: exiting now") {
		t.Errorf("stderr: %s", errOut.String())
	}
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

// TestServeMemorySettings: serve sets the runtime's GOGC and GOMEMLIMIT
// from the config's memory section unless the environment sets them, and
// serves /debug/pprof/ only when pprof is on.
func TestServeMemorySettings(t *testing.T) {
	get := func(addr, path string) (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	cfgFile := t.TempDir() + "/serve.yaml"
	if err := os.WriteFile(cfgFile, []byte("listen: 127.0.0.1:0\nmemory: {gogc: 250, limit: 256MiB}\npprof: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, gogc string
		args       []string
		want       []string
		pprof      int
	}{
		{"the config's", "", []string{"--config", cfgFile}, []string{"go_gc_gogc_percent 250", "go_gc_gomemlimit_bytes 2.68435456e+08"}, http.StatusOK},
		{"the environment wins", "80", []string{"--config", cfgFile}, []string{"go_gc_gogc_percent 80", "go_gc_gomemlimit_bytes 2.68435456e+08"}, http.StatusOK},
		{"the defaults", "", []string{"--listen", "127.0.0.1:0"}, []string{"go_gc_gogc_percent 150", "go_gc_gomemlimit_bytes 9.223372036854776e+18"}, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc) // restored when the test ends
			if tc.gogc == "" {
				os.Unsetenv("GOGC")
			}
			cmd, addr, errOut := serveChild(t, tc.args...)
			_, page := get(addr, "/metrics")
			for _, w := range tc.want {
				if !strings.Contains(page, "\n"+w+"\n") {
					t.Errorf("/metrics lacks %q", w)
				}
			}
			if code, _ := get(addr, "/debug/pprof/"); code != tc.pprof {
				t.Errorf("/debug/pprof/: %d, want %d", code, tc.pprof)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitExit(t, cmd, errOut)
		})
	}
}
