package ws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/transports"
)

// Handler accepts agents' WebSocket connections for the bridge at
// /ws/{dialect} and /ws. The agent may name itself with ?agent=ID and
// present its token as "Authorization: Bearer T" or ?token=T; otherwise
// its first message's sender introduces it.
type Handler struct {
	Bridge *bridge.Bridge
	Logger *slog.Logger
	// OriginPatterns are the browser origins allowed besides the host's
	// own (coder/websocket AcceptOptions.OriginPatterns).
	OriginPatterns []string
	// Authenticate, when set, checks the handshake's credentials (a JWT,
	// a client certificate); one it refuses is answered 401, with the
	// error in the dialect as the body, and no WebSocket.
	Authenticate transports.Authenticator
}

// refuse answers a connection refused before the WebSocket handshake with
// status and e as the body: in dialect when it is known, else as plain
// JSON ({"error":{"code","message"}}), as the HTTP API answers.
func (h *Handler) refuse(w http.ResponseWriter, status int, dialect string, e *canonical.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(h.Bridge.ErrorFrame(dialect, nil, e))
}

// Register adds the handler's routes to mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.Handle("GET /ws", h)
	mux.Handle("GET /ws/{dialect}", h)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The agent id is copied: the query's values are slices of the
	// request's first line, which the directory would keep whole for it.
	opts := bridge.AttachOptions{
		Dialect: r.PathValue("dialect"),
		AgentID: strings.Clone(r.URL.Query().Get("agent")),
		Remote:  r.RemoteAddr,
	}
	if opts.AgentID != "" && opts.Dialect == "" {
		h.refuse(w, http.StatusBadRequest, "", &canonical.Error{Code: canonical.ErrInvalidMessage,
			Message: "ws: ?agent= needs the dialect in the path: /ws/{dialect}?agent=ID"})
		return
	}
	if opts.Dialect != "" {
		if _, ok := h.Bridge.Registry().Lookup(opts.Dialect); !ok {
			h.refuse(w, http.StatusNotFound, "", &canonical.Error{Code: canonical.ErrNotFound,
				Message: fmt.Sprintf("ws: unknown dialect %q", opts.Dialect)})
			return
		}
	}
	id, token, e := transports.Credentials(h.Authenticate, r, opts.Dialect)
	if e != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-bridge", error="invalid_token"`)
		h.refuse(w, http.StatusUnauthorized, opts.Dialect, e)
		return
	}
	opts.Identity, opts.Token = id, token
	pw := &promptWriter{ResponseWriter: w}
	c, err := websocket.Accept(pw, r, &websocket.AcceptOptions{OriginPatterns: h.OriginPatterns})
	if err != nil {
		return // Accept has answered the client
	}
	l, in := pw.accepted(c)
	s, err := h.Bridge.Attach(l, opts)
	// The agent is attached (or refused): the handshake is answered now,
	// unless a message to it has been written meanwhile (handshake.go).
	// A peer that is gone is found by the reader.
	_ = pw.answer()
	if err != nil {
		// A bridge that is shutting down is going away (1001): the agent
		// may come back to its successor. Anything else is refused.
		code := websocket.StatusPolicyViolation
		if errors.Is(err, bridge.ErrShuttingDown) {
			code = websocket.StatusGoingAway
		}
		c.Close(code, truncate(err.Error()))
		return
	}
	// The connection is served on a goroutine of its own, and the handler
	// returns: the HTTP request, its headers and the handler's stack are
	// not kept for the connection's life (an idle agent costs that much
	// less). The hijacked connection is no longer the HTTP server's.
	remote, maxFrame := opts.Remote, h.Bridge.MaxFrame()
	var read func()
	read = func() {
		readers.Add(1)
		defer readers.Add(-1)
		for {
			// The library connection, made again if it was let go while
			// the connection was parked (library.go).
			c, err := in.conn()
			if err != nil {
				h.logger().Info("websocket connection lost", "remote", remote, "agent", s.AgentID(), "error", err)
				in.release()
				s.Lost(err)
				return
			}
			// No context ends a read: closing the connection does.
			lost, err := carry(context.Background(), c, s, maxFrame, in)
			switch {
			case err == errMoved:
				// A fresh goroutine, with a small stack, reads on: one the
				// parker starts when the socket has bytes (at once if it
				// has), so that a connection that goes quiet after a
				// message (an introduction) holds none meanwhile, nor its
				// library connection.
				in.idle()
				if !in.park() {
					go read()
				}
			case err == errPark:
				in.idle()
				if !in.park() {
					continue // it cannot park: this goroutine reads on
				}
				// The parker resumes the reading in a fresh goroutine.
			case lost:
				h.logger().Info("websocket connection lost", "remote", remote, "agent", s.AgentID(), "error", err)
			}
			return
		}
	}
	in.parkable(read)
	go read()
}

func (h *Handler) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// truncate fits a close reason into a control frame (123 bytes).
func truncate(s string) string {
	const max = 123
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "")
}
