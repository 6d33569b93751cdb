package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeMCPStdio launches `mcp-bridge serve --mcp-stdio` as an MCP
// client would (the go-sdk's command transport): MCP on its standard input
// and output, the startup lines on standard error, agents on its listener.
// A reference agent connects there, and the client lists and calls its
// tools; closing standard input stops the bridge.
func TestServeMCPStdio(t *testing.T) {
	cmd := exec.Command(os.Args[0], "serve", "--mcp-stdio", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "MCP_BRIDGE_RUN_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A long grace: the bridge must stop because its standard input
	// closed, not because the transport signalled it.
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(stderr)
	first, err := lines.ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line on stderr: %v", err)
	}
	m := regexp.MustCompile(`listening on http://(127\.0\.0\.1:\d+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("startup line %q", first)
	}
	var rest strings.Builder
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&rest, lines); close(copied) }()

	a, err := refagent.New(refagent.Options{Dialect: "swarm", ID: "stdio-agent"})
	if err != nil {
		t.Fatal(err)
	}
	actx, acancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Connect(actx, "ws://"+m[1], "") }()
	defer func() { acancel(); <-done }()

	var names []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		res, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if strings.Contains(strings.Join(names, ","), "stdio-agent__add") {
			break
		}
	}
	if !strings.Contains(strings.Join(names, ","), "stdio-agent__add") {
		t.Fatalf("the agent's tools never showed: %v", names)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "stdio-agent__add", Arguments: map[string]any{"a": 40, "b": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"sum":42`) {
		t.Errorf("add: %+v", res)
	}
	// Closing the session closes the bridge's standard input: it stops,
	// exiting 0 without a signal.
	if err := session.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	<-copied
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("the bridge did not exit 0 when its standard input closed: %v\n%s", cmd.ProcessState, rest.String())
	}
	if strings.Contains(rest.String(), "shutting down gracefully") {
		t.Errorf("the bridge was stopped by a signal:\n%s", rest.String())
	}
}
