package loadgen

import (
	"fmt"
	"log/slog"
	"time"
)

// The values Options take when left zero.
const (
	DefaultAgents   = 100
	DefaultPairs    = 200000
	DefaultWindow   = 8
	DefaultValidate = "schema"
	DefaultTimeout  = 5 * time.Minute
	// DefaultInstances is one bridge, not a cluster.
	DefaultInstances = 1
	// Grace is how long requests still open when the run is stopped early
	// (the Timeout, or its context) get to be answered before they
	// count as lost.
	Grace = 5 * time.Second
)

// Options describe one load run. Zero fields take the defaults above,
// except Rate, Payload and FailEvery, whose zero is meaningful.
type Options struct {
	// Agents is how many agents connect: the first half (rounded down)
	// are requesters, the rest responders, each half spread round robin
	// over every registered dialect. At least 2.
	Agents int
	// Pairs is how many request/answer pairs are sent in all, shared
	// evenly among the requesters.
	Pairs int
	// Rate is the offered load in pairs per second over all requesters,
	// each sending on its own schedule; 0 sends as fast as the window
	// allows.
	Rate float64
	// Window is how many requests one requester may have unanswered at
	// once.
	Window int
	// Validate is the bridge's check of each message: "schema" or
	// "decode" (config's validate).
	Validate string
	// Payload pads each request's arguments with nested filler (objects,
	// arrays, numbers, strings) to about this many bytes; 0 adds none.
	Payload int
	// FailEvery makes responders answer every FailEvery-th request of
	// each requester (sequence numbers n-1, 2n-1, ...) with a failure
	// instead of a result, so that the errors are seen crossing the bridge
	// and counted; 0 never.
	FailEvery int
	// Timeout is the safety stop: when it runs out, no more requests are
	// sent, and those open get Grace to be answered.
	Timeout time.Duration
	// Instances is how many bridges carry the load, joined as one cluster
	// on a NATS server embedded in the run. Agent k connects to instance
	// k mod Instances, and a requester sends only to responders another
	// instance holds, so every pair crosses instances. With more than one,
	// Run first drives the same load through a single bridge, for the
	// report to compare.
	Instances int
	// External is the URL of a bridge running as its own process
	// (http://HOST:PORT) to drive instead of one in this process, so that
	// the load's own garbage does not land in the bridge's figures; the
	// report then has the bridge process's memory and GC pauses.
	External string
	// Spawn, when set, is the command of mcp-bridge (the program and its
	// first arguments): the run starts `serve` with it as a child, and
	// drives it as External.
	Spawn []string
	// Idle agents connect before the load, spread over the five
	// dialects, and stay idle: the report says what they cost the bridge
	// and whether a request to one of them is still answered at the
	// p50 of an unloaded bridge.
	Idle int
	// HeapProfile, when set with Idle and a bridge in its own process,
	// is a file to write the bridge's heap profile to (pprof's
	// /debug/pprof/heap, after a collection) once the idle agents have
	// introduced themselves; that of the bridge before they came is
	// written beside it, with ".before" added to its name, so that the
	// two can be compared (go tool pprof -diff_base).
	HeapProfile string
	// Logger is the bridge's logger; nil discards its logs below warn.
	Logger *slog.Logger
}

// WithDefaults returns o with its zero fields set to the defaults.
func (o Options) WithDefaults() Options {
	if o.Agents == 0 {
		o.Agents = DefaultAgents
	}
	if o.Pairs == 0 {
		o.Pairs = DefaultPairs
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.Validate == "" {
		o.Validate = DefaultValidate
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Instances == 0 {
		o.Instances = DefaultInstances
	}
	return o
}

// Check reports the first field out of range, zeros included: it checks
// options as Run will use them, after WithDefaults.
func (o Options) Check() error {
	switch {
	case o.Agents < 2:
		return fmt.Errorf("agents %d: at least 2 (a requester and a responder)", o.Agents)
	case o.Pairs < 1:
		return fmt.Errorf("pairs %d: at least 1", o.Pairs)
	case o.Rate < 0:
		return fmt.Errorf("rate %v: 0 (as fast as the window allows) or more pairs per second", o.Rate)
	case o.Window < 1:
		return fmt.Errorf("window %d: at least 1", o.Window)
	case o.Validate != "schema" && o.Validate != "decode":
		return fmt.Errorf("validate %q: schema or decode", o.Validate)
	case o.Payload < 0:
		return fmt.Errorf("payload %d: 0 or more bytes", o.Payload)
	case o.FailEvery < 0:
		return fmt.Errorf("fail-every %d: 0 (never) or more", o.FailEvery)
	case o.Timeout <= 0:
		return fmt.Errorf("timeout %v: more than 0", o.Timeout)
	case o.Instances < 1:
		return fmt.Errorf("instances %d: at least 1", o.Instances)
	case o.Idle < 0:
		return fmt.Errorf("idle %d: 0 or more agents", o.Idle)
	case o.HeapProfile != "" && (o.Idle == 0 || (o.External == "" && len(o.Spawn) == 0)):
		return fmt.Errorf("heap profile %q: taken of a bridge in its own process (external or spawned) with idle agents", o.HeapProfile)
	case o.Instances > 1 && (o.External != "" || len(o.Spawn) > 0):
		return fmt.Errorf("instances %d: a cluster runs in this process, not with an external or spawned bridge", o.Instances)
	case o.Instances > 1 && o.Agents-o.Agents/2 < 2:
		return fmt.Errorf("agents %d: at least 3 with %d instances (responders on two of them)", o.Agents, o.Instances)
	}
	return nil
}
