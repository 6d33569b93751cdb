package stdio

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/internal/child"
	"github.com/mcp-bridge/mcp-bridge/transports/linktest"
)

// TestLinkContract runs the link contract on the standard input of a
// real child (the test binary, recording every line it reads into a named
// pipe the test reads), attached to a bridge and carried by a supervisor.
func TestLinkContract(t *testing.T) {
	linktest.Run(t, func(t *testing.T) *linktest.Conn {
		b := newBridge(t)
		b.Declare(bridge.AgentSpec{ID: "peer", Dialect: "swarm"})
		fifo := filepath.Join(t.TempDir(), "received")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		// Open for reading and writing, so as not to wait for the child:
		// the reads end when the test closes it.
		f, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		lines := make(chan []byte, 64)
		go func() {
			in := bufio.NewScanner(f)
			in.Buffer(nil, 4<<20)
			for in.Scan() {
				lines <- append([]byte(nil), in.Bytes()...)
			}
		}()
		spec := childSpec(t, "peer", "record", newRecorder())
		spec.Env[recordEnv] = fifo
		sup := New(b, spec)
		c, err := child.Start(spec.Command, spec.Env, spec.Dir)
		if err != nil {
			t.Fatal(err)
		}
		l, sess, err := sup.attach(c)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); sup.carry(ctx, c, l, sess) }()
		t.Cleanup(func() { cancel(); <-done })
		return &linktest.Conn{
			Link: l,
			Out:  func(p []byte) bridge.Outbound { return bridge.Outbound{Frame: p} },
			Next: func(ctx context.Context) ([]byte, error) {
				select {
				case line := <-lines:
					return line, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
			Kill: func() { _ = syscall.Kill(c.Pid(), syscall.SIGKILL) },
			Lost: linktest.AwaitLost(t, b, "peer"),
		}
	})
}
