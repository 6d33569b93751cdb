// Package ws is the WebSocket transport: agents connect to the bridge at
// /ws/{dialect} (or /ws, the dialect detected from the first message), and
// the bridge dials out to agents that listen, reconnecting with backoff.
// One text message carries one agent message each way.
//
// An idle connection the Handler accepted over plain TCP holds no
// buffer (buffers.go) and, on Linux, no goroutine: it is parked, one
// goroutine for the process waiting for every parked socket with epoll
// and starting a reader when one has bytes, hangs up or is closed
// (park.go). Nor does it hold its coder/websocket connection, which is
// let go while it is parked and made again over the same socket when it
// is next read or written (library.go): what it still holds is its
// promptConn and the bridge's session. TLS and dialled connections keep
// a reading goroutine, their library connection and bufio's buffers.
package ws
