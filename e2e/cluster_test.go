package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/cluster"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// clusterBeat is the instances' heartbeat in these tests: an instance that
// misses three is gone.
const clusterBeat = 100 * time.Millisecond

// startNATS runs a NATS server for the test on a free loopback port.
func startNATS(t *testing.T) *cluster.Embedded {
	t.Helper()
	e, err := cluster.StartEmbedded("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

// startInstances runs one bridge per name, joined into one cluster on the
// NATS at url.
func startInstances(t *testing.T, url string, names ...string) map[string]*harness {
	t.Helper()
	out := map[string]*harness{}
	for _, name := range names {
		cfg := config.Default()
		cfg.Cluster = config.Cluster{NATS: url, Name: name, Heartbeat: clusterBeat}
		out[name] = start(t, cfg)
	}
	return out
}

// awaitAgent waits until h lists the agent id, held by instance, as status.
func (h *harness) awaitAgent(id, instance string, status bridge.Status) bridge.AgentInfo {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for _, a := range h.srv.Bridge().Agents("") {
			if a.ID == id && a.Instance == instance && a.Status == status {
				return a
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("%s never listed %s on %s as %s: %+v", h.srv.Bridge().Instance(), id, instance, status, h.srv.Bridge().Agents(""))
	return bridge.AgentInfo{}
}

// TestClusterPairs: for every ordered pair of dialects, a requester on
// instance a and a responder on instance b or c (in turn): the request
// crosses instances, is translated, and its answer comes back correlated in
// the requester's dialect.
func TestClusterPairs(t *testing.T) {
	n := startNATS(t)
	hs := startInstances(t, n.URL(), "a", "b", "c")
	a := hs["a"]
	for i, d := range dialectNames {
		holder := []string{"b", "c"}[i%2]
		hs[holder].runAgent(d, responder(d))
		a.awaitAgent(responder(d), holder, bridge.StatusReady)
	}
	for _, from := range dialectNames {
		c := a.dial(from, requester(from))
		for _, to := range dialectNames {
			t.Run(from+"->"+to, func(t *testing.T) {
				c.t = t
				id := fmt.Sprintf("x-%s-%s", from, to)
				c.send(c.encode(request(from, responder(to), "add", `{"a":2,"b":40}`, id)))
				reply := answerOf(c)
				if got, want := correlationOf(from, reply), spellFor(from, id); got != want {
					t.Errorf("answers %q, want %q", got, want)
				}
				if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), "42") {
					t.Errorf("%s %s %+v", reply.Act, reply.Result, reply.Error)
				}
			})
		}
	}
}

// TestClusterEmbedded: one bridge runs the NATS server itself
// (cluster.embedded) and another joins it at its URL; their agents reach
// each other. A bridge with no cluster config starts nothing of it.
func TestClusterEmbedded(t *testing.T) {
	alone := start(t, config.Default())
	if alone.srv.Cluster() != nil || alone.srv.EmbeddedNATS() != "" {
		t.Errorf("a bridge with no cluster config joined one: %v, NATS %q", alone.srv.Cluster(), alone.srv.EmbeddedNATS())
	}
	cfg := config.Default()
	cfg.Cluster = config.Cluster{Embedded: true, Listen: "127.0.0.1:0", Name: "a", Heartbeat: clusterBeat}
	a := start(t, cfg)
	url := a.srv.EmbeddedNATS()
	if !strings.HasPrefix(url, "nats://127.0.0.1:") {
		t.Fatalf("the embedded NATS is at %q", url)
	}
	b := startInstances(t, url, "b")["b"]
	a.runAgent("swarm", "swarm-agent")
	b.awaitAgent("swarm-agent", "a", bridge.StatusReady)
	req := b.dial("fuse", "fuse-req")
	req.send(req.encode(request("fuse", "swarm-agent", "add", `{"a":2,"b":3}`, "emb-1")))
	if r := answerOf(req); r.Act != canonical.ActResult || !strings.Contains(string(r.Result), "5") {
		t.Errorf("across the embedded NATS: %s %s %+v", r.Act, r.Result, r.Error)
	}
}

// TestClusterDirectory: every instance lists every agent with the instance
// that holds it, with its tools as declared; capability routing, topics and broadcast cross instances,
// each subscriber getting an event once; the MCP face of one instance lists
// and calls the tools of agents the others hold.
func TestClusterDirectory(t *testing.T) {
	n := startNATS(t)
	hs := startInstances(t, n.URL(), "a", "b", "c")
	hs["b"].runAgent("swarm", "swarm-agent", func(o *refagent.Options) { o.Tools = []string{"debug_code", "add"} })
	hs["c"].runAgent("fuse", "fuse-agent", func(o *refagent.Options) { o.Tools = []string{"add"} })
	for _, h := range hs {
		h.awaitAgent("swarm-agent", "b", bridge.StatusReady)
		h.awaitAgent("fuse-agent", "c", bridge.StatusReady)
	}
	resp, err := http.Get(hs["a"].httpURL() + "/v1/agents")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"instance": "c"`) || !strings.Contains(string(body), `"id": "fuse-agent"`) {
		t.Errorf("/v1/agents on a:\n%s", body)
	}
	// A tool's version, which fuse declares, crosses instances. A remote
	// agent's tools may reach the directory after the news it connected.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		fa := listed(t, hs["a"], "fuse-agent")
		if fa != nil && len(fa.Tools) == 1 && fa.Tools[0].Version == "1.0" {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("a lists fuse-agent as %+v, want its one tool at version 1.0", fa)
			break
		}
	}

	// By capability: a request naming no receiver, from a, served on b.
	req := hs["a"].dial("collab", "collab-req")
	env := request("collab", "", "debug_code", `{"code_to_debug":"x","programming_language":"python"}`, "cap-1")
	env.Receiver = canonical.Address{}
	req.send(req.encode(env))
	if r := answerOf(req); r.Act != canonical.ActResult || r.Sender.ID != "swarm-agent" {
		t.Errorf("by capability: %s from %s", r.Act, r.Sender.ID)
	}

	// Topics and broadcast: subscribers on b and c, the publisher on a.
	subB := hs["b"].dial("collab", "sub-b")
	subC := hs["c"].dial("collab", "sub-c")
	subB.subscribeAs("news")
	subC.subscribeAs("news")
	hs["a"].awaitTopic("sub-c", "news")
	hs["a"].awaitTopic("sub-b", "news")
	pub := hs["a"].dial("swarm", "pub-a")
	pub.send(pub.encode(&canonical.Envelope{Act: canonical.ActEvent, ID: "ev-1", Sender: canonical.Party{ID: "pub-a"},
		Receiver: canonical.Address{Kind: canonical.AddressTopic, ID: "news"}, Operation: canonical.Operation{Name: "headline"},
		Arguments: `{"text":"across instances"}`}))
	for _, sub := range []*client{subB, subC} {
		got := sub.decode(sub.recv())
		if got.Act != canonical.ActEvent || !strings.Contains(string(got.Arguments), "across instances") {
			t.Errorf("%s got %s %s", sub.id, got.Act, got.Arguments)
		}
		sub.expectNothing(200 * time.Millisecond)
	}

	// The MCP face of a: the tools of b's and c's agents.
	m := hs["a"].mcpConnect(t, "2025-11-25", nil, nil)
	tools := m.tools()
	if tools["swarm-agent__add"] == nil || tools["fuse-agent__add"] == nil {
		t.Fatalf("a's MCP face lists %v", keys(tools))
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if res := m.call(ctx, "fuse-agent__add", map[string]any{"a": 1, "b": 2}, false); res.IsError || !strings.Contains(text(res), `"sum":3`) {
		t.Errorf("fuse-agent__add through a: %s", text(res))
	}
	// list_changed on a when an agent comes on b.
	drain(m.changed)
	hs["b"].runAgent("elizaacl", "late-agent")
	m.awaitChanged("an agent came on another instance")
}

// subscribeAs subscribes the collab client, as its own id, to topic.
func (c *client) subscribeAs(topic string) {
	c.t.Helper()
	req := request("collab", "mcp-bridge", "subscribe", `{"topic":"`+topic+`"}`, "sub-"+c.id)
	req.Sender.ID = c.id
	c.send(c.encode(req))
	if reply := c.decode(c.recv()); reply.Act != canonical.ActResult {
		c.t.Fatalf("%s subscribe answered %s %+v", c.id, reply.Act, reply.Error)
	}
}

// awaitTopic waits until h lists the agent id as subscribed to topic.
func (h *harness) awaitTopic(id, topic string) {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for _, a := range h.srv.Bridge().Agents("") {
			for _, tp := range a.Topics {
				if a.ID == id && tp == topic {
					return
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("%s never listed %s on %s", h.srv.Bridge().Instance(), id, topic)
}

// expectNothing fails the test if the client gets a message within d.
func (c *client) expectNothing(d time.Duration) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if _, b, err := c.c.Read(ctx); err == nil {
		c.t.Errorf("%s got an unexpected message: %s", c.id, b)
	}
}

// TestClusterInstanceGone: an instance that stops takes its agents with it:
// UNAVAILABLE on the others, a request in flight to one answered
// unavailable; the agent reconnects to another instance and is reachable
// again from everywhere.
func TestClusterInstanceGone(t *testing.T) {
	n := startNATS(t)
	hs := startInstances(t, n.URL(), "a", "b", "c")
	stop := hs["b"].runStoppable("swarm", "mover")
	hs["a"].awaitAgent("mover", "b", bridge.StatusReady)
	req := hs["a"].dial("collab", "collab-req")
	req.send(req.encode(request("collab", "mover", "sleep", `{"ms":60000}`, "slow-1")))
	hs["a"].awaitPending(1)
	// b goes away without its agents' answers.
	hs["b"].stop()
	stop()
	reply := answerOf(req)
	if reply.Error == nil || reply.Error.Code != canonical.ErrUnavailable {
		t.Fatalf("the request in flight: %s %+v", reply.Act, reply.Error)
	}
	hs["a"].awaitAgent("mover", "b", bridge.StatusUnavailable)
	// It reconnects to c.
	hs["c"].runAgent("swarm", "mover")
	hs["a"].awaitAgent("mover", "c", bridge.StatusReady)
	req.send(req.encode(request("collab", "mover", "add", `{"a":1,"b":1}`, "back-1")))
	if r := answerOf(req); r.Act != canonical.ActResult || !strings.Contains(string(r.Result), "2") {
		t.Errorf("after the move: %s %s", r.Act, r.Result)
	}
}

// TestClusterNewerWins: an agent id connected on two instances: the newer
// connection receives its messages, as on one bridge.
func TestClusterNewerWins(t *testing.T) {
	n := startNATS(t)
	hs := startInstances(t, n.URL(), "a", "b", "c")
	old := hs["a"].dial("swarm", "twin")
	hs["c"].awaitAgent("twin", "a", bridge.StatusReady)
	time.Sleep(10 * time.Millisecond) // a connection that is newer by the clock
	newer := hs["b"].dial("swarm", "twin")
	for _, h := range hs {
		h.awaitAgent("twin", "b", bridge.StatusReady)
	}
	req := hs["c"].dial("swarm", "swarm-req")
	req.send(req.encode(&canonical.Envelope{Act: canonical.ActEvent, ID: "to-twin", Sender: canonical.Party{ID: "swarm-req"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "twin"}, Operation: canonical.Operation{Name: "ping"}, Arguments: `{}`}))
	if got := newer.decode(newer.recv()); got.ID != "to-twin" {
		t.Errorf("the newer connection got %+v", got)
	}
	old.expectNothing(200 * time.Millisecond)
}

// TestClusterNATSOutage: while NATS is down each instance serves its own
// agents and says so; when it is back they rejoin.
func TestClusterNATSOutage(t *testing.T) {
	n, err := cluster.StartEmbedded("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := n.URL()
	hs := startInstances(t, url, "a", "b")
	hs["a"].runAgent("swarm", "local-a")
	hs["b"].runAgent("swarm", "local-b")
	hs["a"].awaitAgent("local-b", "b", bridge.StatusReady)
	n.Shutdown()
	hs["a"].awaitAgent("local-b", "b", bridge.StatusUnavailable)
	if body := get(t, hs["a"].httpURL()+"/readyz"); !strings.Contains(body, "cluster degraded") {
		t.Errorf("/readyz while NATS is down: %q", body)
	}
	if v := hs["a"].metric("bridge_cluster_connected"); v != 0 {
		t.Errorf("bridge_cluster_connected %v while NATS is down", v)
	}
	// Local traffic goes on.
	req := hs["a"].dial("collab", "collab-req")
	req.send(req.encode(request("collab", "local-a", "add", `{"a":1,"b":2}`, "local-1")))
	if r := answerOf(req); r.Act != canonical.ActResult {
		t.Errorf("local request during the outage: %s %+v", r.Act, r.Error)
	}
	// A remote one is refused at once, not lost.
	req.send(req.encode(request("collab", "local-b", "add", `{"a":1,"b":2}`, "remote-1")))
	if r := answerOf(req); r.Error == nil || r.Error.Code != canonical.ErrUnavailable {
		t.Errorf("remote request during the outage: %s %+v", r.Act, r.Error)
	}
	// NATS comes back on the same address.
	host := strings.TrimPrefix(url, "nats://")
	n2, err := cluster.StartEmbedded(host)
	if err != nil {
		t.Skipf("cannot restart NATS on %s: %v", host, err)
	}
	t.Cleanup(n2.Shutdown)
	hs["a"].awaitAgent("local-b", "b", bridge.StatusReady)
	if body := get(t, hs["a"].httpURL()+"/readyz"); strings.TrimSpace(body) != "ready" {
		t.Errorf("/readyz after NATS is back: %q", body)
	}
	req.send(req.encode(request("collab", "local-b", "add", `{"a":1,"b":2}`, "remote-2")))
	if r := answerOf(req); r.Act != canonical.ActResult {
		t.Errorf("remote request after the outage: %s %+v", r.Act, r.Error)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// freePort returns a loopback address with a port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestClusterKilledMidLoad: an instance killed (SIGKILL, no goodbye) while
// requests to its agent are in flight: every request is answered, a result
// or an error, and none is silently lost; the agent is UNAVAILABLE on the
// others within three heartbeats.
func TestClusterKilledMidLoad(t *testing.T) {
	n := startNATS(t)
	hs := startInstances(t, n.URL(), "a")
	addr := freePort(t)
	cfgFile := filepath.Join(t.TempDir(), "b.yaml")
	cfg := fmt.Sprintf("listen: %s\nheartbeat: 0s\ncluster: {nats: '%s', name: b, heartbeat: 100ms}\n", addr, n.URL())
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	b := exec.Command(binary, "serve", "--config", cfgFile)
	var bErr bytes.Buffer
	b.Stdout, b.Stderr = io.Discard, &bErr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("instance b:\n%s", bErr.String())
		}
	})
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Process.Kill()
	// The agent on b, connected once b listens.
	a, err := refagent.New(refagent.Options{ID: "worker", Dialect: "swarm"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			_ = a.Connect(ctx, "ws://"+addr, "")
			time.Sleep(20 * time.Millisecond)
		}
	}()
	hs["a"].awaitAgent("worker", "b", bridge.StatusReady)

	req := hs["a"].dial("collab", "collab-req")
	const total = 200
	answered := make(chan *canonical.Envelope, total)
	go func() {
		for range total {
			answered <- req.decode(req.recv())
		}
	}()
	send := func(from, to int) {
		for i := from; i < to; i++ {
			req.send(req.encode(request("collab", "worker", "sleep", `{"ms":5}`, fmt.Sprintf("load-%d", i))))
		}
	}
	// Half the load, some of it answered, then b dies with the rest in
	// flight, and the other half follows.
	send(0, total/2)
	var early []*canonical.Envelope
	for range 10 {
		early = append(early, <-answered)
	}
	if err := b.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	send(total/2, total)
	results, failures := 0, 0
	for i := range total {
		var env *canonical.Envelope
		if i < len(early) {
			env = early[i]
		} else {
			select {
			case env = <-answered:
			case <-time.After(2 * wait):
				t.Fatalf("only %d results and %d failures of %d requests came back", results, failures, total)
			}
		}
		{
			switch {
			case env.Act == canonical.ActResult:
				results++
			case env.Error != nil && (env.Error.Code == canonical.ErrUnavailable || env.Error.Code == canonical.ErrTimeout):
				failures++
			default:
				t.Errorf("an answer neither a result nor unavailable: %s %+v", env.Act, env.Error)
			}
		}
	}
	if results == 0 || failures == 0 {
		t.Errorf("%d results, %d failures: want both (the instance died mid-load)", results, failures)
	}
	hs["a"].awaitAgent("worker", "b", bridge.StatusUnavailable)
}
