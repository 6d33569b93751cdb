package bridge

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// tables are the metrics of the bridge's bounded tables (config memory:
// and queue:); nil fields count nothing.
type tables struct {
	pending, queue *metrics.Table
}

// tableMetrics registers the bounds, sizes and drops of the dedupe
// table, its kept answers, the open requests and the queues.
func (b *Bridge) tableMetrics() error {
	var err error
	if b.dedupe != nil {
		if err = b.dedupe.Count(b.metrics); err != nil {
			return err
		}
	}
	if b.tables.pending, err = b.metrics.Table(metrics.TablePending, b.pending.Limit(),
		func() float64 { return float64(b.pending.Count()) }); err != nil {
		return err
	}
	b.tables.queue, err = b.metrics.Table(metrics.TableQueue, b.budget.Limit(), func() float64 { return float64(b.budget.Len()) })
	return err
}

// evicted answers the requester of p, the oldest open request, closed to
// make room for a new one past the pending_requests bound.
func (b *Bridge) evicted(p *pending) {
	b.tables.pending.Dropped(1)
	b.givenUp(p)
	b.fail(p, canonical.ErrUnavailable, fmt.Sprintf("the bridge holds too many open requests (%d, config memory.pending_requests); the oldest, this one, was given up", b.pending.Limit()))
}
