package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/transports"
)

// Handler serves the bridge's HTTP API:
//
//	POST /v1/{dialect}/messages   send one message (?agent=ID, ?wait=true)
//	GET  /v1/agents               list agents (?capability=NAME, ?limit=N&after=ID)
type Handler struct {
	Bridge *bridge.Bridge
	Logger *slog.Logger
	// Authenticate, when set, checks each request's credentials (a JWT,
	// a client certificate); one it refuses is answered 401, with the
	// error in the dialect.
	Authenticate transports.Authenticator
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
// dialect when there is one to wait for; 202 when the message expects none
// or its answer goes to the agent's webhook. An answer is 200, whatever it
// says: an agent's failure or refusal is an answer. The bridge's own
// errors have their status (statusOf), with the error in the sender's
// dialect as the body, or as {"error": {"code", "message"}} when the
// dialect is unknown.
func (h *Handler) message(w http.ResponseWriter, r *http.Request) {
	b := h.Bridge
	dialect := r.PathValue("dialect")
	if _, ok := b.Registry().Lookup(dialect); !ok {
		h.refuse(w, dialect, nil, &canonical.Error{Code: canonical.ErrNotFound,
			Message: fmt.Sprintf("http: unknown dialect %q (the dialects are %s)", dialect, strings.Join(b.Registry().Names(), ", "))})
		return
	}
	limit := b.MaxFrame()
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(limit)+1))
	if err != nil {
		h.refuse(w, dialect, nil, &canonical.Error{Code: canonical.ErrInvalidMessage, Message: "http: reading the body: " + err.Error()})
		return
	}
	q := r.URL.Query()
	id, token, e := transports.Credentials(h.Authenticate, r, dialect)
	if e != nil {
		if len(body) > limit {
			body = nil
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-bridge", error="invalid_token"`)
		h.refuse(w, dialect, body, e)
		return
	}
	trace, _ := ParseTraceparent(r.Header.Get("traceparent"))
	a := answer{ch: make(chan bridge.Outbound, 1)}
	s, err := b.Attach(a, bridge.AttachOptions{
		Dialect: dialect, AgentID: q.Get("agent"), Token: token, Identity: id, Remote: r.RemoteAddr,
		Ephemeral: true, KeepAnswers: q.Get("wait") == "true", Trace: trace,
	})
	if err != nil {
		e := &canonical.Error{Code: canonical.ErrUnauthorized, Message: err.Error()}
		if errors.Is(err, bridge.ErrShuttingDown) {
			yes := true
			e = &canonical.Error{Code: canonical.ErrUnavailable, Message: err.Error(), Retryable: &yes}
		}
		if len(body) > limit {
			body = nil // not read whole: not worth decoding for its ids
		}
		h.refuse(w, dialect, body, e)
		return
	}
	defer s.Detach()
	var rec bridge.Receipt
	if len(body) > limit {
		rest, _ := io.Copy(io.Discard, r.Body)
		rec = s.Oversize(len(body) + int(rest))
	} else {
		// The handler has nothing to do but wait for the answer: what the
		// message causes is written at once, by this goroutine.
		rec = s.ReceiveLast(body)
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

// refuse answers what the handler refuses before a session reads it: e
// with its status, in the dialect when the bridge has it (correlated with
// frame, which it may keep), as plain JSON otherwise.
func (h *Handler) refuse(w http.ResponseWriter, dialect string, frame []byte, e *canonical.Error) {
	h.write(w, bridge.Outbound{Frame: h.Bridge.ErrorFrame(dialect, frame, e), Code: e.Code, Final: true, ByBridge: true})
}

// write sends an answer as the HTTP response.
func (h *Handler) write(w http.ResponseWriter, out bridge.Outbound) {
	w.Header().Set("Content-Type", "application/json")
	if tp := Traceparent(out.Trace); tp != "" {
		w.Header().Set("traceparent", tp)
	}
	w.WriteHeader(statusOf(out))
	_, _ = w.Write(out.Frame)
}

// statusOf is the HTTP status of an answer: 200 for whatever an agent
// answered, failures and refusals included (they are answers); the
// bridge's own errors by their code.
func statusOf(out bridge.Outbound) int {
	if !out.ByBridge || out.Code == "" {
		return http.StatusOK
	}
	switch out.Code {
	case canonical.ErrInvalidMessage, canonical.ErrInvalidArguments:
		return http.StatusBadRequest
	case canonical.ErrUnauthorized:
		return http.StatusUnauthorized
	case canonical.ErrNotFound:
		return http.StatusNotFound
	case canonical.ErrRejected:
		return http.StatusUnprocessableEntity
	case canonical.ErrTooLarge:
		return http.StatusRequestEntityTooLarge
	case canonical.ErrRateLimited:
		return http.StatusTooManyRequests
	case canonical.ErrUnavailable:
		return http.StatusServiceUnavailable
	case canonical.ErrTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// MaxAgentsPage bounds the page GET /v1/agents?limit= asks for.
const MaxAgentsPage = 1000

// agents lists the registered agents as JSON: all of them, sorted by id,
// or, with ?limit=N (1 to MaxAgentsPage), a page of at most N whose ids
// sort after ?after=ID, with "next" (the id to ask after for the next
// page) while more follow. ?capability=NAME keeps those serving it.
func (h *Handler) agents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	capability, after := q.Get("capability"), q.Get("after")
	var list struct {
		Agents []bridge.AgentInfo `json:"agents"`
		Next   string             `json:"next,omitempty"`
	}
	switch {
	case q.Has("limit"):
		limit, err := strconv.Atoi(q.Get("limit"))
		if err != nil || limit < 1 || limit > MaxAgentsPage {
			h.refuse(w, "", nil, &canonical.Error{Code: canonical.ErrInvalidArguments,
				Message: fmt.Sprintf("GET /v1/agents: limit %q: want a whole number from 1 to %d", q.Get("limit"), MaxAgentsPage)})
			return
		}
		var more bool
		list.Agents, more = h.Bridge.AgentsPage(capability, after, limit)
		if more {
			list.Next = list.Agents[len(list.Agents)-1].ID
		}
	case q.Has("after"):
		h.refuse(w, "", nil, &canonical.Error{Code: canonical.ErrInvalidArguments,
			Message: "GET /v1/agents: after needs limit (?limit=N&after=ID)"})
		return
	default:
		list.Agents = h.Bridge.Agents(capability)
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(list)
}

// ReadHeaderTimeout is the header timeout servers of this API should use.
const ReadHeaderTimeout = 10 * time.Second
