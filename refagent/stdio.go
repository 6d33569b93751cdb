package refagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
)

// ServeStdio serves the agent over newline-delimited JSON: one message a
// line on in, one a line on out. It sends the introduction and
// subscriptions first, then answers what it reads. At the end of in it
// finishes the requests in hand and returns nil; when ctx ends it returns
// nil at once (a read of in already under way ends when in does).
func (a *Agent) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s, err := a.open(ctx, &lineWriter{w: out})
	if err != nil {
		return err
	}
	lines := make(chan []byte)
	ended := make(chan error, 1)
	stop := make(chan struct{})
	defer close(stop)
	go readLines(in, lines, ended, stop)
	if err := s.greet(); err != nil {
		s.close(ctx, false)
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	for {
		select {
		case <-ctx.Done():
			s.close(ctx, false)
			return nil
		case line := <-lines:
			s.deliver(line)
		case err := <-ended:
			if errors.Is(err, io.EOF) {
				s.close(ctx, true)
				return nil
			}
			s.close(ctx, false)
			if ctx.Err() != nil {
				return nil // in was closed because ctx ended
			}
			return fmt.Errorf("agent %s: reading: %w", a.id, err)
		}
	}
}

// readLines sends each non-blank line of in (a new slice each, without
// the spaces around it) to lines, then the error that ended the reading
// (io.EOF at the end) to ended. It gives up when stop closes.
func readLines(in io.Reader, lines chan<- []byte, ended chan<- error, stop <-chan struct{}) {
	r := agentclient.NewLineReader(in, 0)
	for {
		line, _, err := r.Next()
		if err != nil {
			ended <- err
			return
		}
		select {
		case lines <- bytes.TrimSpace(line):
		case <-stop:
			return
		}
	}
}

// lineWriter writes each frame as one line.
type lineWriter struct {
	w   io.Writer
	buf []byte
}

func (l *lineWriter) write(frame []byte) error {
	var err error
	if l.buf, err = agentclient.AppendLine(l.buf[:0], frame); err != nil {
		return err
	}
	_, err = l.w.Write(l.buf)
	return err
}
