package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/server"
	"github.com/mcp-bridge/mcp-bridge/server/servertest"
)

// wait bounds every wait of these tests; it is generous because CI
// machines are slow, and no test measures time with it.
const wait = 10 * time.Second

// dialectNames are the registered dialects.
var dialectNames = dialects.Names()

// aliases is a mapping file that names the lower-case test ids (the
// requesters and responders of the dialects that write ids as they are,
// and the bridge) as each dialect that cannot carry them writes them
// (bluelabel, in upper case), as a site's mapping file would.
func aliases() string {
	ids := []string{"mcp-bridge"}
	for _, d := range dialectNames {
		for _, id := range []string{d + "-req", d + "-agent"} {
			if refagent.SpellID(d, id) == id {
				ids = append(ids, id)
			}
		}
	}
	var b strings.Builder
	for _, d := range dialectNames {
		var entries []string
		for _, id := range ids {
			if spelt := refagent.SpellID(d, id); spelt != id {
				entries = append(entries, fmt.Sprintf("    %s: %s\n", id, spelt))
			}
		}
		if len(entries) > 0 {
			b.WriteString("  " + d + ":\n" + strings.Join(entries, ""))
		}
	}
	return "aliases:\n" + b.String()
}

// declaresTools reports whether agents of dialect d declare their tools
// (bluelabel's do not: its reference agent sends no introduction).
func declaresTools(d string) bool {
	a, err := refagent.New(refagent.Options{Dialect: d})
	return err == nil && len(a.Introduction()) > 0
}

// requester and responder ids of a dialect, in the registry's spelling.
func requester(d string) string { return refagent.SpellID(d, d+"-req") }

func responder(d string) string { return refagent.SpellID(d, d+"-agent") }

// harness is a running server on a loopback port.
type harness struct {
	t    testing.TB
	srv  *server.Server
	addr string
	logs *syncbuf.Buffer
	run  *servertest.Server
	// tls is the clients' side of a listener that speaks TLS (startTLS);
	// nil for plain HTTP.
	tls *tls.Config
}

// start runs a server for cfg (nil: the default config) with the alias
// mapping file, logging at cfg's level into a buffer the test can search.
func start(t testing.TB, cfg *config.Config) *harness {
	t.Helper()
	return startWith(t, cfg, nil)
}

// startWith is start, with prepare called on the server before it runs,
// and opts given to server.New.
func startWith(t testing.TB, cfg *config.Config, prepare func(*server.Server), opts ...server.Option) *harness {
	t.Helper()
	if cfg == nil {
		cfg = config.Default()
	}
	cfg.Listen = "127.0.0.1:0"
	dir := t.TempDir()
	am := filepath.Join(dir, "aliases.yaml")
	if err := os.WriteFile(am, []byte(aliases()), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	run := servertest.Start(t, cfg, servertest.Options{Mappings: []string{am}, Server: opts, Listening: prepare,
		Logger: slog.New(logjson.New(logs, &slog.HandlerOptions{Level: cfg.LogLevel}))})
	return &harness{t: t, srv: run.Server, addr: run.Addr, logs: logs, run: run}
}

// stop shuts the server down and waits for it; later calls do nothing.
func (h *harness) stop() { h.run.Stop() }

func (h *harness) wsURL() string {
	if h.tls != nil {
		return "wss://" + h.addr
	}
	return "ws://" + h.addr
}

func (h *harness) httpURL() string {
	if h.tls != nil {
		return "https://" + h.addr
	}
	return "http://" + h.addr
}

// httpClient is a client of the harness's listener: Go's default, or one
// trusting the test's CA (and presenting its certificate) with TLS.
func (h *harness) httpClient() *http.Client {
	if h.tls == nil {
		return http.DefaultClient
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: h.tls}}
}

// agentUp waits until the bridge lists id as READY with at least tools
// capabilities.
func (h *harness) agentUp(id string, tools int) bridge.AgentInfo {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for _, a := range h.srv.Bridge().Agents("") {
			if a.ID == id && a.Status == bridge.StatusReady && len(a.Capabilities) >= tools {
				return a
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("agent %s never came up: %+v", id, h.srv.Bridge().Agents(""))
	return bridge.AgentInfo{}
}

// runAgent connects a reference agent of dialect d and waits until the
// bridge knows its tools (when its dialect declares them).
func (h *harness) runAgent(d, id string, opts ...func(*refagent.Options)) *refagent.Agent {
	h.t.Helper()
	o := refagent.Options{ID: id, Dialect: d, TLS: h.tls}
	for _, f := range opts {
		f(&o)
	}
	a, err := refagent.New(o)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Connect(ctx, h.wsURL(), "")
	}()
	h.t.Cleanup(func() { cancel(); <-done })
	tools := 0
	if declaresTools(d) {
		tools = 1
	}
	h.agentUp(id, tools)
	return a
}

// client is a raw WebSocket connection of one dialect: the test writes and
// reads the dialect's JSON itself.
type client struct {
	t     testing.TB
	c     *websocket.Conn
	codec dialects.Codec
	id    string
}

// dial connects a raw client of dialect d as the agent id ("" leaves it to
// the first message).
func (h *harness) dial(d, id string) *client {
	h.t.Helper()
	u := h.wsURL() + "/ws/" + d
	if id != "" {
		u += "?agent=" + id
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: h.httpClient()})
	if err != nil {
		h.t.Fatal(err)
	}
	c.SetReadLimit(-1)
	h.t.Cleanup(func() { c.CloseNow() })
	codec, _ := builtin.Default().Lookup(d)
	if id != "" {
		h.agentUp(id, 0)
	}
	return &client{t: h.t, c: c, codec: codec, id: id}
}

func (c *client) send(frame []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageText, frame); err != nil {
		c.t.Fatal(err)
	}
}

// recv returns the next message, failing the test after wait.
func (c *client) recv() []byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, b, err := c.c.Read(ctx)
	if err != nil {
		c.t.Fatalf("%s: no message: %v", c.id, err)
	}
	return b
}

// encode writes env in the client's dialect.
func (c *client) encode(env *canonical.Envelope) []byte {
	c.t.Helper()
	out, err := c.codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		c.t.Fatal(err)
	}
	if p := c.codec.Validate(out); len(p) > 0 {
		c.t.Fatalf("test request of %s is invalid: %v\n%s", c.codec.Name(), p, out)
	}
	return out
}

// decode reads a message of the client's dialect, checking it is valid.
func (c *client) decode(frame []byte) *canonical.Envelope {
	c.t.Helper()
	if p := c.codec.Validate(frame); len(p) > 0 {
		c.t.Errorf("%s received an invalid message: %v\n%s", c.codec.Name(), p, frame)
	}
	env, err := c.codec.Decode(frame)
	if err != nil {
		c.t.Fatalf("%s received an undecodable message: %v\n%s", c.codec.Name(), err, frame)
	}
	return env
}

// request returns a request of dialect d from its requester to the agent
// to, for the operation op, with a correlation id the test can follow: a
// task id for bluelabel, a message id for the others.
func request(d, to, op, args, id string) *canonical.Envelope {
	env := &canonical.Envelope{
		Act:       canonical.ActRequest,
		Sender:    canonical.Party{ID: spellFor(d, requester(d))},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: spellFor(d, to)},
		Operation: canonical.Operation{Name: op},
		Arguments: canonical.JSON(args),
	}
	if d == "bluelabel" {
		env.TaskID = strings.ToUpper(id)
	} else {
		env.ID = id
	}
	return env
}

// spellFor writes an id as the alias file has dialect d write it.
func spellFor(d, id string) string {
	if d == "bluelabel" {
		return strings.ToUpper(id)
	}
	return id
}
