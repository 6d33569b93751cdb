package console

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	dto "github.com/prometheus/client_model/go"
)

// The agents view: the bridge's register of agents, with each agent's
// queue depth and circuit breaker from the metrics, listed and streamed
// as it changes.

// How the agents' stream follows changes: a burst of changes is sent
// once, settle after its first; queue depths, which change without
// telling, are looked at every refresh.
const (
	settle  = 150 * time.Millisecond
	refresh = 2 * time.Second
)

// agentWatch tells the agents' streams that the register changed.
type agentWatch struct {
	mu      sync.Mutex
	changed chan struct{} // closed at the next change
	stopFn  func()
}

func watchAgents(b *bridge.Bridge) *agentWatch {
	w := &agentWatch{changed: make(chan struct{})}
	w.stopFn = b.Watch(func(bridge.Change) {
		w.mu.Lock()
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	})
	return w
}

// next returns a channel closed at the next change.
func (w *agentWatch) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

func (w *agentWatch) stop() { w.stopFn() }

// agentRow is an agent as the agents table shows it.
type agentRow struct {
	ID        string     `json:"id"`
	Dialect   string     `json:"dialect"`
	Transport string     `json:"transport"`
	Status    string     `json:"status"`
	Instance  string     `json:"instance,omitempty"`
	Connected bool       `json:"connected"`
	Since     *time.Time `json:"since,omitempty"`
	HTTPOnly  bool       `json:"http_only,omitempty"`
	Tools     []string   `json:"tools"`
	Topics    []string   `json:"topics"`
	// Queue is how many messages wait in its outbound queue
	// (agent_queue_size); Breaker its circuit breaker (closed, half-open,
	// open: bridge_circuit_state).
	Queue   int    `json:"queue"`
	Breaker string `json:"breaker"`
}

// breakerStates name bridge_circuit_state's values.
var breakerStates = []string{"closed", "half-open", "open"}

// agentRows describes the agents, sorted by id.
func (c *Console) agentRows() []agentRow {
	queues, breakers := c.agentGauges()
	infos := c.b.Agents("")
	rows := make([]agentRow, 0, len(infos))
	for _, a := range infos {
		r := agentRow{ID: a.ID, Dialect: a.Dialect, Transport: a.Transport, Status: string(a.Status), Instance: a.Instance,
			Connected: a.Connected, Since: a.Since, HTTPOnly: a.HTTPOnly, Tools: a.Capabilities, Topics: a.Topics,
			Queue: queues[a.ID], Breaker: "closed"}
		if s, ok := breakers[a.ID]; ok && s >= 0 && s < len(breakerStates) {
			r.Breaker = breakerStates[s]
		}
		rows = append(rows, r)
	}
	return rows
}

// agentGauges reads each agent's queue depth and breaker state from the
// metrics /metrics serves.
func (c *Console) agentGauges() (queues, breakers map[string]int) {
	queues, breakers = map[string]int{}, map[string]int{}
	families, err := c.metrics.Gather()
	if err != nil {
		c.log.Warn("console: gathering the metrics", "error", err) // what was gathered is used
	}
	for _, mf := range families {
		var into map[string]int
		switch mf.GetName() {
		case "agent_queue_size":
			into = queues
		case "bridge_circuit_state":
			into = breakers
		default:
			continue
		}
		for _, m := range mf.GetMetric() {
			if id := label(m, "agent_id"); id != "" {
				into[id] = int(m.GetGauge().GetValue())
			}
		}
	}
	return queues, breakers
}

// label returns the value of a metric's label name.
func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// agentsJSON is the body of the agents list and of its events.
type agentsJSON struct {
	Agents []agentRow `json:"agents"`
}

// agentList answers GET /ui/api/agents.
func (c *Console) agentList(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, agentsJSON{c.agentRows()})
}

// agentEvents answers GET /ui/api/agents/events: an "agents" event with
// the whole list at once, and again whenever it changes (an agent came,
// went, declared its tools, changed status, its queue or breaker moved).
func (c *Console) agentEvents(w http.ResponseWriter, r *http.Request) {
	s, release, ok := c.openStream(w)
	if !ok {
		return
	}
	defer release()
	var last []byte
	send := func() error {
		body := agentsJSON{c.agentRows()}
		data, err := json.Marshal(body)
		if err != nil || bytes.Equal(data, last) {
			return err
		}
		last = data
		return s.send("agents", "", body)
	}
	tick := time.NewTicker(refresh)
	defer tick.Stop()
	idle := time.Duration(0)
	for {
		changed := c.agents.next()
		if send() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-c.ctx.Done():
			return
		case <-changed:
			idle = 0
			select { // let a burst of changes settle
			case <-time.After(settle):
			case <-r.Context().Done():
				return
			}
		case <-tick.C:
			if idle += refresh; idle >= keepalive {
				idle = 0
				if s.ping() != nil {
					return
				}
			}
		}
	}
}
