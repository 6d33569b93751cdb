// Package bridgetest helps the tests of the packages around the bridge
// core: a bridge with the built-in dialects that shuts down when the test
// ends, and scripted agents on in-process links.
package bridgetest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/prometheus/client_golang/prometheus"
)

// New returns a bridge with the built-in dialects, heartbeats off unless
// opts asks for them and logs discarded unless opts has a logger; its
// metrics are in the registry New returns. It shuts down when the test
// ends.
func New(t testing.TB, opts bridge.Options) (*bridge.Bridge, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts.Registry, opts.Mappings, opts.Metrics = builtin.Default(), dialects.DefaultMappings(), reg
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = -1
	}
	b, err := bridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Shutdown(ctx)
	})
	return b, reg
}

// Agent is a scripted agent on an in-process link: each message the
// bridge sends it is decoded and handed to its script, whose answers are
// encoded in its dialect and received from it.
type Agent struct {
	t      testing.TB
	codec  dialects.Codec
	script Script
	// Session is the agent's session with the bridge.
	Session *bridge.Session
	// Got has every message the bridge sent the agent (while it has room).
	Got chan *canonical.Envelope
}

// Script is how a scripted agent answers a message: the messages it sends
// back, none for nil.
type Script func(env *canonical.Envelope) []*canonical.Envelope

// Attach connects a scripted agent id of dialect to b; script may be nil
// for an agent that never answers. It is detached when the test ends.
func Attach(t testing.TB, b *bridge.Bridge, dialect, id string, script Script) *Agent {
	t.Helper()
	c, ok := b.Registry().Lookup(dialect)
	if !ok {
		t.Fatalf("no dialect %q", dialect)
	}
	a := &Agent{t: t, codec: c, script: script, Got: make(chan *canonical.Envelope, 64)}
	s, err := b.Attach(a, bridge.AttachOptions{Dialect: dialect, AgentID: id})
	if err != nil {
		t.Fatal(err)
	}
	a.Session = s
	t.Cleanup(s.Detach)
	return a
}

// Transport names the link "test".
func (a *Agent) Transport() string { return "test" }

// Send decodes what the bridge sends the agent, and answers it as the
// script says, from a goroutine of its own.
func (a *Agent) Send(_ context.Context, out bridge.Outbound) error {
	env, err := a.codec.Decode(append([]byte(nil), out.Frame...))
	if err != nil {
		a.t.Errorf("the bridge sent %s a frame that does not decode: %v\n%s", a.codec.Name(), err, out.Frame)
		return nil
	}
	select {
	case a.Got <- env:
	default: // nobody reads: a benchmark
	}
	if a.script != nil {
		go func() { a.Say(a.script(env)...) }()
	}
	return nil
}

// Say sends envs from the agent to the bridge, each encoded in its
// dialect; a refusal fails the test.
func (a *Agent) Say(envs ...*canonical.Envelope) {
	for _, e := range envs {
		frame, err := a.codec.Encode(nil, e, &dialects.EncodeContext{})
		if err != nil {
			a.t.Errorf("%s cannot encode %+v: %v", a.codec.Name(), e, err)
			return
		}
		if r := a.Session.Receive(frame); r.Err != nil {
			a.t.Errorf("the bridge refused %s: %v", frame, r.Err)
		}
	}
}

// Reply returns an answer of act to req, from its receiver.
func Reply(req *canonical.Envelope, act canonical.Act) *canonical.Envelope {
	inReplyTo := req.ReplyWith
	if inReplyTo == "" {
		inReplyTo = req.ID
	}
	return &canonical.Envelope{
		ID: "r-" + req.ID, Act: act, Sender: canonical.Party{ID: req.Receiver.ID},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: req.Sender.ID},
		InReplyTo: inReplyTo, CorrelationID: req.ID, TaskID: req.TaskID,
	}
}

// Echo answers every request with its arguments as the result.
func Echo(env *canonical.Envelope) []*canonical.Envelope {
	if env.Act != canonical.ActRequest {
		return nil
	}
	r := Reply(env, canonical.ActResult)
	r.Outcome, r.Result = canonical.OutcomeSuccess, env.Arguments
	return []*canonical.Envelope{r}
}
