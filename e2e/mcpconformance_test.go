package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpTools is where the Makefile installs the MCP tools from the npm
// registry (make mcp-tools): the conformance suite, server-everything and
// the Node 22 they run on.
const mcpTools = "../tools/mcp"

// nodeTool returns the command running the installed tool bin, with the
// installed Node first on PATH; it skips the test when the tools are not
// installed.
func nodeTool(t *testing.T, ctx context.Context, bin string, args ...string) *exec.Cmd {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(mcpTools, "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node")); err != nil {
		t.Skipf("the MCP tools are not installed (%v): run make mcp-tools (make test does)", err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, bin), args...)
	cmd.Dir = mcpTools
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	return cmd
}

// TestMCPConformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance 0.1.16, server mode) against the
// bridge's /mcp with reference agents behind it: every scenario passes but
// those tools/mcp/conformance-baseline.yml lists (they need the suite's
// own fixture tools, resources and prompts), and each of those fails (a
// listed scenario that passes fails the run too).
func TestMCPConformance(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := nodeTool(t, ctx, "conformance")
	h := start(t, nil)
	h.runAgent("swarm", "swarm-agent")
	h.runAgent("fuse", "fuse-agent")
	cmd.Args = append(cmd.Args, "server", "--url", h.httpURL()+"/mcp", "--expected-failures", "conformance-baseline.yml",
		"-o", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance suite: %v\n%s", err, out)
	}
	for _, s := range []string{"server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "dns-rebinding-protection",
		"logging-set-level", "completion-complete", "resources-list"} {
		if !strings.Contains(string(out), "✓ "+s) {
			t.Errorf("%s did not pass:\n%s", s, out)
		}
	}
}
