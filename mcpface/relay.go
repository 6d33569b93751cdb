package mcpface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Requests to the client across the instances of a cluster. During a
// tools/call of a session-based client (2025-11-25 and before) mcp-go asks
// the client (elicitation/create, and sampling/createMessage or roots/list
// if a handler asks for them) on the stream of the request that caused it,
// and waits on the instance that asked for the client's answer, which the
// client POSTs as a JSON-RPC response. Behind a load balancer that is not
// sticky that POST may reach any instance. So in a cluster the id of each
// request to the client is tagged with the instance that asked: the
// number N becomes the string "N@<instance>". The instance that receives
// the answer gives it, its id a number again, to its own mcp-go when the
// tag names it, and relays it over the cluster to the instance named
// otherwise, which hands it to its mcp-go as if the client had POSTed it
// there and sends back what mcp-go answered.

// tagMark separates a request's number from the instance that asked.
const tagMark = "@"

// ssePrefix begins every server-sent event mcp-go writes.
const ssePrefix = "event: message\ndata: "

// relay tags the requests to the clients of session-based requests in a
// cluster, and takes their answers to the instances that asked.
type relay struct {
	table   *sessionTable
	mcpHTTP http.Handler // mcp-go's streamable HTTP server
	path    string       // where it serves
	log     *slog.Logger
	relayed prometheus.Counter
	// name is this instance's name while the sessions are shared with a
	// cluster, nil otherwise.
	name atomic.Pointer[string]
}

// crossing tags the requests to the client of a session-based request in
// a cluster, and takes their answers to the instance that asked; other
// requests go to next as they are.
func (rl *relay) crossing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := rl.name.Load()
		if name == nil {
			next.ServeHTTP(w, r)
			return
		}
		id := r.Header.Get(server.HeaderKeySessionID)
		if id == "" || (r.Method != http.MethodPost && r.Method != http.MethodGet) ||
			mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		tw := &taggingWriter{ResponseWriter: w, tag: tagMark + *name}
		if r.Method == http.MethodGet || r.Body == nil {
			next.ServeHTTP(tw, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "mcp: reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if answer, to, ok := untag(body); ok {
			if to != *name {
				rl.relayAnswer(w, r, id, to, answer)
				return
			}
			body = answer
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		next.ServeHTTP(tw, r)
	})
}

// untag reads body as a client's answer to a request tagged by an
// instance: it returns the answer with its id a number again and the
// instance, ok false when body is anything else.
func untag(body []byte) (answer []byte, instance string, ok bool) {
	if !gjson.ValidBytes(body) {
		return nil, "", false
	}
	msg := gjson.ParseBytes(body)
	if !msg.IsObject() || msg.Get("method").Exists() || !(msg.Get("result").Exists() || msg.Get("error").Exists()) {
		return nil, "", false
	}
	id := msg.Get("id")
	if id.Type != gjson.String {
		return nil, "", false
	}
	n, instance, found := strings.Cut(id.Str, tagMark)
	if !found || instance == "" || n == "" || strings.Trim(n, "0123456789") != "" {
		return nil, "", false
	}
	answer, err := sjson.SetRawBytes(body, "id", []byte(n))
	if err != nil {
		return nil, "", false
	}
	return answer, instance, true
}

// taggingWriter tags the id of every request to the client that mcp-go
// writes as a server-sent event (each event is one Write).
type taggingWriter struct {
	http.ResponseWriter
	tag string // tagMark and this instance's name
}

func (w *taggingWriter) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte(ssePrefix)) || !bytes.Contains(p, []byte(`"method"`)) {
		return w.ResponseWriter.Write(p)
	}
	data := bytes.TrimSuffix(p[len(ssePrefix):], []byte("\n\n"))
	got := gjson.GetManyBytes(data, "id", "method")
	if got[0].Type != gjson.Number || !got[1].Exists() {
		return w.ResponseWriter.Write(p) // a notification, or a response
	}
	tagged, err := sjson.SetBytes(data, "id", got[0].Raw+w.tag)
	if err != nil {
		return w.ResponseWriter.Write(p)
	}
	out := make([]byte, 0, len(ssePrefix)+len(tagged)+2)
	out = append(append(append(out, ssePrefix...), tagged...), "\n\n"...)
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush sends what was written (server-sent events go at once).
func (w *taggingWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap is the response written to, for http.ResponseController.
func (w *taggingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// relayed is a client's answer relayed to the instance that asked.
type relayed struct {
	Session string          `json:"session"`
	Version string          `json:"version"`
	Body    json.RawMessage `json:"body"`
}

// relayedReply is what the instance that asked answered the client.
type relayedReply struct {
	Status int    `json:"status"`
	Type   string `json:"type,omitempty"`
	Body   []byte `json:"body,omitempty"`
}

// relayAnswer relays answer, the client's answer in session id to a
// request of instance to, to that instance, and writes its reply to w.
func (rl *relay) relayAnswer(w http.ResponseWriter, r *http.Request, id, to string, answer []byte) {
	if terminated, err := rl.table.Validate(id); err != nil || terminated {
		http.Error(w, "Session not found", http.StatusNotFound)
		return
	}
	share := rl.table.shared()
	msg, err := json.Marshal(relayed{Session: id, Version: r.Header.Get(mcp.HeaderProtocolVersion), Body: answer})
	if err != nil || share == nil {
		http.Error(w, "mcp: the answer cannot be relayed", http.StatusInternalServerError)
		return
	}
	data, found, err := share.Relay(to, msg)
	switch {
	case err != nil:
		rl.log.Warn("mcp: relay a client's answer", "session", id, "instance", to, "error", err)
		http.Error(w, fmt.Sprintf("mcp: the answer cannot reach instance %s, which asked: %v", to, err), http.StatusBadGateway)
		return
	case !found:
		http.Error(w, fmt.Sprintf("mcp: instance %s, which asked, is gone", to), http.StatusNotFound)
		return
	}
	var reply relayedReply
	if err := json.Unmarshal(data, &reply); err != nil || reply.Status == 0 {
		http.Error(w, fmt.Sprintf("mcp: instance %s's reply to the answer does not read", to), http.StatusBadGateway)
		return
	}
	rl.relayed.Inc()
	if reply.Type != "" {
		w.Header().Set("Content-Type", reply.Type)
	}
	w.WriteHeader(reply.Status)
	_, _ = w.Write(reply.Body)
}

// answerRelayed hands a client's answer that another instance relayed here
// to mcp-go, as if the client had POSTed it here, and returns what mcp-go
// answered.
func (rl *relay) answerRelayed(msg []byte) []byte {
	reply := relayedReply{Status: http.StatusOK}
	var in relayed
	if err := json.Unmarshal(msg, &in); err != nil || in.Session == "" {
		reply.Status, reply.Body = http.StatusBadRequest, []byte("mcp: a relayed answer that does not read")
	} else if r, err := http.NewRequest(http.MethodPost, rl.path, bytes.NewReader(in.Body)); err != nil {
		reply.Status, reply.Body = http.StatusInternalServerError, []byte("mcp: "+err.Error())
	} else {
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(server.HeaderKeySessionID, in.Session)
		if in.Version != "" {
			r.Header.Set(mcp.HeaderProtocolVersion, in.Version)
		}
		rec := &recorder{header: http.Header{}}
		rl.mcpHTTP.ServeHTTP(rec, r)
		if rec.status != 0 {
			reply.Status = rec.status
		}
		reply.Type, reply.Body = rec.header.Get("Content-Type"), rec.body.Bytes()
	}
	out, err := json.Marshal(reply)
	if err != nil {
		return nil
	}
	return out
}

// recorder keeps a response (not streamed).
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
