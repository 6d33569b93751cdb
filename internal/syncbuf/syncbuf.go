// Package syncbuf is a text buffer that goroutines may write to while
// another reads it: a log sink a test reads as the code under test logs.
package syncbuf

import (
	"strings"
	"sync"
)

// Buffer is a text buffer safe for concurrent use. The zero value is an
// empty buffer.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
