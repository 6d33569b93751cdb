package sixthdialect_test

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/conformance"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/loadgen"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/server"
	"github.com/mcp-bridge/mcp-bridge/server/servertest"
	"github.com/mcp-bridge/mcp-bridge/translate"
	"github.com/tidwall/gjson"
)

// wait bounds every wait of these tests; no test measures time with it.
const wait = 10 * time.Second

// builtins are the dialects dialects/builtin imports.
var builtins = []string{"a2a", "bluelabel", "collab", "elizaacl", "fuse", "swarm"}

// TestContract runs the shared contract suite on memo's codec, as the
// bridge builds it from the record.
func TestContract(t *testing.T) {
	c, ok := builtin.Default().Lookup(memoName)
	if !ok {
		t.Fatal("the registry has no memo codec")
	}
	dialecttest.Run(t, c)
}

// TestLists checks that what lists or serves dialects names memo beside
// the built-in ones: the names, `mcp-bridge dialects`, detection, the
// config's dialect check and the conformance suites.
func TestLists(t *testing.T) {
	want := append(slices.Clone(builtins), memoName)
	slices.Sort(want)
	if got := dialects.Names(); !slices.Equal(got, want) {
		t.Errorf("dialects.Names() = %v, want %v", got, want)
	}

	var out strings.Builder
	dialects.Describe(&out, dialects.DefaultMappings())
	block := `memo: the registry's throwaway test dialect: ask, answer, fail, hello (examples/sixthdialect/doc.go)
  request=ask
  accept=(none)
  refuse~fail
  result=answer
  failure=fail
  not-understood~fail
  query-if~ask
  query-ref~ask
  query-capabilities=(none)
  inform-capabilities=hello
  event=(none)
  needs-input=(none)
`
	if !strings.Contains(out.String(), block) {
		t.Errorf("mcp-bridge dialects does not list memo as\n%s\nit prints\n%s", block, out.String())
	}
	for _, d := range builtins {
		if !strings.Contains("\n"+out.String(), "\n"+d+": ") {
			t.Errorf("mcp-bridge dialects lost %s:\n%s", d, out.String())
		}
	}

	reg := builtin.Default()
	for _, s := range dialecttest.Samples(t, dialecttest.SamplesDir) {
		if c, err := reg.Detect(s.Data); err != nil || c.Name() != memoName {
			t.Errorf("%s: detected as %v (%v), want memo", s.Name, c, err)
		}
	}

	if _, err := config.Parse("serve.yaml", []byte("agents:\n  - {id: bob, dialect: memo}\n"), dialects.Names()); err != nil {
		t.Errorf("a config with a memo agent: %v", err)
	}
	if _, err := conformance.SuiteFor(memoName); err != nil {
		t.Errorf("conformance: %v", err)
	}
}

// TestTranslate translates memo's ask into each built-in dialect and back:
// each output is valid in its dialect, and the operation and arguments
// come back.
func TestTranslate(t *testing.T) {
	tr := &translate.Translator{Registry: builtin.Default(), Mappings: dialects.DefaultMappings()}
	ask := dialecttest.ReadSample(t, "ask")
	for _, d := range builtins {
		t.Run(d, func(t *testing.T) {
			there, err := tr.Translate(nil, memoName, d, slices.Clone(ask), translate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := tr.Codec(d)
			if p := c.Validate(there.Output); len(p) != 0 {
				t.Errorf("%s does not validate: %v\n%s", d, p, there.Output)
			}
			back, err := tr.Translate(nil, d, memoName, slices.Clone(there.Output), translate.Options{})
			if err != nil {
				t.Fatalf("back from %s: %v\n%s", d, err, there.Output)
			}
			got := gjson.GetManyBytes(back.Output, "memo", "op", "args")
			if got[0].Str != "ask" || got[1].Str != "echo" || !dialecttest.JSONEqual([]byte(got[2].Raw), []byte(gjson.GetBytes(ask, "args").Raw)) {
				t.Errorf("memo -> %s -> memo gave %s", d, back.Output)
			}
		})
	}
}

// TestReferenceAgent runs a reference agent of memo and one of swarm
// through a live bridge: the bridge knows the memo agent's tools from its
// hello, and each agent calls the other's add.
func TestReferenceAgent(t *testing.T) {
	url, srv := startBridge(t)
	bob := runAgent(t, url, memoName, "bob")
	jules := runAgent(t, url, "swarm", "jules")
	deadline := time.Now().Add(wait)
	for !ready(srv.Bridge(), "bob", "jules") {
		if time.Now().After(deadline) {
			t.Fatalf("the agents never came up: %+v", srv.Bridge().Agents(""))
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, c := range []struct {
		from *refagent.Agent
		to   string
	}{{jules, "bob"}, {bob, "jules"}} {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		res, err := c.from.Call(ctx, c.to, canonical.Operation{Name: "add"}, `{"a":2,"b":3}`)
		cancel()
		if err != nil {
			t.Fatalf("%s calls %s: %v", c.from.ID(), c.to, err)
		}
		if res.Act != canonical.ActResult || gjson.Get(string(res.Result), "sum").Int() != 5 {
			t.Errorf("%s calls %s's add: %s %s", c.from.ID(), c.to, res.Act, res.Result)
		}
	}
}

// TestConformance runs memo's conformance suite against memo's reference
// agent: every requirement passes.
func TestConformance(t *testing.T) {
	a, err := refagent.New(refagent.Options{Dialect: memoName})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Listen(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the agent: %v", err)
		}
	}()
	runCtx, stop := context.WithTimeout(context.Background(), wait)
	defer stop()
	rep, err := conformance.Run(runCtx, conformance.Dial("ws://"+ln.Addr().String()+"/"),
		conformance.Options{Dialect: memoName, Timeout: time.Second, Quiet: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	suite, _ := conformance.SuiteFor(memoName)
	if len(rep.Results) != len(suite.Requirements) {
		t.Errorf("%d results, want %d", len(rep.Results), len(suite.Requirements))
	}
	for _, res := range rep.Results {
		if res.Status != conformance.Pass {
			t.Errorf("%s %s: %s", res.Status, res.ID, res.Detail)
		}
	}
}

// TestLoad runs the load generator: it deals agents to memo too, and memo's
// requests and answers cross the bridge to and from every other dialect,
// nothing lost, duplicated or reordered.
func TestLoad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A requester and a responder for each dialect, memo among them.
	agents := 2 * (len(builtins) + 1)
	pairs := 100 * agents / 2
	r, err := loadgen.Run(ctx, loadgen.Options{Agents: agents, Pairs: pairs})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() || r.Stopped != "" || r.Completed != int64(pairs) {
		t.Fatalf("problems %v, stopped %q, %d completed:\n%s", r.Problems(), r.Stopped, r.Completed, r.String())
	}
	if !slices.Contains(r.Dialects, memoName) {
		t.Fatalf("the load went over %v, not memo", r.Dialects)
	}
	from, to := 0, 0
	for _, p := range r.ByDialect {
		if p.From == memoName && p.Latency.N > 0 {
			from++
		}
		if p.To == memoName && p.Latency.N > 0 {
			to++
		}
	}
	if from != len(builtins) || to != len(builtins) {
		t.Errorf("memo sent to %d and answered %d dialects, want %d each:\n%s", from, to, len(builtins), r.String())
	}
}

// startBridge runs a bridge on the default config on a loopback port, and
// returns its WebSocket URL.
func startBridge(t *testing.T) (string, *server.Server) {
	t.Helper()
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	run := servertest.Start(t, cfg, servertest.Options{})
	return "ws://" + run.Addr, run.Server
}

// runAgent connects a reference agent of dialect d as id until the test
// ends, and waits until it has introduced itself.
func runAgent(t *testing.T, url, d, id string) *refagent.Agent {
	t.Helper()
	a, err := refagent.New(refagent.Options{ID: id, Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Connect(ctx, url, "")
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-a.Ready():
	case <-time.After(wait):
		t.Fatalf("agent %s never connected", id)
	}
	return a
}

// ready reports whether the bridge lists every one of ids as ready, with
// the tools it declared.
func ready(b *bridge.Bridge, ids ...string) bool {
	n := 0
	for _, a := range b.Agents("") {
		if slices.Contains(ids, a.ID) && a.Status == bridge.StatusReady && len(a.Capabilities) > 0 {
			n++
		}
	}
	return n == len(ids)
}
