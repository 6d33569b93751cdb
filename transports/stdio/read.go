package stdio

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// stderrLimit is the longest line of the child's standard error logged
// whole; a longer one is logged cut.
const stderrLimit = 16 << 10

// readFrames hands every line the child writes to its session until the
// output ends: a line over the bridge's limit is answered as oversize
// without being held whole, and blank lines are skipped.
func (s *Supervisor) readFrames(r io.Reader, sess *bridge.Session) {
	limit := s.b.MaxFrame()
	lr := newLineReader(r, limit)
	for {
		line, size, err := lr.next()
		if err != nil {
			s.readEnded("standard output", err)
			return
		}
		switch {
		case size > limit:
			s.log.Warn("agent line over the size limit", "size", size, "limit", limit)
			sess.Oversize(size)
		case len(bytes.TrimSpace(line)) > 0:
			sess.Receive(bytes.Clone(line))
		}
	}
}

// logStderr logs every line the child writes to its standard error.
func (s *Supervisor) logStderr(r io.Reader, pid int) {
	lr := newLineReader(r, stderrLimit)
	for {
		line, size, err := lr.next()
		if err != nil {
			s.readEnded("standard error", err)
			return
		}
		if size > stderrLimit {
			s.log.Info("agent stderr", "pid", pid, "line", string(line[:stderrLimit]), "cut_from", size)
			continue
		}
		s.log.Info("agent stderr", "pid", pid, "line", string(line))
	}
}

// readEnded logs why reading one of the child's outputs stopped, unless it
// simply ended.
func (s *Supervisor) readEnded(stream string, err error) {
	switch {
	case errors.Is(err, io.EOF):
	case errors.Is(err, os.ErrDeadlineExceeded):
		s.log.Warn("agent output still open after the agent exited; no longer read", "stream", stream)
	default:
		s.log.Warn("agent output unreadable", "stream", stream, "error", err)
	}
}
