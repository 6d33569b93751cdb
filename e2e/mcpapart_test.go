package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
)

// BenchmarkMCPApartPaired is BenchmarkMCPPaired with each server in its
// own process, as issue 32 describes the floor: a plain mcp-go server
// (plain), the same server forwarding each call over one WebSocket to the
// lean agent (floor), and `mcp-bridge serve` with its default config and
// the lean agent on its WebSocket (bridge), each a child process; the
// go-sdk client and both lean agents are in the benchmark's process. The
// servers' garbage and collections are then their own, not shared with
// the client's (about 128 KB a call) as in BenchmarkMCPPaired. cpu-x is
// the bridge process's CPU time per call over the floor process's.
func BenchmarkMCPApartPaired(b *testing.B) {
	agentSrv := httptest.NewServer(leanAgentHandler(nil))
	b.Cleanup(agentSrv.Close)
	var sides [3]mcpSide
	for i, name := range [...]string{"plain", "floor"} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "E2E_MCP_SERVER="+name, "E2E_MCP_AGENT=ws"+strings.TrimPrefix(agentSrv.URL, "http"))
		addr, pid := spawn(b, cmd)
		sides[i] = mcpSide{url: "http://" + addr + "/mcp", tool: "add", cpu: func() time.Duration { return childCPU(pid) }}
	}
	addr, pid := spawn(b, exec.Command(binary, "serve", "--listen", "127.0.0.1:0"))
	leanAdder(b, "ws://"+addr, nil)
	awaitListed(b, addr, []string{"adder"})
	// As in bridgeMCP: a session opened before the face has told sessions
	// of the agent would have its calls answered as SSE streams.
	time.Sleep(mcpface.Coalesce + 150*time.Millisecond)
	sides[2] = mcpSide{url: "http://" + addr + "/mcp", tool: "adder__add", cpu: func() time.Duration { return childCPU(pid) }}
	mcpPaired(b, sides)
}

// serveApart is the test binary as one server of BenchmarkMCPApartPaired
// (E2E_MCP_SERVER plain or floor; the floor's agent at E2E_MCP_AGENT): it
// listens on a loopback port, says where as the bridge does, and serves
// until SIGTERM. It collects garbage at the bridge's default pace.
func serveApart(side string) {
	debug.SetGCPercent(config.Default().Memory.GOGC)
	h := plainHandler()
	if side == "floor" {
		var err error
		if h, _, err = hopHandler(os.Getenv("E2E_MCP_AGENT")); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, side+":", err)
		os.Exit(1)
	}
	fmt.Printf("%s listening on http://%s\n", side, ln.Addr())
	go func() { _ = http.Serve(ln, h) }()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
}

// listening is the line a server spawned for the benchmarks writes when it
// listens.
var listening = regexp.MustCompile(`listening on http://(127\.0\.0\.1:\d+)`)

// spawn starts cmd, its standard output in a file (a pipe would cost the
// benchmark's process a read for every line the child logs), waits until
// it says where it listens, and returns that address and its pid. It is
// stopped with SIGTERM when tb ends.
func spawn(tb testing.TB, cmd *exec.Cmd) (string, int) {
	out, err := os.Create(filepath.Join(tb.TempDir(), "stdout"))
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		out.Close()
	})
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		text, err := os.ReadFile(out.Name())
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(text))
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				return m[1], cmd.Process.Pid
			}
		}
	}
	tb.Fatalf("%s never said where it listens", cmd.Path)
	return "", 0
}

// childCPU returns the CPU time the threads of process pid have used so
// far, in nanoseconds as the scheduler counts it (/proc/PID/task/*/schedstat).
func childCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}
