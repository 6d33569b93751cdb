package stdio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/internal/child"
)

// Supervisor runs one stdio agent until its context ends.
type Supervisor struct {
	b        *bridge.Bridge
	spec     Spec
	log      *slog.Logger
	restarts atomic.Int64
}

// New returns a supervisor that runs the agent spec describes on b.
func New(b *bridge.Bridge, s Spec) *Supervisor {
	s = s.withDefaults()
	return &Supervisor{b: b, spec: s, log: s.Logger.With("agent", s.ID)}
}

// Restarts returns how many times the child was started again after it
// exited, counting each restart once it was attached to the bridge.
func (s *Supervisor) Restarts() int { return int(s.restarts.Load()) }

// Run starts the agent's command, attaches it to the bridge and keeps it
// running: a child that exits is detached and started again after a
// backoff. When ctx ends, Run stops the child and returns nil.
//
// Run returns an error, leaving no child running, when the spec cannot
// work: no id or command, a command that cannot be started the first time,
// or an attachment the bridge refuses (an unknown dialect, a wrong token).
// A command that cannot be started again later is logged and retried with
// the backoff. Run is meant to be called once.
func (s *Supervisor) Run(ctx context.Context) error {
	spec := s.spec
	switch {
	case spec.ID == "":
		return errors.New("stdio: the agent has no id")
	case len(spec.Command) == 0:
		return fmt.Errorf("stdio: agent %s has no command", spec.ID)
	}
	if ctx.Err() != nil {
		return nil
	}
	wait := child.NewBackoff(spec.BackoffMin, spec.BackoffMax)
	for restart := false; ; restart = true {
		var ran time.Duration
		c, err := child.Start(spec.Command, spec.Env, spec.Dir)
		switch {
		case err != nil && !restart:
			return fmt.Errorf("stdio: agent %s: %w", spec.ID, err)
		case err != nil:
			s.log.Error("agent did not start", "error", err)
		default:
			if ran, err = s.serve(ctx, c, restart); err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		d := wait.After(ran)
		s.log.Info("agent restarting", "in", d)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// serve attaches the running child c to the bridge and carries its
// messages until it exits or ctx ends, when it is stopped. It returns how
// long the child ran; an error only when the bridge refused it.
func (s *Supervisor) serve(ctx context.Context, c *child.Process, restart bool) (time.Duration, error) {
	l, sess, err := s.attach(c)
	if err != nil {
		return 0, err
	}
	if restart {
		s.restarts.Add(1)
	}
	return s.carry(ctx, c, l, sess), nil
}

// attach attaches the running child c to the bridge, its standard input
// the link; a child the bridge refuses is stopped.
func (s *Supervisor) attach(c *child.Process) (*link, *bridge.Session, error) {
	spec := s.spec
	l := newLink(c.Stdin)
	sess, err := s.b.Attach(l, bridge.AttachOptions{
		Reached: true,
		Dialect: spec.Dialect,
		AgentID: spec.ID,
		Token:   spec.Token,
		Remote:  "stdio:" + spec.Command[0],
	})
	if err != nil {
		if serr := c.Stop(l.shut, spec.StopGrace); serr != nil {
			s.log.Warn("agent not stopped cleanly", "pid", c.Pid(), "error", serr)
		}
		c.CloseOutput()
		s.log.Warn("agent refused by the bridge and stopped", "pid", c.Pid(), "error", err)
		return nil, nil, fmt.Errorf("stdio: agent %s: attach: %w", spec.ID, err)
	}
	return l, sess, nil
}

// carry carries the messages of the child c, attached as sess on l, until
// it exits or ctx ends, when it is stopped; then it detaches sess, as lost
// when the child died on its own. It returns how long the child ran.
func (s *Supervisor) carry(ctx context.Context, c *child.Process, l *link, sess *bridge.Session) time.Duration {
	spec := s.spec
	s.log.Info("agent started", "pid", c.Pid(), "command", spec.Command[0])
	framesDone := make(chan struct{})
	go func() {
		defer close(framesDone)
		s.readFrames(c.Stdout, sess)
	}()
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		s.logStderr(c.Stderr, c.Pid())
	}()

	level := slog.LevelInfo
	var lost error // set when the child died on its own
	select {
	case <-ctx.Done():
		if err := c.Stop(l.shut, spec.StopGrace); err != nil {
			s.log.Warn("agent not stopped cleanly", "pid", c.Pid(), "error", err)
		}
	case <-c.Exited():
		l.shut()
		level = slog.LevelWarn // it was not asked to
		lost = fmt.Errorf("the child exited: %s", c.Status())
	}
	ran := time.Since(c.Started)
	// What the child wrote before it exited is still delivered; a process
	// it left behind holding the pipes open is cut off after StopGrace.
	cut := time.Now().Add(spec.StopGrace)
	_ = c.Stdout.SetReadDeadline(cut)
	_ = c.Stderr.SetReadDeadline(cut)
	<-framesDone
	<-stderrDone
	if lost != nil {
		sess.Lost(lost)
	} else {
		sess.Detach()
	}
	c.CloseOutput()
	s.log.Log(context.Background(), level, "agent exited", "pid", c.Pid(), "status", c.Status(), "ran", ran.Round(time.Millisecond))
	return ran
}
