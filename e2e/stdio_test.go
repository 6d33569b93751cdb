package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/transports/stdio"
)

// childPID finds the process whose command line holds marker.
func childPID(t *testing.T, marker string) int {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(b), marker) {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no process with %q", marker)
	return 0
}

// TestStdioAgent: the bridge runs a reference agent as a child on stdio,
// routes to it, restarts it when it is killed, and stops it on shutdown.
func TestStdioAgent(t *testing.T) {
	cfg := config.Default()
	cfg.Agents = []config.Agent{{
		ID: "STDIO-FUSE", Dialect: "fuse", Reach: "command",
		Settings:   stdio.Program{Command: []string{binary, "agent", "--stdio", "--dialect", "fuse", "--id", "STDIO-FUSE"}},
		BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
	}}
	h := start(t, cfg)
	if s := h.statusOf("STDIO-FUSE"); s != "INITIALIZING" && s != "READY" {
		t.Errorf("a stdio agent being started is %s", s)
	}
	h.agentUp("STDIO-FUSE", 1)
	c := h.dial("elizaacl", requester("elizaacl"))
	ask := func(id string) *canonical.Envelope {
		c.send(c.encode(request("elizaacl", "STDIO-FUSE", "add", `{"a":20,"b":22}`, id)))
		for {
			reply := c.decode(c.recv())
			if reply.Act != canonical.ActAccept {
				return reply
			}
		}
	}
	if reply := ask("stdio-1"); reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), "42") {
		t.Fatalf("got %s %s %+v", reply.Act, reply.Result, reply.Error)
	}
	pid := childPID(t, "STDIO-FUSE")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// It comes back under a new process and answers again.
	deadline := time.Now().Add(wait)
	for childPID(t, "STDIO-FUSE") == pid && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	h.agentUp("STDIO-FUSE", 1)
	if reply := ask("stdio-2"); reply.Act != canonical.ActResult || reply.InReplyTo != "stdio-2" {
		t.Fatalf("after restart: %s %+v", reply.Act, reply.Error)
	}
	if !strings.Contains(h.logs.String(), "STDIO-FUSE") {
		t.Error("no log of the child")
	}
	newPID := childPID(t, "STDIO-FUSE")
	h.stop()
	if err := syscall.Kill(newPID, 0); err == nil {
		// Reaped children vanish; a zombie would still answer kill 0 but
		// the supervisor waits for its child.
		t.Errorf("child %d still runs after shutdown", newPID)
	}
}
