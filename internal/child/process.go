package child

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"
)

// Process is one run of a command, with the parent's ends of its standard
// input, output and error.
type Process struct {
	cmd                   *exec.Cmd
	Stdin, Stdout, Stderr *os.File
	Started               time.Time
	// exited is closed when the process has exited and waitErr is set.
	exited  chan struct{}
	waitErr error
}

// Start starts command (the program and its arguments) with its standard
// streams on pipes, in dir (empty: the parent's), with env added to the
// parent's environment.
func Start(command []string, env map[string]string, dir string) (*Process, error) {
	var files []*os.File // every pipe end, closed on failure
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	fail := func(err error) (*Process, error) {
		for _, f := range files {
			_ = f.Close()
		}
		return nil, fmt.Errorf("start %s: %w", command[0], err)
	}
	inR, inW, err := pipe()
	if err != nil {
		return fail(err)
	}
	outR, outW, err := pipe()
	if err != nil {
		return fail(err)
	}
	errR, errW, err := pipe()
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = environ(env)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	// The child holds its own ends now; the bridge keeps the others.
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()
	c := &Process{cmd: cmd, Stdin: inW, Stdout: outR, Stderr: errR, Started: time.Now(), exited: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// environ returns the bridge's environment with extra added, in a stable
// order; exec keeps the last value of a repeated name.
func environ(extra map[string]string) []string {
	env := os.Environ()
	names := make([]string, 0, len(extra))
	for k := range extra {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// Pid returns the process id.
func (c *Process) Pid() int { return c.cmd.Process.Pid }

// Exited is closed when the process has exited.
func (c *Process) Exited() <-chan struct{} { return c.exited }

// Stop ends the process: closeStdin closes its standard input (the caller
// may need to interrupt its own writers first), SIGTERM is sent at once and
// SIGKILL after grace. It returns once the process is gone, with the
// problems met on the way.
func (c *Process) Stop(closeStdin func(), grace time.Duration) error {
	closeStdin()
	var errs []error
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		errs = append(errs, fmt.Errorf("SIGTERM: %w", err))
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.exited:
		return errors.Join(errs...)
	case <-t.C:
	}
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		errs = append(errs, fmt.Errorf("SIGKILL: %w", err))
	}
	<-c.exited
	return errors.Join(errs...)
}

// Status describes how the process ended.
func (c *Process) Status() string {
	if c.cmd.ProcessState != nil {
		return c.cmd.ProcessState.String()
	}
	return c.waitErr.Error()
}

// CloseOutput closes the parent's ends of the process's standard output
// and error.
func (c *Process) CloseOutput() {
	_ = c.Stdout.Close()
	_ = c.Stderr.Close()
}
