package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binary is the mcp-bridge command built for the tests that run it as a
// child process.
var binary string

func TestMain(m *testing.M) {
	switch os.Getenv("E2E_MCP_SERVER") {
	case "stdio":
		serveTestMCP()
		return
	case "plain", "floor":
		serveApart(os.Getenv("E2E_MCP_SERVER"))
		return
	}
	dir, err := os.MkdirTemp("", "mcp-bridge-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "mcp-bridge")
	build := exec.Command("go", "build", "-o", binary, "github.com/mcp-bridge/mcp-bridge/cmd/mcp-bridge")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcp-bridge:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
