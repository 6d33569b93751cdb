package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
	"github.com/mcp-bridge/mcp-bridge/server"
	"github.com/tidwall/gjson"
)

// reloadable is a config file a test rewrites while the server runs on
// it, with the file watch on and a short debounce.
type reloadable struct {
	t    *testing.T
	dir  string
	path string
}

func newReloadable(t *testing.T) *reloadable {
	dir := t.TempDir()
	return &reloadable{t: t, dir: dir, path: filepath.Join(dir, "serve.yaml")}
}

// write replaces the config file's text, as editors do: a new file renamed
// over the old one.
func (r *reloadable) write(text string) {
	r.t.Helper()
	text = "reload: {watch: true, debounce: 50ms}\n" + text
	tmp := r.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Rename(tmp, r.path); err != nil {
		r.t.Fatal(err)
	}
}

// load reads the file as serve does, on the test's loopback port.
func (r *reloadable) load() (*config.Config, error) {
	cfg, err := config.LoadAll(r.path, nil)
	if err != nil {
		return nil, err
	}
	cfg.Listen = "127.0.0.1:0"
	return cfg, nil
}

// start runs a server on the file, which reloads it when it changes.
func (r *reloadable) start(text string, prepare func(*config.Config)) *harness {
	r.t.Helper()
	r.write(text)
	cfg, err := r.load()
	if err != nil {
		r.t.Fatal(err)
	}
	if prepare != nil {
		prepare(cfg)
	}
	return startWith(r.t, cfg, func(s *server.Server) { s.SetLoader(r.load) })
}

// reloaded waits until the server counted n reloads of result.
func reloaded(t *testing.T, h *harness, result string, n float64) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for metricValue(t, h, `bridge_config_reloads_total{result="`+result+`"}`) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %s reload #%v; logs:\n%s", result, n, grep(h.logs.String(), "reload"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReloadUnderLoad: while requests flow between two connected agents,
// the config file changes (an agent added, the mappings, the limits, a
// token) and is reloaded from the watch: no request goes unanswered, no
// connection drops, and the changes apply on the connections already
// open. A broken file is refused with every error at its file:line, and
// the old config stays. An agent removed from the file is disconnected
// with a close that says why.
func TestReloadUnderLoad(t *testing.T) {
	r := newReloadable(t)
	mapping := filepath.Join(r.dir, "site.yaml")
	if err := os.WriteFile(mapping, []byte("aliases:\n  swarm:\n    collab-req: COLLAB-REQ\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := "mappings: [site.yaml]\nagents:\n  - {id: swarm-agent, dialect: swarm}\n  - {id: leaving, dialect: fuse}\n"
	h := r.start(base, nil)
	h.runAgent("swarm", "swarm-agent")
	sink := h.dial("swarm", "sink")
	leaving := h.dial("fuse", "leaving")
	req := h.dial("collab", "collab-req")
	connections := metricValue(t, h, "bridge_connections")

	// The load: requests one after another until stopped, each answered.
	var sent, answered atomic.Int64
	var failures []string
	var mu sync.Mutex
	stop := make(chan struct{})
	loadDone := make(chan struct{})
	loader := h.dial("collab", "loader")
	go func() {
		defer close(loadDone)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			m := request("collab", "swarm-agent", "add", `{"a":1,"b":2}`, fmt.Sprintf("load-%d", i))
			m.Sender.ID = "loader"
			loader.send(loader.encode(m))
			sent.Add(1)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			_, frame, err := loader.c.Read(ctx)
			cancel()
			if err != nil {
				mu.Lock()
				failures = append(failures, err.Error())
				mu.Unlock()
				return
			}
			if env := loader.decode(frame); env.Error != nil {
				mu.Lock()
				failures = append(failures, env.Error.Error())
				mu.Unlock()
				return
			}
			answered.Add(1)
		}
	}()

	// The alias as the first file says.
	req.send(req.encode(request("collab", "sink", "echo", `{}`, "alias-before")))
	if got := sink.decode(sink.recv()); got.Sender.ID != "COLLAB-REQ" {
		t.Fatalf("before the reload the sink sees %q", got.Sender.ID)
	}
	// Change the mapping file and the config: a new agent, a rate for
	// all, a token for swarm-agent.
	if err := os.WriteFile(mapping, []byte("aliases:\n  swarm:\n    collab-req: COLLAB-REQUESTER\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.write("mappings: [site.yaml]\nlimits: {rate: 100000}\nagents:\n  - {id: swarm-agent, dialect: swarm, token: s3cret}\n  - {id: leaving, dialect: fuse}\n  - {id: newbie, dialect: elizaacl, tools: [debug_code]}\n")
	reloaded(t, h, "ok", 1)
	req.send(req.encode(request("collab", "sink", "echo", `{}`, "alias-after")))
	if got := sink.decode(sink.recv()); got.Sender.ID != "COLLAB-REQUESTER" {
		t.Errorf("after the reload the sink, on the same connection, sees %q", got.Sender.ID)
	}
	if info, ok := h.srv.Bridge().Agent("newbie"); !ok || len(info.Capabilities) != 1 {
		t.Errorf("the agent added is not listed with its tool: %+v", info)
	}
	// A broken file: every error at its file:line; nothing changes.
	r.write("limits: {rate: -1}\nagents:\n  - {id: swarm-agent, dialect: swarn}\n")
	reloaded(t, h, "failed", 1)
	logs := h.logs.String()
	for _, want := range []string{r.path + ":2: limits.rate", r.path + ":4: agents[0].dialect: unknown dialect \\\"swarn\\\""} {
		if !strings.Contains(logs, want) {
			t.Errorf("the refused reload does not say %s:\n%s", want, grep(logs, "reload"))
		}
	}
	if _, ok := h.srv.Bridge().Agent("newbie"); !ok {
		t.Error("the broken file took effect: newbie is gone")
	}
	// leaving is removed: its connection is closed with a reason.
	r.write("mappings: [site.yaml]\nagents:\n  - {id: swarm-agent, dialect: swarm, token: s3cret}\n  - {id: newbie, dialect: elizaacl, tools: [debug_code]}\n")
	reloaded(t, h, "ok", 2)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, _, err := leaving.c.Read(ctx); !strings.Contains(err.Error(), "removed from the bridge's config") {
		t.Errorf("the removed agent's connection: %v", err)
	}
	if _, ok := h.srv.Bridge().Agent("leaving"); ok {
		t.Error("the removed agent is still listed")
	}

	close(stop)
	<-loadDone
	mu.Lock()
	defer mu.Unlock()
	if len(failures) > 0 || answered.Load() != sent.Load() || sent.Load() < 10 {
		t.Errorf("under load: %d sent, %d answered, failures %v", sent.Load(), answered.Load(), failures)
	}
	// The connections opened before the reloads are all there (the
	// removed agent's aside).
	if got := metricValue(t, h, "bridge_connections"); got != connections {
		t.Errorf("connections: %v before the reloads, %v after (one removed, the load's added)", connections, got)
	}
}

// TestReloadCertificates: new certificate files are served to new
// handshakes, and the connections made before stay.
func TestReloadCertificates(t *testing.T) {
	p := newPKI(t)
	r := newReloadable(t)
	text := fmt.Sprintf("tls: {cert: %s, key: %s}\n", p.cert, p.key)
	h := r.start(text, nil)
	h.tls = p.client(t, "")
	c := h.dial("swarm", requester("swarm"))
	served := func() string {
		conn, err := tls.Dial("tcp", h.addr, h.tls)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	if cn := served(); cn != "mcp-bridge" {
		t.Fatalf("the first certificate is %q", cn)
	}
	renewed := p.ca.Server(t, "mcp-bridge-renewed")
	testpki.Write(t, p.dir, "cert.pem", renewed.CertPEM)
	testpki.Write(t, p.dir, "key.pem", renewed.KeyPEM)
	reloaded(t, h, "ok", 1)
	if cn := served(); cn != "mcp-bridge-renewed" {
		t.Errorf("after the files changed the listener serves %q", cn)
	}
	// The connection made before still carries messages both ways.
	c.send(c.encode(request("swarm", "nobody", "echo", `{}`, "still-there")))
	if env := c.decode(c.recv()); env.Error == nil || !strings.Contains(env.Error.Message, "nobody") {
		t.Errorf("the connection made before the reload: %+v", env)
	}
}

// TestSIGHUP: `mcp-bridge serve` reloads its config at SIGHUP; a config
// with errors is refused with each error at its file:line, and the bridge
// runs on.
func TestSIGHUP(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "serve.yaml")
	write := func(text string) {
		if err := os.WriteFile(cfgFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("reload: {watch: false}\nagents:\n  - {id: first, dialect: swarm}\n")
	cmd := exec.Command(binary, "serve", "--config", cfgFile, "--listen", "127.0.0.1:0")
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(wait)
		for !strings.Contains(out.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("the bridge never said %q:\n%s", what, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("listening on")
	write("reload: {watch: false}\nagents:\n  - {id: first, dialect: swarm}\n  - {id: second, dialect: fuse}\n")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(`"msg":"config reloaded"`)
	waitFor("added second")
	write("agents:\n  - {id: first, dialect: swarn}\n")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(cfgFile + `:2: agents[0].dialect: unknown dialect "swarn"`)
	if cmd.ProcessState != nil {
		t.Fatal("the bridge stopped at a broken config")
	}
}

// TestReloadPlayground: the console's playground translates with the rules
// in force: a mapping file changed and reloaded changes its translations.
func TestReloadPlayground(t *testing.T) {
	r := newReloadable(t)
	mapping := filepath.Join(r.dir, "site.yaml")
	alias := func(id string) {
		if err := os.WriteFile(mapping, []byte("aliases:\n  swarm:\n    jules: "+id+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	alias("JULES-ONE")
	h := r.start("mappings: [site.yaml]\n", nil)
	receiver := func() string {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"message": string(collabRequest(1, "jules")), "from": "collab"})
		status, out := h.postBearer(t, "/ui/api/translate", string(body), "")
		if status != http.StatusOK {
			t.Fatalf("playground: %d %s", status, out)
		}
		for _, tr := range gjson.GetBytes(out, "translations").Array() {
			if tr.Get("to").Str == "swarm" {
				return gjson.Get(tr.Get("message").Str, "receiver_id").Str
			}
		}
		t.Fatalf("no swarm translation: %s", out)
		return ""
	}
	if got := receiver(); got != "JULES-ONE" {
		t.Fatalf("before the reload: receiver_id %q", got)
	}
	alias("JULES-TWO")
	if err := h.srv.ReloadNow("test"); err != nil {
		t.Fatal(err)
	}
	if got := receiver(); got != "JULES-TWO" {
		t.Errorf("after the reload: receiver_id %q, want the new alias", got)
	}
}
