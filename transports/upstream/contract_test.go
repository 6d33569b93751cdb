package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/transports/linktest"
)

// TestLinkContract runs the link contract on the links of real MCP servers,
// whose tool record reports the arguments of each call and whose tool
// slow works until it is cancelled: a child on stdio (the test binary,
// reporting into a named pipe), and one over streamable HTTP on loopback.
// Each link is attached to a bridge and carried as Run carries it.
func TestLinkContract(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		linktest.Run(t, func(t *testing.T) *linktest.Conn {
			fifo := filepath.Join(t.TempDir(), "reports")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			// Open for reading and writing, so as not to wait for the
			// child: the reads end when the test closes it.
			f, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			received, pid := make(chan []byte, 64), make(chan int, 1)
			working, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
			go func() {
				in := bufio.NewScanner(f)
				in.Buffer(nil, 4<<20)
				for in.Scan() {
					line := in.Bytes()
					var n int
					switch _, err := fmt.Sscanf(string(line), "pid %d", &n); {
					case err == nil:
						pid <- n
					case bytes.Equal(line, []byte(reportWorking)):
						working <- struct{}{}
					case bytes.Equal(line, []byte(reportCancelled)):
						cancelled <- struct{}{}
					default:
						received <- bytes.Clone(line)
					}
				}
			}()
			spec := Spec{ID: "peer", Command: []string{os.Args[0]}, Env: map[string]string{serverEnv: "contract", reportEnv: fifo}}
			conn := contractConn(t, spec, received, working, cancelled)
			// A connection on stdio adopts 2026-07-28, on which mcp-go
			// answers a ping itself (link.Ping).
			conn.NoPing = "mcp-go answers the MCP ping of a 2026-07-28 connection itself; the child's exit tells a dead server (DeadPeer)"
			conn.Kill = func() {
				select {
				case p := <-pid:
					if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
						t.Errorf("kill the server: %v", err)
					}
				case <-time.After(linktest.Patience):
					t.Error("the server never said its pid")
				}
			}
			return conn
		})
	})
	t.Run("http", func(t *testing.T) {
		linktest.Run(t, func(t *testing.T) *linktest.Conn {
			received := make(chan []byte, 64)
			working, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
			srv := httptest.NewServer(server.NewStreamableHTTPServer(ContractServer(func(line []byte) {
				switch string(line) {
				case reportWorking:
					working <- struct{}{}
				case reportCancelled:
					cancelled <- struct{}{}
				default:
					received <- bytes.Clone(line)
				}
			})))
			t.Cleanup(srv.Close)
			conn := contractConn(t, Spec{ID: "peer", URL: srv.URL + "/mcp"}, received, working, cancelled)
			conn.Kill = func() {
				srv.CloseClientConnections()
				srv.Close()
			}
			return conn
		})
	})
}

// The environment of the contract's server as a child: serverEnv names
// its mode (contract), reportEnv the named pipe it reports into.
const (
	serverEnv = "UPSTREAM_TEST_SERVER"
	reportEnv = "UPSTREAM_TEST_REPORT"
)

// What the contract's server reports when slow begins its work, and when
// the work is cancelled.
const (
	reportWorking   = "working"
	reportCancelled = "cancelled"
)

// ContractServer is the contract's MCP server: its tool record reports
// the arguments of each call, as JSON, and slow reports reportWorking and
// works until it is cancelled, then reports reportCancelled. Exported for the test binary's
// TestMain, which serves it as a child.
func ContractServer(report func(line []byte)) *server.MCPServer {
	s := server.NewMCPServer("contract", "1.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("record", mcp.WithDescription("Reports its arguments.")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := json.Marshal(r.GetArguments())
			if err != nil {
				return nil, err
			}
			report(args)
			return mcp.NewToolResultText("kept"), nil
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("Works until it is cancelled.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			report([]byte(reportWorking))
			<-ctx.Done()
			report([]byte(reportCancelled))
			return nil, ctx.Err()
		})
	return s
}

// ServeContract serves ContractServer on standard input and output,
// reporting into the named pipe reportEnv names, first its pid ("pid N").
func ServeContract() error {
	f, err := os.OpenFile(os.Getenv(reportEnv), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "pid %d\n", os.Getpid()); err != nil {
		return err
	}
	var mu sync.Mutex
	return server.ServeStdio(ContractServer(func(line []byte) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = f.Write(append(bytes.Clone(line), '\n'))
	}))
}

// contractConn opens spec's server on a bridge, as the agent peer, and
// carries it as Run does; received has the arguments the server got,
// working and cancelled when slow begins and is cancelled. The caller
// sets Kill.
func contractConn(t *testing.T, spec Spec, received chan []byte, working, cancelled chan struct{}) *linktest.Conn {
	b, err := bridge.New(bridge.Options{Registry: builtin.Default(), Mappings: dialects.DefaultMappings(),
		Heartbeat: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	b.Declare(bridge.AgentSpec{ID: "peer", Dialect: Dialect})
	lost := linktest.AwaitLost(t, b, "peer")
	spec.Logger = slog.New(slog.DiscardHandler)
	u := New(b, spec)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := u.open(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-ctx.Done():
			c.sess.Detach()
		case err := <-c.lost:
			c.sess.Lost(err)
		}
		c.done()
	}()
	t.Cleanup(func() { cancel(); <-done })
	var seq atomic.Int64
	request := func(tool string, args []byte) (bridge.Outbound, string) {
		token := fmt.Sprintf("req-%d", seq.Add(1))
		return bridge.Outbound{Env: &canonical.Envelope{Act: canonical.ActRequest, ID: token,
			Sender: canonical.Party{ID: "tester"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "peer"},
			Operation: canonical.Operation{Name: tool}, Arguments: canonical.JSON(args)}}, token
	}
	conn := &linktest.Conn{
		Link:  c.l,
		Async: true,
		Out: func(p []byte) bridge.Outbound {
			out, _ := request("record", p)
			return out
		},
		Next: func(ctx context.Context) ([]byte, error) {
			select {
			case args := <-received:
				return args, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		Lost: lost,
	}
	conn.Slow = func() (bridge.Outbound, string) { return request("slow", []byte(`{}`)) }
	conn.Working, conn.Cancelled = await(working), await(cancelled)
	return conn
}

// await returns a function that waits for a report on ch.
func await(ch chan struct{}) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
