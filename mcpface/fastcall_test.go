package mcpface

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/tidwall/gjson"
)

// apart is a face served twice over loopback: with fastCalls (fast) and
// without (slow), the same bridge, sessions and mcp-go behind both.
type apart struct {
	*live
	fast, slow string // the /mcp URLs
}

// serveApart serves a bridge whose swarm agent calc offers tools (of the
// reference agent's), and waits until the sessions made from now on will
// hear of nothing (the face has told the sessions of calc's tools).
func serveApart(tb testing.TB, tools ...string) *apart {
	l := serve(tb, Options{})
	l.attach("swarm", "calc", tools...)
	eventually(tb, "calc's tools listed", func() bool { return l.f.entry("calc__echo") != nil })
	time.Sleep(2 * Coalesce)
	slow := httptest.NewServer(l.f.sessionful(false))
	tb.Cleanup(slow.Close)
	return &apart{live: l, fast: l.url + Path, slow: slow.URL + Path}
}

// exchange is an HTTP request to the face and its answer.
type exchange struct {
	status int
	header http.Header // but Date
	body   []byte
}

// post sends body to url with the headers of a session's request, then
// edit's changes; sid and version are the headers' values ("" for none).
func post(tb testing.TB, url, sid, version, body string, edit func(*http.Request)) exchange {
	tb.Helper()
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		r.Header.Set(server.HeaderKeySessionID, sid)
	}
	if version != "" {
		r.Header.Set(mcp.HeaderProtocolVersion, version)
	}
	if edit != nil {
		edit(r)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	res.Header.Del("Date")
	return exchange{status: res.StatusCode, header: res.Header, body: b}
}

// session opens an MCP session over raw HTTP at url and returns its id.
func session(tb testing.TB, url string) string {
	tb.Helper()
	r, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":`+
		`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"differ","version":"1"}}}`))
	if err != nil {
		tb.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	sid := r.Header.Get(server.HeaderKeySessionID)
	if sid == "" {
		tb.Fatalf("initialize: no session id (%s)", r.Status)
	}
	if e := post(tb, url, sid, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); e.status != http.StatusAccepted {
		tb.Fatalf("notifications/initialized: %d %s", e.status, e.body)
	}
	return sid
}

// same fails tb unless a and b are the same answer: status, headers but
// Date, and body, byte for byte; a new session's id (an initialize) may
// differ. An answer that is an event stream is mcp-go's: a call that sends
// notifications (progress) races them against its response, so that
// mcp-go answers it as an event stream or as JSON from one time to the
// next; such answers are compared by their response alone.
func same(tb testing.TB, what string, a, b exchange) {
	tb.Helper()
	if a.header.Get(server.HeaderKeySessionID) != "" && b.header.Get(server.HeaderKeySessionID) != "" {
		a.header.Del(server.HeaderKeySessionID)
		b.header.Del(server.HeaderKeySessionID)
	}
	if isStream(a) || isStream(b) {
		a, b = responseOf(a), responseOf(b)
	}
	// An agent's error may quote where in the frame it was sent a byte is,
	// and the frame's timestamp is as long as its clock's fraction: that
	// place is no difference of the face's.
	if !bytes.Equal(a.body, b.body) && bytes.Equal(byteAt.ReplaceAll(a.body, []byte("at byte N")), byteAt.ReplaceAll(b.body, []byte("at byte N"))) {
		a.body = b.body
		a.header.Del("Content-Length")
		b.header.Del("Content-Length")
	}
	if a.status != b.status || !reflect.DeepEqual(a.header, b.header) || !bytes.Equal(a.body, b.body) {
		tb.Fatalf("%s:\nfast   %d %v %q\nmcp-go %d %v %q", what, a.status, a.header, a.body, b.status, b.header, b.body)
	}
}

// byteAt is how a refusal names the place of a byte in a frame.
var byteAt = regexp.MustCompile(`at byte [0-9]+`)

func isStream(e exchange) bool {
	return strings.HasPrefix(e.header.Get("Content-Type"), "text/event-stream")
}

// responseOf is e's JSON-RPC response alone: the last event of a stream
// that has an id, or a JSON body, with no headers.
func responseOf(e exchange) exchange {
	out := exchange{status: e.status, header: http.Header{}, body: bytes.TrimSpace(e.body)}
	if !isStream(e) {
		return out
	}
	out.body = nil
	for line := range strings.Lines(string(e.body)) {
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok && gjson.Get(data, "id").Exists() {
			out.body = []byte(data)
		}
	}
	return out
}

// TestFastCalls: a go-sdk client's tools/call is answered by fastCalls,
// with what mcp-go answers; once its session has been sent a notification,
// mcp-go answers it (as an event stream).
func TestFastCalls(t *testing.T) {
	a := serveApart(t, "echo", "fail")
	c := a.connect("", "2025-11-25")
	res, err := c.call("calc__echo", map[string]any{"x": 1})
	if err != nil || res.IsError || text(res) != `{"x":1}` {
		t.Fatalf("echo: %v %+v", err, res)
	}
	if n := a.f.answered.Load(); n != 1 {
		t.Fatalf("fastCalls answered %d calls, want 1", n)
	}
	res, err = c.call("calc__fail", map[string]any{"message": "no"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "no") {
		t.Fatalf("fail: %v %+v", err, res)
	}
	if _, err := c.call("calc__nothing", nil); err == nil {
		t.Fatal("a tool nobody offers was called")
	}
	if n := a.f.answered.Load(); n != 2 {
		t.Fatalf("fastCalls answered %d calls, want 2 (an unknown tool is mcp-go's)", n)
	}
	// A 2026-07-28 client (the go-sdk's latest) has no session: every call
	// of its is answered here.
	m := a.connect("")
	for i := range 2 {
		res, err := m.call("calc__echo", map[string]any{"m": i})
		if err != nil || res.IsError || text(res) != fmt.Sprintf(`{"m":%d}`, i) {
			t.Fatalf("echo from a 2026-07-28 client: %v %+v", err, res)
		}
	}
	if n := a.f.answered.Load(); n != 4 {
		t.Fatalf("fastCalls answered %d calls, want 4", n)
	}
	a.attach("swarm", "calc2", "echo")
	c.awaitChanged("calc2 came")
	res, err = c.call("calc2__echo", map[string]any{"y": 2})
	if err != nil || res.IsError || text(res) != `{"y":2}` {
		t.Fatalf("echo after list_changed: %v %+v", err, res)
	}
	if n := a.f.answered.Load(); n != 4 {
		t.Fatalf("fastCalls answered a call of a session that was sent a notification (%d)", n)
	}
}

// TestFastCallCancelled: a notifications/cancelled ends a call fastCalls
// answers, with the answer mcp-go gives to one it answers, in either era.
func TestFastCallCancelled(t *testing.T) {
	a := serveApart(t, "echo", "sleep")
	for _, era := range []struct {
		version, meta string
		edit          func(*http.Request, string)
	}{
		{"2025-11-25", "", nil},
		{mcp.ProtocolVersion20260728, `,"_meta":` + modernMeta(""), modernHeaders("")},
	} {
		var got [2]exchange
		for i, url := range []string{a.fast, a.slow} {
			sid := session(t, url)
			edit := func(r *http.Request) {
				if era.edit != nil {
					era.edit(r, sid)
				}
			}
			done := make(chan exchange, 1)
			go func() {
				done <- post(t, url, sid, era.version, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calc__sleep","arguments":{"ms":60000}`+era.meta+`}}`, edit)
			}()
			time.Sleep(200 * time.Millisecond) // the call is with the agent
			if e := post(t, url, sid, era.version, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7`+era.meta+`}}`, func(r *http.Request) {
				if era.edit != nil {
					r.Header.Set(mcp.HeaderProtocolVersion, era.version)
				}
			}); e.status != http.StatusAccepted {
				t.Fatalf("%s: notifications/cancelled: %d %s", era.version, e.status, e.body)
			}
			select {
			case got[i] = <-done:
			case <-time.After(wait):
				t.Fatalf("%s: %s: the cancelled call did not end", era.version, url)
			}
		}
		same(t, era.version+" cancelled", got[0], got[1])
		if !strings.Contains(string(got[0].body), "context canceled") {
			t.Fatalf("%s: cancelled call: %s", era.version, got[0].body)
		}
	}
	if n := a.f.answered.Load(); n != 2 {
		t.Fatalf("fastCalls answered %d cancelled calls, want 2", n)
	}
}

// fastSeeds are requests FuzzFastCalls starts from: tools/calls fastCalls
// answers and the nearest it leaves to mcp-go.
var fastSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calc__echo","arguments":{"a":[1,2,{"b":null}],"c":"d<e>&"}}}`,
	`{"method":"tools/call","params":{"arguments":{"a":1,"b":2},"name":"calc__add"},"id":"req-1.a:b","jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calc__add","arguments":{"a":"x"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"calc__fail","arguments":{"message":"\u00e9t\u00e9 \"quoted\""}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"calc__echo"}}`,
	` {"jsonrpc" : "2.0" , "id" : 5 , "method" : "tools/call" , "params" : {"name" : "calc__echo" , "arguments" : { } } } `,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"calc__echo","arguments":null}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calc__echo","arguments":[1]}}`,
	`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"calc__nothing","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"calc\u005f_echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":10,"method":"tools/call","method":"tools/list","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"calc__echo","arguments":{},"_meta":{"progressToken":"p"}}}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":-1,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":99999999999999999999,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":"<id>","method":"tools/call","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"1.0","id":12,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"calc__echo","arguments":{"a":"\xff"}}}`,
	`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"calc__echo","arguments":{"a":1,"a":2}}}`,
	`{"jsonrpc":"2.0","id":15,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":15}}`,
	`{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"calc__echo","arguments":{}},"extra":true}`,
	`[{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}}]`,
	`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"calc__echo","arguments":{}}`,
}

// fastHeaders are the header variants FuzzFastCalls picks from by its
// first input: as a client sends them, and the nearest ones fastCalls
// leaves to mcp-go.
var fastHeaders = []func(r *http.Request, sid string){
	func(*http.Request, string) {},
	func(r *http.Request, _ string) { r.Header.Set("Content-Type", "application/json; charset=utf-8") },
	func(r *http.Request, _ string) { r.Header.Set("Content-Type", "Application/JSON") },
	func(r *http.Request, _ string) { r.Header.Set("Content-Type", "text/plain") },
	func(r *http.Request, _ string) { r.Header.Del(mcp.HeaderProtocolVersion) },
	func(r *http.Request, _ string) { r.Header.Set(mcp.HeaderProtocolVersion, "2025-06-18") },
	func(r *http.Request, _ string) { r.Header.Set(mcp.HeaderProtocolVersion, "1999-01-01") },
	func(r *http.Request, _ string) { r.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728) },
	modernHeaders(""),
	modernHeaders("calc__add"),
	func(r *http.Request, sid string) {
		modernHeaders("")(r, sid)
		r.Header.Set(mcp.HeaderLastEventID, "1")
	},
	func(r *http.Request, _ string) { r.Header.Set(server.HeaderKeySessionID, "no-such-session") },
	func(r *http.Request, _ string) { r.Header.Del(server.HeaderKeySessionID) },
	func(r *http.Request, _ string) { r.Host = "example.com" },
	func(r *http.Request, _ string) { r.Host = "localhost:1" },
	func(r *http.Request, _ string) { r.Host = "[::1]:1" },
	func(r *http.Request, _ string) { r.Host = "127.0.0.2" },
	func(r *http.Request, _ string) { r.Host = "[[::1]]" },
	func(r *http.Request, _ string) { r.Host = "LOCALHOST" },
}

// modernHeaders sets the headers of a 2026-07-28 request: the version,
// Mcp-Method, and Mcp-Name: name, or the body's tool name when "" (none
// when that name holds what no HTTP client sends in a header).
func modernHeaders(name string) func(r *http.Request, sid string) {
	return func(r *http.Request, _ string) {
		r.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
		r.Header.Set(mcp.HeaderMethod, "tools/call")
		if name == "" && r.GetBody != nil {
			if b, err := r.GetBody(); err == nil {
				body, _ := io.ReadAll(b)
				name = gjson.GetBytes(body, "params.name").String()
			}
		}
		if sendable(name) {
			r.Header.Set(mcp.HeaderName, name)
		}
	}
}

// sendable reports whether v is a header value net/http's client sends: no
// control character but the tab.
func sendable(v string) bool {
	return !strings.ContainsFunc(v, func(c rune) bool { return (c < ' ' && c != '\t') || c == 0x7f })
}

// modernMeta is the _meta of a 2026-07-28 request, with extra members.
func modernMeta(extra string) string {
	return `{"` + mcp.MetaKeyProtocolVersion + `":"` + mcp.ProtocolVersion20260728 + `","` + mcp.MetaKeyClientCapabilities + `":{}` +
		`,"` + mcp.MetaKeyClientInfo + `":{"name":"differ","version":"1"}` + extra + `}`
}

// FuzzFastCalls is the differential test of fastCalls (DESIGN.md section
// 9): each request goes to the face with fastCalls and to the same face
// without it, each in a session of its own that heard of nothing, and the
// answers must be the same.
func FuzzFastCalls(f *testing.F) {
	for i, s := range fastSeeds {
		f.Add(uint8(i%len(fastHeaders)), []byte(s))
		f.Add(uint8(0), []byte(s))
	}
	modern := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calc__echo","arguments":{"a":"<b>"},"_meta":` + modernMeta("") + `}}`,
		`{"jsonrpc":"2.0","id":"m-2","method":"tools/call","params":{"_meta":` + modernMeta(`,"x":1`) + `,"name":"calc__add","arguments":{"a":1,"b":2}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"calc__fail","_meta":` + modernMeta(`,"progressToken":"p"`) + `}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"calc__echo","_meta":{"` + mcp.MetaKeyProtocolVersion + `":"` + mcp.ProtocolVersion20260728 + `"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"calc__echo","_meta":{"` + mcp.MetaKeyProtocolVersion + `":"2025-11-25","` + mcp.MetaKeyClientCapabilities + `":{}}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"calc__echo","_meta":` + strings.Replace(modernMeta(""), "{}", `{"elicitation":{}}`, 1) + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calc__echo","_meta":` + modernMeta("") + `,"task":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":` + modernMeta("") + `}}`,
	}
	for _, s := range modern {
		for v := range fastHeaders {
			f.Add(uint8(v), []byte(s))
		}
	}
	a := serveApart(f, "echo", "add", "fail") // no sleep: a fuzzed call could wait minutes
	f.Fuzz(func(t *testing.T, variant uint8, body []byte) {
		edit := fastHeaders[int(variant)%len(fastHeaders)]
		var got [2]exchange
		for i, url := range []string{a.fast, a.slow} {
			sid := session(t, url)
			got[i] = post(t, url, sid, "2025-11-25", string(body), func(r *http.Request) { edit(r, sid) })
		}
		same(t, string(body), got[0], got[1])
	})
}
