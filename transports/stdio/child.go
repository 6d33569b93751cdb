package stdio

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"
)

// child is one run of an agent's command, with the bridge's ends of its
// standard input, output and error.
type child struct {
	cmd                   *exec.Cmd
	stdin, stdout, stderr *os.File
	started               time.Time
	// exited is closed when the process has exited and waitErr is set.
	exited  chan struct{}
	waitErr error
}

// startChild starts spec's command with its standard streams on pipes.
func startChild(spec Spec) (*child, error) {
	var files []*os.File // every pipe end, closed on failure
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	fail := func(err error) (*child, error) {
		for _, f := range files {
			_ = f.Close()
		}
		return nil, fmt.Errorf("start %s: %w", spec.Command[0], err)
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
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Env = environ(spec.Env)
	cmd.Dir = spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	// The child holds its own ends now; the bridge keeps the others.
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()
	c := &child{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, started: time.Now(), exited: make(chan struct{})}
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

// pid returns the child's process id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// stop ends the child: its standard input is closed (through l) and SIGTERM
// sent at once, SIGKILL after grace. It returns once the process is gone,
// with the problems met on the way.
func (c *child) stop(l *link, grace time.Duration) error {
	l.shut()
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

// status describes how the child ended.
func (c *child) status() string {
	if c.cmd.ProcessState != nil {
		return c.cmd.ProcessState.String()
	}
	return c.waitErr.Error()
}

// closeOutput closes the bridge's ends of the child's standard output and
// error.
func (c *child) closeOutput() {
	_ = c.stdout.Close()
	_ = c.stderr.Close()
}
