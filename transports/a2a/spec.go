// Package a2a makes an A2A agent (the Agent2Agent protocol, v1.0) an agent
// of the bridge: the bridge is its A2A client (a2a-go's). It resolves the
// agent's card, picks a binding the card offers (JSON-RPC first, then
// HTTP+JSON) and declares one tool per skill. A request to the agent, from
// any dialect, becomes a SendMessage: a user message whose one data part
// holds the arguments and whose metadata names the skill. The answer comes
// back as canonical envelopes: a message or a completed task is a result;
// a failed, rejected or canceled task a failure; a task that needs input a
// needs-input, whose answer continues the same task; a task still working
// is followed (SendStreamingMessage where the card says streaming, else
// GetTask polling) and each of its status updates is progress. A request
// the bridge gives up is cancelled with CancelTask. The card is resolved
// again every WatchEvery: while it does not resolve (or a call cannot reach
// the agent) the agent is UNAVAILABLE, and it is resolved again with a
// backoff.
package a2a

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Spec says how to reach one A2A agent.
type Spec struct {
	// ID is the agent's id.
	ID string
	// Card is the URL of the agent's card
	// (http://host/.well-known/agent-card.json).
	Card string
	// Headers are HTTP headers sent with every request: the card's and
	// every call's.
	Headers map[string]string
	// BackoffMin and BackoffMax bound the wait before the card is resolved
	// again after it did not resolve or the agent was lost (defaults
	// DefaultBackoffMin, DefaultBackoffMax).
	BackoffMin, BackoffMax time.Duration
	// WatchEvery is how often the card is resolved again while the agent
	// is connected: one that does not resolve loses the agent (default
	// DefaultWatchEvery). A card whose skills changed is declared again;
	// one whose interfaces or capabilities changed connects anew.
	WatchEvery time.Duration
	// PollEvery is the longest wait between two GetTask calls following a
	// task of an agent that does not stream (default DefaultPollEvery); the
	// first waits are shorter.
	PollEvery time.Duration
	// CancelGrace is how long a request the bridge gave up before its task
	// was known waits for the task's id, to cancel it, before the call is
	// abandoned (default DefaultCancelGrace).
	CancelGrace time.Duration
	// Concurrency bounds the calls in flight to the agent (default
	// DefaultConcurrency).
	Concurrency int
	// HTTP is the client of every request (nil: a client with no time
	// limit of its own; each call has the bridge's).
	HTTP *http.Client
	// Logger receives the transport's lines (nil: slog.Default()).
	Logger *slog.Logger
}

// Dialect is the label an A2A agent has in the directory and logs.
const Dialect = "a2a"

// The defaults of Spec.
const (
	DefaultBackoffMin  = 100 * time.Millisecond
	DefaultBackoffMax  = 10 * time.Second
	DefaultWatchEvery  = 5 * time.Second
	DefaultPollEvery   = time.Second
	DefaultCancelGrace = 5 * time.Second
	DefaultConcurrency = 64
)

func (s Spec) withDefaults() Spec {
	if s.BackoffMin <= 0 {
		s.BackoffMin = DefaultBackoffMin
	}
	if s.BackoffMax < s.BackoffMin {
		s.BackoffMax = max(DefaultBackoffMax, s.BackoffMin)
	}
	if s.WatchEvery <= 0 {
		s.WatchEvery = DefaultWatchEvery
	}
	if s.PollEvery <= 0 {
		s.PollEvery = DefaultPollEvery
	}
	if s.CancelGrace <= 0 {
		s.CancelGrace = DefaultCancelGrace
	}
	if s.Concurrency <= 0 {
		s.Concurrency = DefaultConcurrency
	}
	if s.HTTP == nil {
		s.HTTP = &http.Client{}
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	return s
}

// cardBase splits a card's URL into the base and the path the SDK's
// resolver takes (a query is not kept: the resolver has none).
func cardBase(card string) (base, path string, err error) {
	u, err := url.Parse(card)
	if err != nil {
		return "", "", err
	}
	path = u.Path
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	return u.String(), path, nil
}
