package stdio

import (
	"log/slog"
	"time"
)

// Spec says how to run one stdio agent.
type Spec struct {
	// ID is the agent the child speaks for, Dialect its dialect, and Token
	// the credential checked against the agent's configured token.
	ID, Dialect, Token string
	// Command is the program to run and its arguments.
	Command []string
	// Env holds variables added to the bridge's own environment for the
	// child; they override variables of the same name.
	Env map[string]string
	// Dir is the child's working directory; empty means the bridge's.
	Dir string
	// BackoffMin and BackoffMax bound the wait before a restart (defaults
	// DefaultBackoffMin and DefaultBackoffMax): see backoff.
	BackoffMin, BackoffMax time.Duration
	// StopGrace is how long a child has to exit after its standard input
	// is closed and SIGTERM is sent, before it is killed (default
	// DefaultStopGrace). It also bounds how long output is still read after
	// the child exited, in case a process it started keeps the pipes open.
	StopGrace time.Duration
	// Logger receives the supervisor's lines and the child's standard
	// error, one record per line at info level (nil: slog.Default()).
	Logger *slog.Logger
}

// The defaults of Spec.
const (
	DefaultBackoffMin = 100 * time.Millisecond
	DefaultBackoffMax = 10 * time.Second
	DefaultStopGrace  = 5 * time.Second
)

// withDefaults returns s with its zero values replaced by the defaults.
func (s Spec) withDefaults() Spec {
	if s.BackoffMin <= 0 {
		s.BackoffMin = DefaultBackoffMin
	}
	if s.BackoffMax <= 0 {
		s.BackoffMax = DefaultBackoffMax
	}
	if s.BackoffMax < s.BackoffMin {
		s.BackoffMax = s.BackoffMin
	}
	if s.StopGrace <= 0 {
		s.StopGrace = DefaultStopGrace
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	return s
}
