// Package servertest runs an mcp-bridge server inside a test or benchmark,
// as net/http/httptest runs an HTTP server: on its own goroutine, until the
// test ends or it is stopped.
package servertest

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/server"
)

// stopWait bounds how long Stop waits for the server to finish.
const stopWait = 10 * time.Second

// Options adjust a test server. The zero value serves the config as it is
// and logs nowhere.
type Options struct {
	// Mappings are mapping files, as `serve --mapping` names them.
	Mappings []string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Server are the server's options.
	Server []server.Option
	// Listening, when set, is called once the server listens and before
	// it serves.
	Listening func(*server.Server)
}

// Server is a server running for a test.
type Server struct {
	*server.Server
	// Addr is the host:port it listens on.
	Addr string

	tb     testing.TB
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// Start runs a server of cfg, listening on cfg.Listen ("127.0.0.1:0" for
// a free loopback port), until Stop or the end of the test; a config that
// does not start fails the test at once.
func Start(tb testing.TB, cfg *config.Config, o Options) *Server {
	tb.Helper()
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv, err := server.New(cfg, o.Mappings, log, o.Server...)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := srv.Listen()
	if err != nil {
		tb.Fatal(err)
	}
	if o.Listening != nil {
		o.Listening(srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{Server: srv, Addr: ln.Addr().String(), tb: tb, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- srv.Run(ctx, ln) }()
	tb.Cleanup(s.Stop)
	return s
}

// Stop shuts the server down and waits for it; an error from its Run, or a
// server that does not stop within 10 s, fails the test. Later calls
// do nothing.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cancel()
		select {
		case err := <-s.done:
			if err != nil {
				s.tb.Errorf("server: %v", err)
			}
		case <-time.After(stopWait):
			s.tb.Error("the server did not stop")
		}
	})
}
