package ws

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// An idle connection holds no buffer. Connections accepted by the Handler
// over plain TCP read through a buffer taken from a pool when the socket
// has bytes and given back once they are handed on, and read each message
// into a buffer taken for that message; what the socket cannot take of a
// write at once is kept in a buffer that goes back when it is written.
// coder/websocket's own buffers are the smallest bufio allows (16 bytes),
// which promptConn makes up for: it writes a frame's header with its
// payload in one system call. An idle agent then costs no 8 KB of bufio
// buffers nor its largest message (docs/performance.md, "What one idle
// connection holds").

// readBufSize is the size of a read buffer: what one read from the socket
// takes at most, as net/http's bufio.Reader took.
const readBufSize = 4 << 10

// smallBuf is the size of the bufio.Reader and bufio.Writer that
// coder/websocket is handed over a promptConn: bufio's smallest.
const smallBuf = 16

// keptBacklog bounds the capacity of a write backlog given back to its
// pool: a larger one was made for a large message, and is let go.
const keptBacklog = 64 << 10

// BufferCounts are the buffers the package's connections hold now, by
// kind: Read, bytes read from a socket not yet handed on, or a message
// being read; Write, bytes written that the socket has not taken yet.
type BufferCounts struct {
	Read, Write int64
}

// held counts the buffers held now, over every connection of the
// package: read and write.
var held struct{ read, write atomic.Int64 }

// Buffers returns how many buffers the package's connections hold now,
// over all of them: zero when every connection is idle.
func Buffers() BufferCounts {
	return BufferCounts{Read: held.read.Load(), Write: held.write.Load()}
}

var (
	readBufs = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}
	msgBufs  = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	backlogs = sync.Pool{New: func() any { b := make([]byte, 0, readBufSize); return &b }}
)

// takeReadBuf returns a read buffer from the pool, counted as held.
func takeReadBuf() *[]byte {
	held.read.Add(1)
	return readBufs.Get().(*[]byte)
}

// giveReadBuf puts a read buffer taken with takeReadBuf back.
func giveReadBuf(b *[]byte) {
	held.read.Add(-1)
	readBufs.Put(b)
}

// takeMsgBuf returns an empty buffer to read one message into, counted as
// held.
func takeMsgBuf() *bytes.Buffer {
	held.read.Add(1)
	b := msgBufs.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

// giveMsgBuf puts a message buffer back; one grown past keptBacklog for a
// large message is let go.
func giveMsgBuf(b *bytes.Buffer) {
	held.read.Add(-1)
	if b.Cap() <= keptBacklog {
		msgBufs.Put(b)
	}
}

// takeBacklog returns an empty write backlog, counted as held.
func takeBacklog() *[]byte {
	held.write.Add(1)
	b := backlogs.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// giveBacklog puts a write backlog back; one grown past keptBacklog is
// let go.
func giveBacklog(b *[]byte) {
	held.write.Add(-1)
	if cap(*b) <= keptBacklog {
		backlogs.Put(b)
	}
}
