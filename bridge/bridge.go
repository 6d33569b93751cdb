package bridge

import (
	"cmp"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/bridge/msglog"
	"github.com/mcp-bridge/mcp-bridge/bridge/peer"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/bridge/resilience"
	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/mcp-bridge/mcp-bridge/translate"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Bridge. Zero values take the defaults.
type Options struct {
	// Registry holds the dialects; Mappings the rules between them.
	Registry *dialects.Registry
	Mappings *mappings.Set
	// ID is the sender of the bridge's own messages (default "mcp-bridge").
	ID string
	// MaxFrame is the largest message accepted, in bytes (default 1 MiB).
	MaxFrame int
	// RequestTimeout is how long a request waits for its reply when the
	// message sets no ttl or timeout of its own (default 30 s).
	RequestTimeout time.Duration
	// WriteTimeout bounds one delivery to a link (default 5 s).
	WriteTimeout time.Duration
	// QueuePerAgent bounds the messages waiting for one agent (default
	// 1000); QueueTotal those waiting for all agents together (default
	// 100000). A message over either bound is refused to its sender with a
	// retryable unavailable error.
	QueuePerAgent, QueueTotal int
	// DedupeWindow is how long a message id is remembered: a message sent
	// again within it is delivered once (default 1 minute; negative turns
	// duplicate suppression off).
	DedupeWindow time.Duration
	// DedupeEntries bounds the messages the dedupe table remembers
	// (default 100,000); DedupeAnswers the bytes of answers it keeps for
	// requests sent again (default 8 MiB; negative keeps none). Past them
	// the oldest go first.
	DedupeEntries, DedupeAnswers int
	// PendingRequests bounds the requests open at once (default 100,000):
	// past it the oldest is answered unavailable.
	PendingRequests int
	// Heartbeat is how often connections that can be pinged (WebSocket)
	// are; an agent that misses 3 in a row is UNAVAILABLE (default 10 s;
	// negative turns heartbeats off).
	Heartbeat time.Duration
	// Retry is the retry policy for requests whose delivery or answer
	// failed retryably; nil is DefaultRetryPolicy, MaxRetries 0 never
	// retries. Breaker is each agent's circuit breaker; nil is
	// DefaultBreakerPolicy, FailureThreshold 0 turns it off.
	Retry   *resilience.RetryPolicy
	Breaker *resilience.BreakerPolicy
	// DecodeOnly skips checking each message against its dialect's schema
	// and rules: only the decoder's checks apply (JSON, the types of the
	// fields it reads, vocabulary words). Faster, for trusted agents.
	DecodeOnly bool
	// ForgetAfter is how long an agent known only from the HTTP requests
	// it sent stays in the directory after its last one (0: for ever).
	ForgetAfter time.Duration
	// Logger receives the bridge's own lines and the message log, one
	// line per message received and sent (package msglog; default:
	// slog.Default()).
	Logger *slog.Logger
	// Metrics registers the bridge's metrics; nil registers none.
	Metrics prometheus.Registerer
	// Guard, when set, checks every received message before it is
	// routed, and stamps the messages sent (tokens, rates).
	Guard Guard
	// Tracer, when set, follows every message as trace spans: a
	// subscriber of the event stream that wants its span slots (package
	// tracing), told of each event before the message log and the metrics,
	// so that their lines carry the spans' traces.
	Tracer event.Subscriber
}

// The defaults of Options.
const (
	DefaultID             = "mcp-bridge"
	DefaultMaxFrame       = 1 << 20
	DefaultRequestTimeout = route.DefaultRequestTimeout
	DefaultWriteTimeout   = 5 * time.Second
	DefaultQueuePerAgent  = 1000
	DefaultQueueTotal     = 100000
	DefaultDedupeWindow   = route.DefaultDedupeWindow
	DefaultHeartbeat      = 10 * time.Second
	// DefaultPendingRequests bounds the requests open at once.
	DefaultPendingRequests = route.DefaultPendingRequests
)

// Bridge routes messages between the agents attached to it, and between
// them and the callers of its call API (Call, Send). It is the front of
// the core: the routing is package route's; what is here is the
// connections (sessions) and what spans them: health, the cluster,
// shutdown, the event stream.
type Bridge struct {
	r            *route.Router
	id           string
	maxFrame     int
	writeTimeout time.Duration
	decodeOnly   bool
	// queuePerAgent bounds each agent's outbound queue; budget all of them.
	queuePerAgent int
	budget        *delivery.Budget
	queueTable    *metrics.Table
	log           *slog.Logger
	metrics       *metrics.Metrics
	// expired is metrics.Expired as a func, made once for every queue (a
	// method value taken at each Attach is an allocation a session).
	expired  func()
	redactor *redact.Redactor
	events   event.Stream // what watches the bridge (observe.go)
	guard    Guard        // nil: none

	// The router's tables, for the sessions.
	dir     *directory.Directory[endpoint]
	pending *correlation.Table[endpoint, *agent]

	writers  *delivery.Watchdog // stops deliveries past the write timeout
	mu       sync.RWMutex
	sessions map[*Session]struct{}
	stopped  chan struct{} // closed by Shutdown: background loops end
}

// agent is the directory's record of an agent; endpoint a party the
// router delivers to (route.Endpoint).
type (
	agent    = route.Agent
	endpoint = route.Endpoint
)

// Receipt says what became of one received frame (route.Receipt).
type Receipt = route.Receipt

// New returns a bridge for opts.
func New(opts Options) (*Bridge, error) {
	if opts.Registry == nil || opts.Mappings == nil {
		return nil, errors.New("bridge: Options need a Registry and Mappings")
	}
	b := &Bridge{
		id:            cmp.Or(opts.ID, DefaultID),
		maxFrame:      opts.MaxFrame,
		writeTimeout:  opts.WriteTimeout,
		decodeOnly:    opts.DecodeOnly,
		queuePerAgent: opts.QueuePerAgent,
		log:           opts.Logger,
		guard:         opts.Guard,
		sessions:      map[*Session]struct{}{},
		redactor:      &redact.Redactor{},
		stopped:       make(chan struct{}),
	}
	if b.maxFrame <= 0 {
		b.maxFrame = DefaultMaxFrame
	}
	if b.writeTimeout <= 0 {
		b.writeTimeout = DefaultWriteTimeout
	}
	if b.queuePerAgent <= 0 {
		b.queuePerAgent = DefaultQueuePerAgent
	}
	if opts.QueueTotal <= 0 {
		opts.QueueTotal = DefaultQueueTotal
	}
	b.budget = delivery.NewBudget(opts.QueueTotal)
	if b.log == nil {
		b.log = slog.Default()
	}
	b.prepare(opts.Registry)
	retries, breakers := resilience.DefaultRetryPolicy, resilience.DefaultBreakerPolicy
	if opts.Retry != nil {
		retries = *opts.Retry
	}
	if opts.Breaker != nil {
		breakers = *opts.Breaker
	}
	var pending func() float64
	m, err := metrics.New(opts.Metrics, func() float64 { return pending() })
	if err != nil {
		return nil, err
	}
	b.metrics, b.expired = m, m.Expired
	if opts.Tracer != nil {
		b.events.Subscribe(opts.Tracer)
	}
	b.events.Subscribe(msglog.New(b.log, b.redactor))
	b.events.Subscribe(m)
	timeout := opts.RequestTimeout
	if timeout < 0 {
		timeout = 0
	}
	b.r, err = route.New(route.Config{ID: b.id, Registry: opts.Registry, Mappings: opts.Mappings,
		RequestTimeout: timeout, DedupeWindow: opts.DedupeWindow, DedupeEntries: opts.DedupeEntries,
		DedupeAnswers: opts.DedupeAnswers, PendingRequests: opts.PendingRequests, Retry: retries, Breaker: breakers,
		Logger: b.log, Metrics: m, Events: &b.events, Redactor: b.redactor})
	if err != nil {
		return nil, err
	}
	b.dir, b.pending = b.r.Directory(), b.r.Requests()
	pending = func() float64 { return float64(b.pending.Count()) }
	if b.queueTable, err = m.Table(metrics.TableQueue, b.budget.Limit(), func() float64 { return float64(b.budget.Len()) }); err != nil {
		return nil, err
	}
	heartbeat := cmp.Or(opts.Heartbeat, DefaultHeartbeat)
	if heartbeat > 0 {
		b.heartbeats(heartbeat)
	}
	b.resting()
	if opts.ForgetAfter > 0 {
		b.forgetting(opts.ForgetAfter)
	}
	b.writers = delivery.NewWatchdog(b.writeTimeout)
	return b, nil
}

// ID returns the id the bridge sends its own messages as.
func (b *Bridge) ID() string { return b.id }

// MaxFrame returns the largest message the bridge accepts, in bytes.
func (b *Bridge) MaxFrame() int { return b.maxFrame }

// Registry returns the dialects the bridge speaks.
func (b *Bridge) Registry() *dialects.Registry { return b.r.Rules().Registry }

// Translator returns the translator of the bridge's current rules: its
// dialects and mapping files, as they are since the last SetRules.
func (b *Bridge) Translator() *translate.Translator { return b.r.Rules().Translator }

// SetRules replaces the dialects and mappings (a config reloaded): a
// message read from now on is decoded, routed and encoded by the new
// ones; one in flight finishes with the old. Connections stay; each takes
// its dialect's new codec at its next message. A dialect the new registry
// lacks keeps its old codec on the connections that speak it, until they
// close.
func (b *Bridge) SetRules(reg *dialects.Registry, maps *mappings.Set) {
	b.prepare(reg)
	b.r.SetRules(reg, maps)
}

// prepare has reg's codecs compile what validation needs, unless the
// bridge trusts the decoders alone: the first messages, which come all at
// once when agents start, would otherwise wait on it together.
func (b *Bridge) prepare(reg *dialects.Registry) {
	if b.decodeOnly || reg == nil {
		return
	}
	if err := reg.Prepare(); err != nil {
		b.log.Warn("a dialect's schema does not compile; its messages will be refused", "error", err)
	}
}

// JoinCluster makes the bridge the instance self of a cluster whose other
// instances carrier reaches (package peer); the cluster package tells the
// returned Cluster what the other instances hold and send.
func (b *Bridge) JoinCluster(self string, carrier peer.Carrier) *peer.Cluster {
	return peer.Join(b.r, self, carrier, b.log, &b.events)
}

// Instance returns the bridge's name in its cluster, "" when it is in none.
func (b *Bridge) Instance() string { return b.dir.Instance() }
