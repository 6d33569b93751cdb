package refagent

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
)

// Listen serves the agent as a WebSocket server on ln, for peers that dial
// agents rather than wait for them (a conformance suite's --url). A peer
// connects on any path; the agent introduces itself and answers on that
// connection as it does on Connect. It serves one connection at a time: a
// peer that connects while another is served is refused (HTTP 409). When
// a connection ends the agent waits for the next one. Listen returns nil
// when ctx ends, after closing the connection it serves, or the error that
// stopped it accepting.
func (a *Agent) Listen(ctx context.Context, ln net.Listener) error {
	var conns sync.WaitGroup
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conns.Add(1)
			defer conns.Done()
			a.serveListened(ctx, w, r)
		}),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		srv.Close()
		<-served
		conns.Wait()
		return nil
	case err := <-served:
		conns.Wait()
		return err
	}
}

// serveListened serves one peer that connected to Listen.
func (a *Agent) serveListened(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if a.serving() {
		http.Error(w, "agent "+a.id+": already serving a connection", http.StatusConflict)
		return
	}
	conn, err := agentclient.Accept(w, r, agentclient.AcceptOptions{ReadLimit: maxFrame})
	if err != nil {
		a.log.Warn("agent: a peer's WebSocket handshake failed", "remote", r.RemoteAddr, "error", err.Error())
		return
	}
	err = a.serveWS(ctx, conn, r.RemoteAddr)
	switch {
	case err == nil:
	case errors.Is(err, errBusy):
		conn.CloseBusy("the agent is already serving a connection")
	default:
		a.log.Info("agent: a peer's connection ended", "remote", r.RemoteAddr, "error", err.Error())
	}
}

// serving reports whether the agent serves a transport now.
func (a *Agent) serving() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess != nil
}
