// Package route is the bridge's routing core, the part every front door
// calls: each message an endpoint submits, its agent ids canonical, goes
// where it should. A duplicate is answered from its first copy, an
// answer goes back to its request's requester, the bridge's own business
// (capability declarations and queries, subscriptions) is done here, and
// everything else goes to its receivers; requests are correlated, timed,
// retried and guarded by their receivers' circuit breakers. The router
// knows endpoints (Endpoint), not transports or dialects' frames.
package route

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/dedupe"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/bridge/resilience"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// Config configures a Router; bridge.Options documents each setting.
type Config struct {
	// ID is the sender of the bridge's own messages.
	ID string
	// Registry and Mappings are the dialects and the rules between them
	// (required).
	Registry *dialects.Registry
	Mappings *mappings.Set
	// RequestTimeout is a request's time limit when it says none
	// (default DefaultRequestTimeout).
	RequestTimeout time.Duration
	// DedupeWindow, DedupeEntries and DedupeAnswers bound the duplicate
	// table (package dedupe; defaults DefaultDedupeWindow and dedupe's);
	// a negative window turns it off.
	DedupeWindow                 time.Duration
	DedupeEntries, DedupeAnswers int
	// PendingRequests bounds the requests open at once (default
	// DefaultPendingRequests).
	PendingRequests int
	// Retry and Breaker are the policies as they are: their zero values
	// never retry and never open.
	Retry   resilience.RetryPolicy
	Breaker resilience.BreakerPolicy
	// Logger, Metrics, Events and Redactor are the bridge's (required).
	Logger   *slog.Logger
	Metrics  *metrics.Metrics
	Events   *event.Stream
	Redactor *redact.Redactor
}

// The defaults of Config.
const (
	DefaultRequestTimeout  = 30 * time.Second
	DefaultDedupeWindow    = time.Minute
	DefaultPendingRequests = 100_000
)

// Router routes canonical envelopes between endpoints.
type Router struct {
	id        string
	rules     atomic.Pointer[Rules]
	timeout   time.Duration
	log       *slog.Logger
	metrics   *metrics.Metrics
	events    *event.Stream
	redactor  *redact.Redactor
	dedupe    *dedupe.Table
	dir       *directory.Directory[Endpoint]
	pending   *correlation.Table[Endpoint, *Agent]
	evictions *metrics.Table
	closing   atomic.Bool
	rr        atomic.Uint64 // round robin over agents serving an operation
	relay     atomic.Pointer[func(a *Agent, env *canonical.Envelope, send bool) bool]
	res       resilient
	control   controller
}

// Request is an open request.
type Request = correlation.Request[Endpoint, *Agent]

// New returns a router for c; c's Registry, Mappings, Logger, Metrics,
// Events and Redactor are required.
func New(c Config) (*Router, error) {
	if c.Registry == nil || c.Mappings == nil || c.Logger == nil || c.Metrics == nil || c.Events == nil || c.Redactor == nil {
		return nil, errors.New("route: Config needs a Registry, Mappings, a Logger, Metrics, Events and a Redactor")
	}
	r := &Router{id: c.ID, timeout: cmp.Or(c.RequestTimeout, DefaultRequestTimeout), log: c.Logger, metrics: c.Metrics, events: c.Events,
		redactor: c.Redactor, dir: directory.New[Endpoint](),
		pending: correlation.NewTable[Endpoint, *Agent](cmp.Or(max(c.PendingRequests, 0), DefaultPendingRequests))}
	// A request whose time limit d ran out is given up: the requester
	// gets a timeout, the receiver's breaker a failure. The table runs
	// this in a goroutine of its own.
	r.pending.OnExpiry(func(p *Request, d time.Duration) {
		r.events.Emit(event.Event{Kind: event.Expired, Agent: p.Sender.ID, To: p.Receiver.ID(), Duration: d})
		r.dir.TimedOut(p.Receiver)
		r.res.outcome(p.Receiver, false)
		r.givenUp(p)
		r.Fail(p, canonical.ErrTimeout, fmt.Sprintf("no answer from %s within %s", p.Receiver.ID(), d))
	})
	r.rules.Store(newRules(c.Registry, c.Mappings, 0))
	r.res = resilient{r: r, policy: c.Retry, breakers: c.Breaker}
	r.control = controller{r: r}
	r.dir.Watch(r.control.observe)
	if c.DedupeWindow >= 0 {
		answers := cmp.Or(c.DedupeAnswers, dedupe.DefaultAnswers)
		if answers < 0 {
			answers = 0
		}
		r.dedupe = dedupe.New(cmp.Or(c.DedupeWindow, DefaultDedupeWindow), cmp.Or(max(c.DedupeEntries, 0), dedupe.DefaultEntries), answers)
		if err := r.dedupe.Count(c.Metrics); err != nil {
			return nil, err
		}
	}
	var err error
	if r.evictions, err = c.Metrics.Table(metrics.TablePending, r.pending.Limit(),
		func() float64 { return float64(r.pending.Count()) }); err != nil {
		return nil, err
	}
	return r, nil
}

// ID returns the id the bridge sends its own messages as.
func (r *Router) ID() string { return r.id }

// Directory returns the register of agents and the endpoints that
// deliver to them.
func (r *Router) Directory() *directory.Directory[Endpoint] { return r.dir }

// Requests returns the table of open requests.
func (r *Router) Requests() *correlation.Table[Endpoint, *Agent] { return r.pending }

// RequestTimeout returns how long a request waits for its answer when it
// says nothing of its own.
func (r *Router) RequestTimeout() time.Duration { return r.timeout }

// Close has the router refuse new requests from now on, with a retryable
// unavailable error: the bridge is shutting down.
func (r *Router) Close() { r.closing.Store(true) }

// Closing reports whether Close was called.
func (r *Router) Closing() bool { return r.closing.Load() }

// SetRelay installs the cluster's relay: given an agent's message about a
// request another instance forwarded, it sends it to that instance (when
// send is true) and reports whether the message was about such a request.
// nil removes it.
func (r *Router) SetRelay(fn func(a *Agent, env *canonical.Envelope, send bool) bool) {
	if fn == nil {
		r.relay.Store(nil)
		return
	}
	r.relay.Store(&fn)
}

// Rules are the dialects and the mappings between them, replaced whole
// by SetRules; Gen tells sessions their codec is out of date.
type Rules struct {
	Registry   *dialects.Registry
	Mappings   *mappings.Set
	Translator *translate.Translator
	Gen        uint64
}

func newRules(reg *dialects.Registry, maps *mappings.Set, gen uint64) *Rules {
	return &Rules{Registry: reg, Mappings: maps, Translator: &translate.Translator{Registry: reg, Mappings: maps}, Gen: gen}
}

// Rules returns the rules in force.
func (r *Router) Rules() *Rules { return r.rules.Load() }

// SetRules replaces the dialects and mappings: a message routed from now
// on is by the new ones; one in flight finishes with the old.
func (r *Router) SetRules(reg *dialects.Registry, maps *mappings.Set) {
	old := r.rules.Load()
	r.rules.Store(newRules(reg, maps, old.Gen+1))
}
