package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/tidwall/sjson"
)

// echoExecutor is an a2asrv agent with one skill, echo: a new task is
// submitted, worked on, given an artifact holding the message's data, and
// completed.
type echoExecutor struct{}

func (echoExecutor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask != nil {
			yield(nil, a2a.ErrInvalidRequest)
			return
		}
		var args any = map[string]any{}
		for _, p := range ec.Message.Parts {
			if d := p.Data(); d != nil {
				args = d
				break
			}
		}
		for _, ev := range []a2a.Event{
			a2a.NewSubmittedTask(ec, ec.Message),
			a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil),
			a2a.NewArtifactEvent(ec, a2a.NewDataPart(args)),
			a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil),
		} {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (echoExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// a2aServer is an a2asrv server on loopback: its card at CardPath (edited
// by editCard, when set) and its JSON-RPC binding at /rpc, each answer's
// body edited by editAnswer (given the request's body) when set.
type a2aServer struct {
	editCard   func(card []byte) []byte
	editAnswer func(req, res []byte) []byte
	token      string // when set, every request must carry it as a bearer token
}

// start serves s until the test ends and returns its base URL.
func (s a2aServer) start(t *testing.T) string {
	t.Helper()
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(echoExecutor{}, a2asrv.WithLogger(slog.New(slog.DiscardHandler))))
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("GET "+CardPath, func(w http.ResponseWriter, r *http.Request) {
		card := &a2a.AgentCard{
			Name: "echo-agent", Description: "echoes the data it is sent", Version: "1.0.0",
			SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/rpc", a2a.TransportProtocolJSONRPC)},
			Capabilities:        a2a.AgentCapabilities{Streaming: true},
			DefaultInputModes:   []string{"application/json"}, DefaultOutputModes: []string{"application/json"},
			Skills: []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "echoes its arguments", Tags: []string{"test"}}},
		}
		b, err := json.Marshal(card)
		if err != nil {
			t.Error(err)
		}
		if s.editCard != nil {
			b = s.editCard(b)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		if s.editAnswer == nil {
			rpc.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		rpc.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		out := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			var lines []string
			for _, l := range strings.Split(string(out), "\n") {
				if data, ok := strings.CutPrefix(l, "data: "); ok {
					l = "data: " + string(s.editAnswer(body, []byte(data)))
				}
				lines = append(lines, l)
			}
			out = []byte(strings.Join(lines, "\n"))
		} else {
			out = s.editAnswer(body, bytes.TrimSpace(out))
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(out)
	})
	var h http.Handler = mux
	if s.token != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+s.token {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			mux.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base = srv.URL
	return base
}

// a2aOptions are the options of a test run against an A2A agent over HTTP.
func a2aOptions() Options {
	return Options{Dialect: "a2a", Timeout: 2 * time.Second, Quiet: 150 * time.Millisecond}
}

// TestA2AOverHTTP runs the a2a suite over HTTP against an a2asrv server
// built here, as it is and broken in one way each: every requirement passes
// against the server as it is; each broken one fails what it breaks, with
// the report saying what was expected and what came, and the verdict's
// exit code is 1 (0 for a broken SHOULD, unless strict).
func TestA2AOverHTTP(t *testing.T) {
	setID := func(id any) func(req, res []byte) []byte {
		return func(_, res []byte) []byte { b, _ := sjson.SetBytes(res, "id", id); return b }
	}
	cases := []struct {
		name   string
		server a2aServer
		url    func(base string) string
		strict bool
		// fails are the requirements that fail (or warn), each with what its
		// report must say; every other one passes.
		fails map[string]string
		code  int
	}{
		{name: "as it is", code: 0},
		{name: "a card URL", url: func(base string) string { return base + CardPath }, code: 0},
		{name: "the wrong id", server: a2aServer{editAnswer: func(req, res []byte) []byte {
			if strings.Contains(string(req), `"id":7`) {
				return res
			}
			return setID("not-the-request")(req, res)
		}}, fails: map[string]string{
			"a2a.http.send.correlated":       `it quotes "not-the-request"`,
			"a2a.http.task.get":              `it quotes "not-the-request"`,
			"a2a.http.task.not_found":        `it quotes "not-the-request"`,
			"a2a.http.cancel.not_cancelable": `it quotes "not-the-request"`,
			"a2a.http.malformed.parse_error": `at id: must be one of null; it is "not-the-request"`,
			"a2a.http.malformed.survives":    `it quotes "not-the-request"`,
			"a2a.http.stream.final":          `it quotes "not-the-request"`,
			"a2a.http.method.not_found":      `it quotes "not-the-request"`,
		}, code: 1},
		{name: "no TaskNotFound", server: a2aServer{editAnswer: func(req, res []byte) []byte {
			if strings.Contains(string(res), "-32001") {
				b, _ := sjson.SetBytes(res, "error.code", -32603)
				return b
			}
			return res
		}}, fails: map[string]string{
			"a2a.http.task.not_found": "at error.code: must be -32001; it is -32603",
		}, code: 1},
		{name: "a bad card", server: a2aServer{editCard: func(card []byte) []byte {
			b, _ := sjson.SetBytes(card, "supportedInterfaces.0.url", "/rpc")
			b, _ = sjson.DeleteBytes(b, "supportedInterfaces.0.protocolVersion")
			b, _ = sjson.DeleteBytes(b, "description")
			return b
		}}, fails: map[string]string{
			"a2a.http.card.resolves":   "a2a-go cannot make a client from the agent card",
			"a2a.http.card.named":      "at description: must be a string matching",
			"a2a.http.card.interfaces": `element 0 is "/rpc"`,
		}, code: 1},
		{name: "a stream with no final state", server: a2aServer{editAnswer: func(req, res []byte) []byte {
			if strings.Contains(string(req), "SendStreamingMessage") {
				return bytes.ReplaceAll(res, []byte("TASK_STATE_COMPLETED"), []byte("TASK_STATE_WORKING"))
			}
			return res
		}}, fails: map[string]string{
			"a2a.http.stream.final": "no answer within 2s, after 3 acceptance(s)",
		}, code: 1},
		{name: "a SHOULD broken", server: a2aServer{editAnswer: func(req, res []byte) []byte {
			if strings.Contains(string(res), "-32601") {
				b, _ := sjson.SetBytes(res, "error.code", -32600)
				return b
			}
			return res
		}}, fails: map[string]string{
			"a2a.http.method.not_found": "at error.code: must be -32601; it is -32600",
		}, code: 0},
		{name: "a SHOULD broken, strict", strict: true, server: a2aServer{editAnswer: func(req, res []byte) []byte {
			if strings.Contains(string(res), "-32601") {
				b, _ := sjson.SetBytes(res, "error.code", -32600)
				return b
			}
			return res
		}}, fails: map[string]string{
			"a2a.http.method.not_found": "at error.code: must be -32601; it is -32600",
		}, code: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := tc.server.start(t)
			url := base
			if tc.url != nil {
				url = tc.url(base)
			}
			o := a2aOptions()
			o.Strict = tc.strict
			rep := runTest(t, A2A(url), o)
			suite, err := A2AHTTPSuite()
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != len(suite.Requirements) {
				t.Errorf("%d results, want one per requirement (%d)", len(rep.Results), len(suite.Requirements))
			}
			for _, res := range rep.Results {
				says, broken := tc.fails[res.ID]
				switch {
				case broken && !res.Failed():
					t.Errorf("%s passed, want it to fail: %s", res.ID, describe(res))
				case broken && !strings.Contains(describe(res), says):
					t.Errorf("the report of %s does not say %q: %s", res.ID, says, describe(res))
				case !broken && res.Status != Pass:
					t.Errorf("%s", describe(res))
				}
			}
			if v := rep.Verdict(); v.Code != tc.code {
				t.Errorf("verdict %+v, want exit %d", v, tc.code)
			}
			if rep.Dialect != "a2a" || !slices.Equal(rep.Operations, []string{"echo"}) {
				t.Errorf("dialect %s, operations %v: want a2a, the card's skill echo", rep.Dialect, rep.Operations)
			}
		})
	}
}

// TestA2AUnreachable: an agent whose card cannot be fetched, is not JSON
// or names no JSON-RPC interface is unreachable (exit 2), said so; a
// dialect other than a2a at an http URL is refused.
func TestA2AUnreachable(t *testing.T) {
	cases := []struct {
		name   string
		server a2aServer
		url    func(base string) string
		says   string
	}{
		{name: "no card", url: func(base string) string { return base + "/nowhere" }, says: "HTTP 404"},
		{name: "a card that is not JSON", server: a2aServer{editCard: func([]byte) []byte { return []byte("<html>") }}, says: "is not a JSON object"},
		{name: "no JSON-RPC interface", server: a2aServer{editCard: func(card []byte) []byte {
			b, _ := sjson.SetBytes(card, "supportedInterfaces.0.protocolBinding", "GRPC")
			return b
		}}, says: "offers no JSON-RPC interface"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.server.start(t)
			url := base
			if tc.url != nil {
				url = tc.url(base)
			}
			o := a2aOptions()
			o.ConnectWait = 5 * time.Second
			_, err := Run(context.Background(), A2A(url), o)
			if err == nil || !strings.Contains(err.Error(), tc.says) || !errors.Is(err, ErrUnreachable) {
				t.Errorf("Run: %v, want an unreachable agent and %q", err, tc.says)
			}
		})
	}
	o := a2aOptions()
	o.Dialect = "swarm"
	if _, err := Run(context.Background(), A2A("http://127.0.0.1:1/"), o); err == nil || !strings.Contains(err.Error(), "give --dialect a2a, not swarm") {
		t.Errorf("swarm at an http URL: %v", err)
	}
}

// TestReadStream reads server-sent events as frames: the data of each
// event (lines joined with newlines, comments and other fields left out,
// CRLF or LF), one cut at the frame limit with its whole size, and a last
// event with no blank line after it.
func TestReadStream(t *testing.T) {
	cases := []struct {
		name   string
		stream string
		want   []Frame
	}{
		{"two events", "data: {\"a\":1}\n\ndata: {\"b\":2}\n\n", []Frame{{Data: []byte(`{"a":1}`), Size: 7}, {Data: []byte(`{"b":2}`), Size: 7}}},
		{"CRLF, a comment and an event name", ": keep-alive\r\nevent: x\r\ndata: {}\r\n\r\n", []Frame{{Data: []byte(`{}`), Size: 2}}},
		{"data on two lines", "data: {\"a\":\ndata: 1}\n\n", []Frame{{Data: []byte("{\"a\":\n1}"), Size: 8}}},
		{"an event over the limit", "data: " + strings.Repeat("x", 40) + "\n\n", []Frame{{Data: []byte(strings.Repeat("x", 16)), Size: 40}}},
		{"no blank line at the end", "data: {}", []Frame{{Data: []byte(`{}`), Size: 2}}},
		{"nothing", ": only a comment\n\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := &a2aConn{maxFrame: 16, ctx: ctx, cancel: cancel, frames: make(chan Frame, 10)}
			c.readStream(strings.NewReader(tc.stream))
			close(c.frames)
			var got []Frame
			for f := range c.frames {
				got = append(got, f)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d frames %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if !bytes.Equal(got[i].Data, tc.want[i].Data) || got[i].Size != tc.want[i].Size {
					t.Errorf("frame %d: %q (%d bytes), want %q (%d)", i, got[i].Data, got[i].Size, tc.want[i].Data, tc.want[i].Size)
				}
			}
		})
	}
}
