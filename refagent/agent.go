package refagent

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// The directions an Observer is told of.
const (
	Sent     = "sent"
	Received = "received"
)

// Options configure an agent.
type Options struct {
	// ID is the agent's id. "" is "<dialect>-agent", written as the dialect
	// writes ids ("BLUELABEL-AGENT" for bluelabel).
	ID string
	// Dialect is the dialect the agent speaks: a registered one.
	Dialect string
	// Tools are the names of the tools the agent offers; nil offers all of
	// them (ToolNames).
	Tools []string
	// Subscribe are the topics the agent subscribes to when it connects.
	Subscribe []string
	// Observer, when set, is told of every frame the agent sends on a
	// transport or receives ("sent" or "received"). Calls are serialized;
	// the frame must not be modified or kept.
	Observer func(direction string, frame []byte)
	// TLS, when set, is the TLS the agent connects to a wss:// bridge
	// with: the CAs it trusts, and the client certificate it presents
	// (nil: Go's defaults).
	TLS *tls.Config
	// Logger, when set, is told what the agent cannot report otherwise:
	// frames that do not decode, replies it cannot encode, data its dialect
	// cannot carry (debug level). nil logs nothing.
	Logger *slog.Logger
}

// Agent is a reference agent of one dialect. Its methods are safe for
// concurrent use; it serves one transport at a time.
type Agent struct {
	id        string
	codec     dialects.Codec
	tools     []*tool
	subscribe []string
	log       *slog.Logger
	tls       *tls.Config
	// accepts: the dialect has an accept of its own (elizaacl's
	// TASK_ACCEPT), which the agent sends before it answers a request.
	accepts bool

	obsMu    sync.Mutex
	observer func(string, []byte)

	mu      sync.Mutex
	sess    *session         // the transport being served; nil when none
	ready   chan struct{}    // closed while sess has introduced the agent
	isReady bool             // ready is closed
	pending map[string]*call // outstanding calls by each of their correlation keys
}

// registry holds the built-in codecs, made once.
var registry = sync.OnceValue(builtin.Default)

// New returns an agent for o. An unknown dialect or tool, or an id the
// dialect cannot carry as it is, is an error.
func New(o Options) (*Agent, error) {
	codec, found := registry().Lookup(o.Dialect)
	if !found {
		return nil, fmt.Errorf("agent: unknown dialect %q (the dialects are %s)", o.Dialect, strings.Join(dialects.Names(), ", "))
	}
	tools, err := selectTools(o.Tools)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	id := o.ID
	if id == "" {
		id = codec.Name() + "-agent"
		if written, rewritten := writtenID(codec, id); rewritten {
			id = written
		}
	} else if written, rewritten := writtenID(codec, id); rewritten {
		return nil, fmt.Errorf("agent: %s cannot carry the id %q as it is (it would be written %q)", codec.Name(), id, written)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Agent{
		id:        id,
		codec:     codec,
		tools:     tools,
		subscribe: append([]string(nil), o.Subscribe...),
		log:       log.With("agent", id, "dialect", codec.Name()),
		tls:       o.TLS,
		observer:  o.Observer,
		ready:     make(chan struct{}),
		pending:   map[string]*call{},
		accepts:   dialects.DefaultMappings().HasAct(codec.Name(), canonical.ActAccept),
	}, nil
}

// SpellID returns id as the dialect writes agent ids: "bluelabel-caller"
// is "BLUELABEL-CALLER" in bluelabel. An unknown dialect leaves id as it is.
func SpellID(dialect, id string) string {
	codec, found := registry().Lookup(dialect)
	if !found {
		return id
	}
	written, _ := writtenID(codec, id)
	return written
}

// writtenID returns how codec writes id as a sender, and whether that
// differs from id.
func writtenID(codec dialects.Codec, id string) (string, bool) {
	ctx := &dialects.EncodeContext{}
	env := &canonical.Envelope{Act: canonical.ActResult, Sender: canonical.Party{ID: id}, Outcome: canonical.OutcomeSuccess, Result: "{}"}
	if _, err := codec.Encode(nil, env, ctx); err != nil {
		return id, false
	}
	for _, l := range ctx.Losses {
		if _, to, rewritten := l.Rewritten(); rewritten && l.Concept == canonical.CSender {
			return to, true
		}
	}
	return id, false
}

// ID returns the agent's id.
func (a *Agent) ID() string { return a.id }

// Dialect returns the name of the dialect the agent speaks.
func (a *Agent) Dialect() string { return a.codec.Name() }

// Capabilities returns the tools the agent offers, as it declares them.
func (a *Agent) Capabilities() *canonical.Capabilities {
	caps := &canonical.Capabilities{}
	for _, t := range a.tools {
		caps.Tools = append(caps.Tools, t.Tool)
	}
	return caps
}

// Ready returns a channel that is closed once the agent serves a transport
// and has sent its introduction and subscriptions: from then on Call and
// Send work. When that transport ends, Ready returns a new channel, for the
// next one.
func (a *Agent) Ready() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ready
}

// observe tells the observer of a frame.
func (a *Agent) observe(direction string, frame []byte) {
	if a.observer == nil {
		return
	}
	a.obsMu.Lock()
	defer a.obsMu.Unlock()
	a.observer(direction, frame)
}

// encode writes env in the agent's dialect; what the dialect cannot carry
// is logged at debug level.
func (a *Agent) encode(env *canonical.Envelope) ([]byte, error) {
	ctx := &dialects.EncodeContext{}
	frame, err := a.codec.Encode(nil, env, ctx)
	if err != nil {
		return nil, err
	}
	if len(ctx.Losses) > 0 && a.log.Enabled(context.Background(), slog.LevelDebug) {
		for _, l := range ctx.Losses {
			a.log.Debug("agent: the dialect does not carry all of a message", "act", string(env.Act), "loss", l.String())
		}
	}
	return frame, nil
}
