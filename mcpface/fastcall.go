package mcpface

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonvalid"
	"github.com/tidwall/gjson"
)

// The face's own way for the commonest request, a tools/call, in front of
// mcp-go (DESIGN.md section 9). mcp-go reads each request three times over
// (its envelope, its era, the request itself, each with encoding/json),
// starts a goroutine to forward notifications and keeps a cancel function
// per request: about as much CPU as the whole round trip to the agent.
// fastCalls answers a tools/call itself when it can tell that mcp-go's
// answer would be the same, the one the face's handler gives, in the same
// bytes; anything else, and anything it cannot tell, goes to mcp-go as it
// came. It is generic: it reads what mcp-go reads (the headers, the session
// mcp-go registered, the message's members) and calls the same handler,
// Face.call, with the request mcp-go would have made. FuzzFastCalls feeds
// the same requests to both and fails on any difference.
//
// A request is answered here when all of these hold, else mcp-go answers:
//   - a POST of Content-Type application/json under a protocol version
//     mcp-go serves, from a loopback Host when the listener is on loopback
//     (mcp-go refuses others, against DNS rebinding);
//   - before 2026-07-28: in a live session of this instance that mcp-go
//     registered, that no notification was sent to (mcp-go answers every
//     later request of such a session as an event stream);
//   - from 2026-07-28 (no sessions): with the version in the body's _meta
//     as in the header, the client's capabilities there, the standard
//     headers (Mcp-Method, Mcp-Name) matching the body, no Last-Event-ID;
//   - a client that cannot be asked for input (elicitation goes over the
//     request's own stream, or comes back to it as input requests);
//   - the body is one JSON object in UTF-8 of exactly the members jsonrpc
//     "2.0", method "tools/call", an id (a whole number below 10^15 or a
//     plain string) and params of exactly name, arguments (an object) if
//     at all, and _meta (an object; from 2026-07-28 only, without a
//     progress token); no task, no escapes in the names, no member given
//     twice;
//   - the tool is one the face routes (beforeCall) and the caller may see.
//
// A notifications/cancelled naming a call answered here cancels it, as
// mcp-go does its own; it then goes on to mcp-go.

// fastCalls returns next with the face's own way for tools/call in front.
func (f *Face) fastCalls(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		version := r.Header.Get(mcp.HeaderProtocolVersion)
		modern := mcp.IsModernProtocol(version)
		sid := "" // mcp-go keys a sessionless request's cancelling by its id alone
		if !modern {
			sid = r.Header.Get(server.HeaderKeySessionID)
		}
		if r.Method != http.MethodPost || r.Body == nil || !mcp.IsValidProtocolVersion(version) || !plainJSON(r) || !hostAllowed(r) ||
			!modern && sid == "" || modern && (!f.mcpHTTP.SupportsProtocolVersion(version) || r.Header.Get(mcp.HeaderLastEventID) != "") {
			next.ServeHTTP(w, r)
			return
		}
		body, err := readBody(r)
		if err != nil {
			// mcp-go words a body it cannot read; it gets it as far as read.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		c, ok := fastCallOf(body, modern)
		var session server.ClientSession
		if ok && modern {
			session, ok = c.modernSession(version, r.Header)
		} else if ok {
			// Only a session mcp-go registered here is validated here: any
			// other goes to mcp-go, which validates it (asking the
			// instance that holds it, in a cluster) once.
			if session = f.sessions.quiet(sid); session != nil {
				terminated, err := f.sessionTable.Validate(sid)
				ok = err == nil && !terminated
			} else {
				ok = false
			}
		}
		if !ok {
			if id, cancelled := cancelledCall(body); cancelled {
				f.inflight.cancel(sid, id)
			}
			next.ServeHTTP(w, r)
			return
		}
		ctx := f.fromRecord(f.srv.WithContext(r.Context(), session), r)
		e := f.table().byName[c.name]
		if e == nil || !scopeOf(ctx).shows(e) || e.tool.headers && f.held(e.name) || canElicit(ctx) {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := f.inflight.add(sid, c.key, cancel)
		defer done()
		req := mcp.CallToolRequest{Header: r.Header, Params: mcp.CallToolParams{Name: c.name, RawArguments: c.args, Meta: c.meta}}
		req.Method = string(mcp.MethodToolsCall)
		res, t, err := f.handle(ctx, req)
		// The call is counted and audited once its answer is on its way:
		// the client does not wait for that.
		defer f.record(ctx, t)
		if r.Context().Err() != nil {
			return // the client went; mcp-go writes nothing either
		}
		f.answered.Add(1)
		if err != nil {
			// An error is 200 in either era (-32603 maps to no other
			// status).
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_ = json.NewEncoder(w).Encode(mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(c.id),
				Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, err.Error(), nil)})
			return
		}
		if modern {
			// What mcp-go stamps on every result from 2026-07-28 on.
			if res.ResultType == "" {
				res.ResultType = mcp.ResultTypeComplete
			}
			if m := res.EnsureResultMeta(); m.ServerInfo() == nil {
				m.SetServerInfo(mcp.Implementation{Name: serverName, Version: f.opts.Version})
			}
		}
		// As json.Encoder writes mcp.NewJSONRPCResultResponse(id, res):
		// the id as it came (idOf takes only ids encoding/json writes back
		// so), and the result's own JSON, compact and HTML-escaped as
		// Encoder would make it (appendResult, or MarshalJSON).
		buf := make([]byte, 0, 256+len(c.rawID))
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = append(buf, c.rawID...)
		buf = append(buf, `,"result":`...)
		if out, ok := appendResult(buf, res); ok {
			buf = out
		} else {
			out, err := res.MarshalJSON()
			if err != nil {
				f.log.Debug("mcp: writing a tools/call response", "error", err)
				return
			}
			buf = append(buf, out...)
		}
		buf = append(buf, "}\n"...)
		// The length net/http would give it once the handler returns, so
		// that the answer can go now, without chunks.
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(buf)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(buf)
		_ = http.NewResponseController(w).Flush()
	})
}

// fastCall is a tools/call fastCalls answers: its id as encoding/json
// decodes it (float64 or string) and as it came, the id's key for
// cancelling, the tool's name, the arguments as sent (nil when none were),
// and the params whole and their _meta.
type fastCall struct {
	id     any
	rawID  string
	key    string
	name   string
	args   json.RawMessage
	params string    // the params as sent
	meta   *mcp.Meta // the params' _meta as mcp-go reads it; nil when none
}

// maxFastID bounds the number ids fastCalls answers: below it a whole
// number is a float64 exactly, and written back as it came.
const maxFastID = 1e15

// fastCallOf returns the tools/call body is, ok false when it is anything
// fastCalls leaves to mcp-go; modern: whether its era is 2026-07-28 or
// later, when params carry a _meta.
func fastCallOf(body []byte, modern bool) (c fastCall, ok bool) {
	if !jsonvalid.Valid(body) {
		return c, false
	}
	msg := gjson.ParseBytes(body)
	if !msg.IsObject() {
		return c, false
	}
	var seen [4]bool
	var params gjson.Result
	ok = true
	msg.ForEach(func(k, v gjson.Result) bool {
		i := -1
		switch k.Raw {
		case `"jsonrpc"`:
			i, ok = 0, v.Raw == `"2.0"`
		case `"id"`:
			i, c.rawID = 1, v.Raw
			c.id, c.key, ok = idOf(v)
		case `"method"`:
			i, ok = 2, v.Raw == `"tools/call"`
		case `"params"`:
			i, params, ok = 3, v, v.IsObject()
			c.params = v.Raw
		}
		if i < 0 || seen[i] {
			ok = false
		} else {
			seen[i] = true
		}
		return ok
	})
	if !ok || seen != [4]bool{true, true, true, true} {
		return c, false
	}
	var named, argued, metaed bool
	params.ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Raw == `"name"` && !named:
			named = true
			ok = v.Type == gjson.String && v.Raw == `"`+v.Str+`"`
			c.name = v.Str
		case k.Raw == `"arguments"` && !argued:
			argued = true
			ok = v.IsObject()
			c.args = json.RawMessage(v.Raw)
		case k.Raw == `"_meta"` && !metaed && modern:
			metaed = true
			c.meta = new(mcp.Meta)
			ok = v.IsObject() && json.Unmarshal([]byte(v.Raw), c.meta) == nil
		default:
			ok = false
		}
		return ok
	})
	return c, ok && named && metaed == modern
}

// modernSession returns the session mcp-go would make for c, a call of
// protocol version (2026-07-28 or later) with headers h, from its _meta;
// ok false unless mcp-go would take the call as it came.
func (c *fastCall) modernSession(version string, h http.Header) (server.ClientSession, bool) {
	m := c.meta
	caps := m.ClientCapabilities()
	if m.ProtocolVersion() != version || caps == nil || m.ProgressToken != nil ||
		mcp.ValidateStandardHeaders(h.Get, version, mcp.MethodToolsCall, json.RawMessage(c.params)) != nil {
		return nil, false
	}
	s := &callSession{caps: *caps}
	if info := m.ClientInfo(); info != nil {
		s.info = *info
	}
	return s, true
}

// callSession is the session of one call from 2026-07-28 on, which has no
// other: what its _meta says of the client.
type callSession struct {
	info mcp.Implementation
	caps mcp.ClientCapabilities
}

// The methods of server.SessionWithClientInfo: a session that is always
// initialized, hears no notification and has no id.

func (s *callSession) Initialize()                                         {}
func (s *callSession) Initialized() bool                                   { return true }
func (s *callSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s *callSession) SessionID() string                                   { return "" }
func (s *callSession) GetClientInfo() mcp.Implementation                   { return s.info }
func (s *callSession) SetClientInfo(info mcp.Implementation)               { s.info = info }
func (s *callSession) GetClientCapabilities() mcp.ClientCapabilities       { return s.caps }
func (s *callSession) SetClientCapabilities(caps mcp.ClientCapabilities)   { s.caps = caps }

var _ server.SessionWithClientInfo = (*callSession)(nil)

// idOf returns a request id as encoding/json decodes it into an any and
// its key for cancelling, ok false unless it is a whole number from 0 to
// maxFastID written in digits, or a string of letters, digits and - _ . :
// (which mcp-go writes back as they came).
func idOf(v gjson.Result) (id any, key string, ok bool) {
	switch v.Type {
	case gjson.Number:
		if len(v.Raw) > 15 || strings.TrimLeft(v.Raw, "0123456789") != "" || len(v.Raw) > 1 && v.Raw[0] == '0' {
			return nil, "", false
		}
		n, err := strconv.ParseFloat(v.Raw, 64)
		if err != nil || n >= maxFastID {
			return nil, "", false
		}
		return n, numberKey(n), true
	case gjson.String:
		if v.Str == "" || len(v.Str) > 128 || v.Raw != `"`+v.Str+`"` || strings.TrimLeft(v.Str, idChars) != "" {
			return nil, "", false
		}
		return v.Str, v.Str, true
	}
	return nil, "", false
}

// idChars are the characters of the string ids fastCalls answers.
const idChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:"

// numberKey is the key for cancelling of a call whose id is the number n,
// whichever way a client writes it: as mcp-go keys it (fmt's %v of the
// id as encoding/json decodes it), so that what cancels a call of mcp-go's
// cancels one answered here, a string id "1" by the number 1 too.
func numberKey(n float64) string { return strconv.FormatFloat(n, 'g', -1, 64) }

// cancelledCall returns the id's key of the call a notifications/cancelled
// body names.
func cancelledCall(body []byte) (string, bool) {
	if !gjson.ValidBytes(body) {
		return "", false
	}
	r := gjson.GetManyBytes(body, "method", "id", "params.requestId")
	if r[0].String() != string(mcp.MethodNotificationCancelled) || r[1].Exists() {
		return "", false
	}
	switch r[2].Type {
	case gjson.Number:
		return numberKey(r[2].Float()), true
	case gjson.String:
		return r[2].Str, true
	}
	return "", false
}

// readBody reads r's body whole, into a buffer of its stated length
// first when it states one.
func readBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= 1<<20 {
		body := make([]byte, n)
		k, err := io.ReadFull(r.Body, body)
		if err != nil {
			return body[:k], err
		}
		// A handler in front may have put a body of another length in;
		// read to its end, as mcp-go does.
		var more [1]byte
		switch k, err := r.Body.Read(more[:]); {
		case k == 0 && err == io.EOF:
			return body, nil
		case k == 0 && err != nil:
			return body, err
		}
		rest, err := io.ReadAll(r.Body)
		return append(append(body, more[0]), rest...), err
	}
	return io.ReadAll(r.Body)
}

// plainJSON reports whether r's Content-Type is application/json, as
// mcp-go requires.
func plainJSON(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "application/json" {
		return true // what clients send; ParseMediaType would make a map of its parameters
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// hostAllowed reports whether mcp-go would serve r as far as DNS
// rebinding goes: a listener on loopback serves loopback Hosts only.
func hostAllowed(r *http.Request) bool {
	if loopback(r.Host) {
		return true // whatever the listener
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return !ok || local == nil || !loopback(local.String())
}

// loopback reports whether hostport names a loopback host as mcp-go
// reads it: localhost or a loopback address, with a port or without (then
// brackets trimmed). Anything it cannot read is not.
func loopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// inflight are the calls fastCalls is answering, by session and id's key,
// so that a notifications/cancelled can cancel them.
type inflight struct {
	mu    sync.Mutex
	calls map[inflightKey]context.CancelFunc
}

type inflightKey struct{ session, id string }

// add notes the call of session with id's key, cancelled by cancel, until
// done.
func (in *inflight) add(session, id string, cancel context.CancelFunc) (done func()) {
	k := inflightKey{session, id}
	in.mu.Lock()
	if in.calls == nil {
		in.calls = map[inflightKey]context.CancelFunc{}
	}
	in.calls[k] = cancel
	in.mu.Unlock()
	return func() {
		in.mu.Lock()
		delete(in.calls, k)
		in.mu.Unlock()
	}
}

// cancel cancels the call of session with id's key, if one is in flight.
func (in *inflight) cancel(session, id string) {
	in.mu.Lock()
	cancel := in.calls[inflightKey{session, id}]
	in.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
