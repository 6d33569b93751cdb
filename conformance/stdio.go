package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
)

// Command is a target the suite starts: the command line runs through
// `sh -c` with the agent speaking newline-delimited JSON on its standard
// input and output. Its standard error is kept (the last few KiB) to
// explain an exit.
func Command(cmdline string) Target { return &command{line: cmdline} }

type command struct {
	line string
	// env, when set, is the child's whole environment (the tests set it).
	env []string
}

func (c *command) String() string { return "command: " + c.line }

// stopGrace is how long a stopping child is given after its standard input
// closes, and again after SIGTERM, before the next signal.
const stopGrace = 500 * time.Millisecond

func (c *command) Open(_ context.Context, maxFrame int) (Conn, error) {
	if strings.TrimSpace(c.line) == "" {
		return nil, unreachable(errors.New("the command is empty"))
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, unreachable(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, unreachable(err)
	}
	cmd := exec.Command("sh", "-c", c.line)
	cmd.Env = c.env
	cmd.Stdin, cmd.Stdout = inR, outW
	tail := &stderrTail{}
	cmd.Stderr = tail
	cmd.WaitDelay = stopGrace // a grandchild holding standard error open does not hold up Wait
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, unreachable(fmt.Errorf("starting %q: %w", c.line, err))
	}
	closeAll(inR, outW) // the child holds its own ends
	p := &process{cmd: cmd, stdin: inW, stdout: outR, tail: tail, exited: make(chan struct{}),
		lines: agentclient.NewLineReader(outR, maxFrame)}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// process is a started agent.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	tail   *stderrTail
	lines  *agentclient.LineReader // the agent's frames, at most maxFrame bytes of each

	exited  chan struct{} // closed once waitErr is set
	waitErr error
	once    sync.Once
}

func (p *process) Read() (Frame, error) {
	data, size, err := p.lines.Next()
	if err == nil {
		return Frame{Data: data, Size: size}, nil
	}
	// The output ended: say how the process did, if it ends soon.
	select {
	case <-p.exited:
		return Frame{}, fmt.Errorf("the agent exited (%s)%s", exitText(p.waitErr), p.tail.say())
	case <-time.After(stopGrace):
		return Frame{}, fmt.Errorf("the agent closed its standard output (%v)%s", err, p.tail.say())
	}
}

func (p *process) Write(ctx context.Context, frame []byte) error {
	line, err := agentclient.AppendLine(make([]byte, 0, len(frame)+1), frame)
	if err != nil {
		return err
	}
	deadline, _ := ctx.Deadline() // none: the zero time, no deadline
	if err := p.stdin.SetWriteDeadline(deadline); err != nil {
		return err
	}
	if _, err := p.stdin.Write(line); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("the agent does not read its standard input: %w", err)
		}
		return fmt.Errorf("writing to the agent: %w", err)
	}
	return nil
}

// Close stops the agent: its standard input closes, then its process
// group gets SIGTERM, then SIGKILL, each after stopGrace.
func (p *process) Close() error {
	p.once.Do(func() {
		_ = p.stdin.Close()
		if !p.exitsWithin(stopGrace) {
			signalGroup(p.cmd, syscall.SIGTERM)
			if !p.exitsWithin(stopGrace) {
				signalGroup(p.cmd, syscall.SIGKILL)
				<-p.exited
			}
		}
		signalGroup(p.cmd, syscall.SIGKILL) // whatever the shell left behind
		_ = p.stdout.Close()
	})
	return nil
}

// exitsWithin reports whether the process exits within d.
func (p *process) exitsWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// stderrTail keeps the last tailSize bytes written to it.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4 << 10

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// say returns the kept standard error as a sentence to append, or "".
func (t *stderrTail) say() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return "; its standard error ends: " + s
}
