package conformance

import (
	"context"
	"errors"
)

// Target is an agent under test and the way to reach it: a command the
// suite starts (Command), a WebSocket server it dials (Dial), a WebSocket
// client it waits for (Listen), or an A2A agent over HTTP (A2A).
type Target interface {
	// Open starts or reaches the agent and returns the connection to it.
	// Frames longer than maxFrame are read to their end but kept only in
	// part (Frame.Size tells their length). A target that is opened again
	// after its connection was lost starts the agent again, dials again,
	// or waits for the agent to connect again.
	Open(ctx context.Context, maxFrame int) (Conn, error)
	// String names the target for reports ("command: ...", "ws://...").
	String() string
}

// Conn is an open connection to the agent under test.
type Conn interface {
	// Read returns the next frame the agent sent. It fails once the
	// connection has ended, with the reason (an agent that exited says how).
	Read() (Frame, error)
	// Write sends one frame, giving up when ctx ends.
	Write(ctx context.Context, frame []byte) error
	// Close ends the connection, and stops the agent the target started.
	// It ends a Read under way.
	Close() error
}

// Frame is one message the agent sent.
type Frame struct {
	// Data is the frame; for a frame over the limit, only its beginning.
	Data []byte
	// Size is the frame's whole length in bytes.
	Size int
}

// Oversize reports whether the frame was longer than what was kept.
func (f Frame) Oversize() bool { return f.Size > len(f.Data) }

// ErrUnreachable marks the errors of a target that could not be started
// or reached.
var ErrUnreachable = errors.New("the agent could not be started or reached")

// unreachable wraps err as ErrUnreachable.
func unreachable(err error) error {
	return &unreachableError{err}
}

type unreachableError struct{ err error }

func (e *unreachableError) Error() string   { return e.err.Error() }
func (e *unreachableError) Unwrap() []error { return []error{e.err, ErrUnreachable} }
