package cluster

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
	"github.com/prometheus/client_golang/prometheus"
)

// wait bounds every wait for the cluster to settle: generous, for a
// loaded machine.
const wait = 20 * time.Second

// beat is the instances' heartbeat in these tests: an instance silent for
// three is gone, which a loaded machine must not make one seem.
const beat = 250 * time.Millisecond

// quiet is a logger that writes nowhere.
var quiet = slog.New(slog.DiscardHandler)

// startNATS runs a NATS server in the test's process on a free loopback
// port, until the test ends.
func startNATS(t *testing.T) *Embedded {
	t.Helper()
	e, err := StartEmbedded("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

// instance is one bridge joined to a cluster, with a WebSocket endpoint on
// loopback its agents connect to.
type instance struct {
	t       *testing.T
	name    string
	b       *bridge.Bridge
	c       *Cluster
	metrics *prometheus.Registry
	wsURL   string
}

// join starts a bridge and joins it to the cluster on the NATS at url as
// name, with heartbeat every; everything stops when the test ends. opts
// adjust the bridge's options.
func join(t *testing.T, url, name string, every time.Duration, opts ...func(*bridge.Options)) *instance {
	t.Helper()
	o := bridge.Options{Registry: builtin.Default(), Mappings: dialects.DefaultMappings(),
		ID: "bridge-" + name, Heartbeat: -1, Logger: quiet}
	for _, f := range opts {
		f(&o)
	}
	b, err := bridge.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Shutdown(ctx)
	})
	mux := http.NewServeMux()
	(&ws.Handler{Bridge: b, Logger: quiet}).Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	reg := prometheus.NewRegistry()
	c, err := New(b, Options{URL: url, Name: name, Heartbeat: every, Logger: quiet, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &instance{t: t, name: name, b: b, c: c, metrics: reg, wsURL: "ws" + strings.TrimPrefix(srv.URL, "http")}
}

// agent is a reference agent connected to an instance.
type agent struct {
	*refagent.Agent
	stop func() // disconnects it and waits until it has
	// received carries every frame the agent receives.
	received chan []byte
}

// attach connects a reference agent id of dialect, offering tools, to the
// instance, and waits until the instance lists it READY.
func (in *instance) attach(dialect, id string, tools ...string) *agent {
	in.t.Helper()
	got := make(chan []byte, 64)
	a, err := refagent.New(refagent.Options{ID: id, Dialect: dialect, Tools: tools, Observer: func(dir string, frame []byte) {
		if dir == refagent.Received {
			select {
			case got <- append([]byte(nil), frame...):
			default:
			}
		}
	}})
	if err != nil {
		in.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Connect(ctx, in.wsURL, "")
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	in.t.Cleanup(stop)
	in.await(id, func(a bridge.AgentInfo) bool {
		return a.Connected && a.Status == bridge.StatusReady && a.Instance == in.name
	},
		"connected here and READY")
	return &agent{Agent: a, stop: stop, received: got}
}

// await waits until the instance's directory holds the agent id as ok
// says, and returns it; the test fails when it does not within wait.
func (in *instance) await(id string, ok func(bridge.AgentInfo) bool, what string) bridge.AgentInfo {
	in.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		a, found := in.b.Agent(id)
		if found && ok(a) {
			return a
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("instance %s never listed %s as %s; it lists %+v (found %v)", in.name, id, what, a, found)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// eventually polls cond until it holds; the test fails when it does not
// within wait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// toolOf returns the operation the instance's directory names the agent's
// tool by, waiting for it: a remote agent's tools may reach the directory
// after the news that it connected.
func (in *instance) toolOf(agent, name string) canonical.Operation {
	in.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		a, _ := in.b.Agent(agent)
		for _, tl := range a.Tools {
			if tl.Name == name || tl.Operation.Name == name {
				return tl.Operation
			}
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("%s lists no tool %s of %s: %+v", in.name, name, agent, a.Tools)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// call sends the request through the instance's call API, as the caller,
// to the agent's tool, and waits for its answer.
func (in *instance) call(ctx context.Context, agent, tool, args string) (canonical.Envelope, error) {
	return in.b.Call(ctx, in.request(agent, tool, args))
}

// request returns a request to the agent's tool from the call API.
func (in *instance) request(agent, tool, args string) canonical.Envelope {
	return canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: "tester-" + in.name},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: agent},
		Operation: in.toolOf(agent, tool), Arguments: canonical.JSON(args), TTL: canonical.Dur(wait)}
}

// codeOf returns the error code of a call's outcome: the bridge's refusal
// or the answer's error, "" when it has none.
func codeOf(env canonical.Envelope, err error) canonical.ErrorCode {
	var e *canonical.Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return canonical.ErrorCode("error: " + err.Error())
	}
	if env.Error != nil {
		return env.Error.Code
	}
	return ""
}

// messageOf returns the error message of a call's outcome.
func messageOf(env canonical.Envelope, err error) string {
	var e *canonical.Error
	if errors.As(err, &e) {
		return e.Message
	}
	if err != nil {
		return err.Error()
	}
	if env.Error != nil {
		return env.Error.Message
	}
	return ""
}

// noRetries has a bridge answer a request that failed retryably at once.
func noRetries(o *bridge.Options) { o.Retry = &bridge.RetryPolicy{} }
