package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// The bounded tables, as the table label of bridge_table_* names them.
const (
	TableDedupeEntries = "dedupe_entries"   // messages remembered for duplicate suppression
	TableDedupeAnswers = "dedupe_answers"   // bytes of answers kept for repeated requests
	TablePending       = "pending_requests" // requests open at once
	TableQueue         = "queue"            // messages queued for all agents
	TableA2ATasks      = "a2a_tasks"        // tasks the A2A face keeps
	TableMCPSessions   = "mcp_sessions"     // sessions the MCP face knows
)

// Table is the metrics of one bounded table: bridge_table_limit{table},
// bridge_table_size{table} and bridge_table_dropped_total{table}.
type Table struct {
	dropped prometheus.Counter
}

// Counter returns the table's bridge_table_dropped_total.
func (t *Table) Counter() prometheus.Counter { return t.dropped }

// Dropped counts n entries that went past the table's bound: the oldest
// dropped, or for the queue the newest refused.
func (t *Table) Dropped(n int) { t.dropped.Add(float64(n)) }

// Table returns the metrics of the bounded table name, whose bound is
// limit and whose size, read when scraped, size tells.
func (m *Metrics) Table(name string, limit int, size func() float64) (*Table, error) {
	return NewTable(m.reg, name, limit, size)
}

// NewTable returns the metrics of the bounded table name, as Table does,
// registered with r (nil: nowhere), for a table kept outside the core.
func NewTable(r prometheus.Registerer, name string, limit int, size func() float64) (*Table, error) {
	labels := prometheus.Labels{"table": name}
	limitGauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "bridge_table_limit", ConstLabels: labels,
		Help: "The bound of a table the bridge keeps (config memory: and queue:), in its entries or bytes."})
	limitGauge.Set(float64(limit))
	sizeGauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bridge_table_size", ConstLabels: labels,
		Help: "How much a table the bridge keeps holds, in its entries or bytes."}, size)
	t := &Table{dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "bridge_table_dropped_total", ConstLabels: labels,
		Help: "Entries that went past a table's bound: the oldest dropped, or for the queue the newest refused."})}
	if r == nil {
		return t, nil
	}
	for _, c := range []prometheus.Collector{limitGauge, sizeGauge, t.dropped} {
		if err := r.Register(c); err != nil {
			return nil, errors.Join(errors.New("bridge: register table metrics"), err)
		}
	}
	return t, nil
}
