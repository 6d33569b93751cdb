package refagent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// readLines sends each non-blank line of in (a new slice each) to lines,
// then the error that ended the reading (io.EOF at the end) to ended. It
// gives up when stop closes.
func readLines(in io.Reader, lines chan<- []byte, ended chan<- error, stop <-chan struct{}) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			select {
			case lines <- trimmed:
			case <-stop:
				return
			}
		}
		if err != nil {
			ended <- err
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
	l.buf = l.buf[:0]
	if bytes.IndexByte(frame, '\n') >= 0 {
		// raw JSON values can hold newlines between tokens: a line must not
		var b bytes.Buffer
		if err := json.Compact(&b, frame); err != nil {
			return fmt.Errorf("writing a frame as one line: %w", err)
		}
		l.buf = append(l.buf, b.Bytes()...)
	} else {
		l.buf = append(l.buf, frame...)
	}
	l.buf = append(l.buf, '\n')
	_, err := l.w.Write(l.buf)
	return err
}
