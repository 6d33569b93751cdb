package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/transports"
)

// Handler serves the bridge's HTTP API:
//
//	POST /v1/{dialect}/messages   send one message (?agent=ID, ?wait=true)
//	GET  /v1/agents               list agents (?capability=NAME)
type Handler struct {
	Bridge *bridge.Bridge
	Logger *slog.Logger
}

// Register adds the handler's routes to mux.
func (h *Handler) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/{dialect}/messages", h.message)
	mux.HandleFunc("GET /v1/agents", h.agents)
}

// answer is an ephemeral link: it hands the session's final answer to the
// waiting request handler.
type answer struct{ ch chan bridge.Outbound }

func (a answer) Send(ctx context.Context, out bridge.Outbound) error {
	if !out.Final {
		return nil // an interim message (accept) has no place in one HTTP response
	}
	select {
	case a.ch <- out:
		return nil
	default:
		return errors.New("http: the request has its answer already")
	}
}

func (answer) Transport() string { return "http" }

// message accepts one message. The response is the answer in the sender's
// dialect when there is one to wait for (200, or the status of the
// bridge's error: 400, 401, 404, 413, 503, 504); 202 when the message
// expects none or its answer goes to the agent's webhook.
func (h *Handler) message(w http.ResponseWriter, r *http.Request) {
	b := h.Bridge
	dialect := r.PathValue("dialect")
	if _, ok := b.Registry().Lookup(dialect); !ok {
		http.Error(w, "http: unknown dialect "+dialect, http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	trace, _ := ParseTraceparent(r.Header.Get("traceparent"))
	a := answer{ch: make(chan bridge.Outbound, 1)}
	s, err := b.Attach(a, bridge.AttachOptions{
		Dialect: dialect, AgentID: q.Get("agent"), Token: transports.Token(r), Remote: r.RemoteAddr,
		Ephemeral: true, KeepAnswers: q.Get("wait") == "true", Trace: trace,
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	defer s.Detach()
	limit := b.MaxFrame()
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(limit)+1))
	if err != nil {
		http.Error(w, "http: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var rec bridge.Receipt
	if len(body) > limit {
		rest, _ := io.Copy(io.Discard, r.Body)
		rec = s.Oversize(len(body) + int(rest))
	} else {
		rec = s.Receive(body)
	}
	if rec.Err == nil && !rec.Awaiting {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	select {
	case out := <-a.ch:
		h.write(w, out)
	case <-r.Context().Done():
	}
}

// write sends an answer as the HTTP response.
func (h *Handler) write(w http.ResponseWriter, out bridge.Outbound) {
	w.Header().Set("Content-Type", "application/json")
	if tp := Traceparent(out.Trace); tp != "" {
		w.Header().Set("traceparent", tp)
	}
	w.WriteHeader(statusOf(out.Code))
	_, _ = w.Write(out.Frame)
}

// statusOf maps the bridge's error codes to HTTP statuses.
func statusOf(code canonical.ErrorCode) int {
	switch code {
	case "":
		return http.StatusOK
	case canonical.ErrInvalidMessage, canonical.ErrInvalidArguments:
		return http.StatusBadRequest
	case canonical.ErrUnauthorized:
		return http.StatusUnauthorized
	case canonical.ErrNotFound:
		return http.StatusNotFound
	case canonical.ErrTooLarge:
		return http.StatusRequestEntityTooLarge
	case canonical.ErrTimeout:
		return http.StatusGatewayTimeout
	case canonical.ErrRateLimited:
		return http.StatusTooManyRequests
	case canonical.ErrUnavailable:
		return http.StatusServiceUnavailable
	}
	// An agent's own error answer is still a delivered answer.
	return http.StatusOK
}

// agents lists the registered agents as JSON.
func (h *Handler) agents(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(struct {
		Agents []bridge.AgentInfo `json:"agents"`
	}{h.Bridge.Agents(r.URL.Query().Get("capability"))})
}

// ReadHeaderTimeout is the header timeout servers of this API should use.
const ReadHeaderTimeout = 10 * time.Second
