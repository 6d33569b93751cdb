package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/server"
)

//go:embed demo.yaml
var demoMappings []byte

// runDemo starts a bridge and one reference agent per dialect on loopback
// and plays six scenes, printing every message as its sender sent it and
// as its receiver got it.
func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("demo", "[--log]", stderr)
	logs := fs.Bool("log", false, "also print the bridge's log lines (JSON) on stderr")
	if pos, help, err := parseInterspersed(fs, args); err != nil || len(pos) > 0 {
		if help {
			return exitOK
		}
		return exitUsage
	}
	logOut := io.Discard
	if *logs {
		logOut = stderr
	}
	if err := playDemo(stdout, slog.New(logjson.New(logOut, nil))); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge demo: %v\n", err)
		return exitInvalid
	}
	return exitOK
}

// demo is a running bridge with the demo's cast.
type demo struct {
	out    io.Writer
	url    string
	mu     sync.Mutex // serializes printing
	seen   chan delivery
	agents sync.WaitGroup
}

// delivery is a frame an agent received.
type delivery struct {
	who   string
	frame []byte
}

func playDemo(out io.Writer, log *slog.Logger) error {
	dir, err := os.MkdirTemp("", "mcp-bridge-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	mapFile := filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(mapFile, demoMappings, 0o600); err != nil {
		return err
	}
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	srv, err := server.New(cfg, []string{mapFile}, log)
	if err != nil {
		return err
	}
	ln, err := srv.Listen()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	served := make(chan error, 1)
	srvCtx, stopServer := context.WithCancel(ctx)
	go func() { served <- srv.Run(srvCtx, ln) }()
	defer func() { stopServer(); <-served }()

	d := &demo{out: out, url: "ws://" + ln.Addr().String(), seen: make(chan delivery, 256)}
	// The agents stop before the bridge does (defers run last first), so
	// nothing prints after the demo returns.
	agentsCtx, stopAgents := context.WithCancel(ctx)
	defer func() { stopAgents(); d.agents.Wait() }()
	fmt.Fprintf(out, "bridge on %s\n", ln.Addr())
	cast := []refagent.Options{
		{ID: "Eddy", Dialect: "elizaacl", Tools: []string{"echo"}},
		{ID: "Jules", Dialect: "swarm", Tools: []string{"debug_code"}},
		{ID: "Fusey", Dialect: "fuse", Tools: []string{"echo"}},
		{ID: "Collie", Dialect: "collab", Tools: []string{"sentiment-analysis"}},
	}
	agents := map[string]*refagent.Agent{}
	for _, o := range cast {
		a, err := d.start(agentsCtx, o)
		if err != nil {
			return err
		}
		agents[o.ID] = a
	}
	if err := waitAgents(ctx, srv, "Eddy", "Jules", "Fusey", "Collie"); err != nil {
		return err
	}

	d.scene("1. Eddy (elizaacl) asks Jules (swarm) to debug code (specs/elizaacl.md section 7)")
	reply, err := agents["Eddy"].Call(ctx, "Jules", canonical.Operation{Name: "debug_code"},
		`{"code_to_debug":"def get_item(items, index):\n    return items[index]\n\nprint(get_item([1, 2, 3], 3))","error_message":"IndexError: list index out of range","language":"python"}`)
	if err := outcome(reply, err); err != nil {
		return err
	}
	if err := d.debugAnswer(reply.Result); err != nil {
		return err
	}

	d.scene("2. Fusey (fuse) asks for text-analysis/sentiment-analysis; Collie (collab) answers")
	reply, err = agents["Fusey"].Call(ctx, "Collie", canonical.Operation{Capability: "text-analysis", Name: "sentiment-analysis"},
		`{"text":"The bridge works and I love it","language":"en"}`)
	if err := outcome(reply, err); err != nil {
		return err
	}

	d.scene("3. A bluelabel needs_input round: BLUE-LEAD assigns a deploy to DEPLOYER, which asks for a key first")
	if err := d.needsInput(ctx, srv); err != nil {
		return err
	}
	// They leave before the broadcast, so that its receivers are the four
	// reference agents.
	if err := waitGone(ctx, srv, "BLUE-LEAD", "DEPLOYER"); err != nil {
		return err
	}

	d.scene("4. Jules (swarm) broadcasts a notification (receiver_id null); agents whose dialect has events get it")
	if err := agents["Jules"].Send(ctx, &canonical.Envelope{Act: canonical.ActEvent, Sender: canonical.Party{ID: "Jules"},
		Receiver: canonical.Address{Kind: canonical.AddressBroadcast}, Operation: canonical.Operation{Name: "agent_status_changed"},
		Arguments: `{"status":"ready","reason":"debugging done"}`}); err != nil {
		return err
	}
	if err := d.await(ctx, "agent_status_changed", "Fusey", "Collie"); err != nil {
		return err
	}
	fmt.Fprintln(out, "\n"+broadcastNote)

	d.scene("5. An MCP client calls Jules's (swarm) debug_code tool through the bridge's MCP face, /mcp")
	if err := d.mcpScene(ctx, "http://"+ln.Addr().String()+"/mcp", "Jules__debug_code",
		`{"code_to_debug":"print([1, 2, 3][3])","error_message":"IndexError: list index out of range","language":"python"}`); err != nil {
		return err
	}

	d.scene("6. An A2A client asks Jules (swarm) to debug code through the bridge's A2A face, /a2a/Jules")
	return d.a2aScene(ctx, "http://"+ln.Addr().String()+"/a2a/Jules/.well-known/agent-card.json", "debug_code",
		`{"code_to_debug":"print([1, 2, 3][3])","error_message":"IndexError: list index out of range","language":"python"}`)
}

// broadcastNote says what became of the broadcast of scene 4.
const broadcastNote = `(The bridge writes a broadcast in each receiver's dialect, for every connected agent but
the sender: Collie got it as a collab BROADCAST, Fusey as a fuse event. Eddy got nothing:
elizaacl has no event act, so the bridge skipped Eddy with a log line ("event not delivered");
it skips bluelabel agents the same way.)`

// start connects a reference agent that prints what it sends and gets.
func (d *demo) start(ctx context.Context, o refagent.Options) (*refagent.Agent, error) {
	o.Observer = func(dir string, frame []byte) { d.print(o.ID, o.Dialect, dir, frame) }
	a, err := refagent.New(o)
	if err != nil {
		return nil, err
	}
	d.agents.Go(func() { _ = a.Connect(ctx, d.url, "") })
	return a, nil
}

func (d *demo) scene(title string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.out, "\n== %s\n", title)
}

// print shows one frame; a received one is also announced on d.seen.
func (d *demo) print(who, dialect, dir string, frame []byte) {
	d.mu.Lock()
	arrow := "sent     "
	if dir == refagent.Received {
		arrow = "delivered"
	}
	fmt.Fprintf(d.out, "  %-9s %-6s %-9s %s\n", arrow, who, "("+dialect+")", frame)
	d.mu.Unlock()
	if dir == refagent.Received {
		select {
		case d.seen <- delivery{who, append([]byte(nil), frame...)}:
		default:
		}
	}
}

// await waits until every one of who has received a message holding
// marker.
func (d *demo) await(ctx context.Context, marker string, who ...string) error {
	missing := map[string]bool{}
	for _, w := range who {
		missing[w] = true
	}
	for len(missing) > 0 {
		select {
		case got := <-d.seen:
			if strings.Contains(string(got.frame), marker) {
				delete(missing, got.who)
			}
		case <-ctx.Done():
			return fmt.Errorf("no %s delivered to %v", marker, missing)
		}
	}
	return nil
}

// debugAnswer prints debug_code's result as Eddy read it, in words: the
// analysis, the fixed code and the explanation.
func (d *demo) debugAnswer(result canonical.JSON) error {
	var r struct {
		Analysis    string `json:"analysis"`
		FixedCode   string `json:"fixed_code"`
		Explanation string `json:"explanation"`
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		return fmt.Errorf("debug_code's result %s: %w", result, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	const indent = "                 "
	fmt.Fprintf(d.out, "\n  Jules's answer, as Eddy read it:\n    analysis:    %s\n    fixed code:\n", wrap(r.Analysis, 80, indent))
	for _, line := range strings.Split(strings.TrimRight(r.FixedCode, "\n"), "\n") {
		fmt.Fprintln(d.out, strings.TrimRight("      | "+line, " "))
	}
	fmt.Fprintf(d.out, "    explanation: %s\n", wrap(r.Explanation, 80, indent))
	return nil
}

// wrap breaks text into lines of at most width bytes (a longer word gets a
// line of its own), each line after the first starting with indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(word) > width:
			b.WriteString("\n" + indent)
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// outcome turns a Call's answer into an error unless it is a result.
func outcome(reply *canonical.Envelope, err error) error {
	switch {
	case err != nil:
		return err
	case reply.Act != canonical.ActResult:
		msg := ""
		if reply.Error != nil {
			msg = reply.Error.Message
		}
		return fmt.Errorf("answered %s: %s", reply.Act, msg)
	}
	return nil
}

// waitAgents waits until the bridge knows every id with its capabilities.
func waitAgents(ctx context.Context, srv *server.Server, ids ...string) error {
	for _, id := range ids {
		for {
			up := false
			for _, a := range srv.Bridge().Agents("") {
				up = up || (a.ID == id && a.Status == "READY" && len(a.Capabilities) > 0)
			}
			if up {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("agent %s did not come up", id)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return nil
}

// waitGone waits until none of ids is connected to the bridge (READY or
// BUSY).
func waitGone(ctx context.Context, srv *server.Server, ids ...string) error {
	for {
		connected := false
		for _, a := range srv.Bridge().Agents("") {
			if slices.Contains(ids, a.ID) && (a.Status == "READY" || a.Status == "BUSY") {
				connected = true
			}
		}
		if !connected {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("agents %v did not all disconnect", ids)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// peer is a bluelabel participant scripted by the demo itself (the
// reference agents have no needs_input step).
type peer struct {
	d     *demo
	id    string
	c     *agentclient.Conn
	codec dialects.Codec
}

func (d *demo) peer(ctx context.Context, id string) (*peer, error) {
	c, err := agentclient.Dial(ctx, d.url+"/ws/bluelabel?agent="+id, agentclient.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	codec, _ := builtin.Default().Lookup("bluelabel")
	return &peer{d: d, id: id, c: c, codec: codec}, nil
}

func (p *peer) send(ctx context.Context, env *canonical.Envelope) error {
	env.Sender = canonical.Party{ID: p.id}
	frame, err := p.codec.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		return err
	}
	p.d.print(p.id, "bluelabel", refagent.Sent, frame)
	return p.c.Write(ctx, frame)
}

func (p *peer) recv(ctx context.Context) (*canonical.Envelope, error) {
	frame, err := p.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	p.d.print(p.id, "bluelabel", refagent.Received, frame)
	return p.codec.Decode(frame)
}

// needsInput plays the bluelabel round: an assignment, a needs_input for
// the missing key, the assignment again with it (same task id), the result.
func (d *demo) needsInput(ctx context.Context, srv *server.Server) error {
	lead, err := d.peer(ctx, "BLUE-LEAD")
	if err != nil {
		return err
	}
	defer lead.c.Close("the scene is over")
	deployer, err := d.peer(ctx, "DEPLOYER")
	if err != nil {
		return err
	}
	defer deployer.c.CloseNow()
	// Both are listed now: the bridge answers a handshake once its agent
	// is attached.
	done := make(chan error, 1)
	go func() { done <- deployer.serve(ctx) }()
	// The second assignment, with the key, is the task's next attempt: the
	// same task_id, retry_count 1 (the bridge delivers a repeat of the same
	// task_id and retry_count once).
	assign := func(args string, retry int) error {
		return lead.send(ctx, &canonical.Envelope{Act: canonical.ActRequest, TaskID: "DEPLOY-42",
			Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "DEPLOYER"}, Operation: canonical.Operation{Name: "deploy"},
			Description: "Deploy the web service", Arguments: canonical.JSON(args),
			Extra: []canonical.Field{{Dialect: "bluelabel", Key: "retry_count", Value: canonical.JSON(strconv.Itoa(retry))}}})
	}
	if err := assign(`{"service":"web"}`, 0); err != nil {
		return err
	}
	ask, err := lead.recv(ctx)
	if err != nil {
		return err
	}
	if ask.Act != canonical.ActNeedsInput {
		return fmt.Errorf("BLUE-LEAD expected needs_input, got %s", ask.Act)
	}
	if err := assign(`{"service":"web","api_key":"demo-key-not-secret"}`, 1); err != nil {
		return err
	}
	res, err := lead.recv(ctx)
	if err != nil {
		return err
	}
	if res.Act != canonical.ActResult {
		return fmt.Errorf("BLUE-LEAD expected task_result, got %s", res.Act)
	}
	// The deployer's loop ends with the connection: its error says so.
	deployer.c.Close("")
	<-done
	return nil
}

// serve answers assignments: needs_input until the api_key is given.
func (p *peer) serve(ctx context.Context) error {
	for {
		req, err := p.recv(ctx)
		if err != nil {
			return err
		}
		reply := &canonical.Envelope{TaskID: req.TaskID, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: req.Sender.ID}}
		if !strings.Contains(string(req.Arguments), `"api_key"`) {
			reply.Act = canonical.ActNeedsInput
			reply.Inputs = `[{"id":"api_key","type":"string","description":"API key for the deploy target","sensitive":true}]`
			reply.Context = `"Configuring the deployment pipeline"`
		} else {
			reply.Act = canonical.ActResult
			reply.Outcome = canonical.OutcomeSuccess
			reply.Result = `{"deployed":"web","version":"1.4.2"}`
		}
		if err := p.send(ctx, reply); err != nil {
			return err
		}
	}
}
