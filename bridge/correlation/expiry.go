package correlation

import "time"

// A request's time limit is kept by one runtime timer for the whole table,
// armed for the soonest deadline, rather than by a timer of its own: adding
// a timer to an empty timer heap wakes the thread blocked in the network
// poller so that it can shorten its sleep, which cost about 6 us of CPU a
// round trip on the hop benchmark (docs/performance.md, "Where the time goes"). A
// request answered leaves the heap of deadlines and the timer as it is; a
// new request re-arms it only when it is due sooner than the timer, which
// with one default timeout for all requests is never while any is open.
// (A sweeper sleeping outside the runtime's timers every 10 ms, as the
// bridge's background loops do with internal/sleep, was tried first: it
// cost 30 us of CPU a round trip more, not less.)

// dueLocked records that p times out at deadline.
func (t *Table[R, V]) dueLocked(p *Request[R, V], deadline time.Time) {
	p.deadline = deadline
	t.due.push(p)
	t.armLocked(deadline)
}

// armLocked makes the table's timer fire by deadline.
func (t *Table[R, V]) armLocked(deadline time.Time) {
	switch {
	case t.timer == nil:
		t.timer = time.AfterFunc(time.Until(deadline), t.sweep)
	case t.armed.IsZero() || deadline.Before(t.armed):
		t.timer.Reset(time.Until(deadline))
	default:
		return
	}
	t.armed = deadline
}

// sweep closes the requests whose time is up, hands each to the table's
// expiry handler in a goroutine of its own, and re-arms the timer for the
// next deadline, if any.
func (t *Table[R, V]) sweep() {
	now := time.Now()
	var expired []*Request[R, V]
	t.mu.Lock()
	for len(t.due) > 0 && !t.due[0].deadline.After(now) {
		p := t.due[0]
		t.removeLocked(p, true)
		expired = append(expired, p)
	}
	t.armed = time.Time{}
	if len(t.due) > 0 {
		t.armLocked(t.due[0].deadline)
	}
	onExpiry := t.onExpiry
	t.mu.Unlock()
	if onExpiry == nil {
		return
	}
	for _, p := range expired {
		go onExpiry(p, p.limit)
	}
}

// dueHeap orders open requests by deadline, soonest first; each request
// knows its place (Request.at), so that one answered leaves at once.
type dueHeap[R comparable, V Receiver] []*Request[R, V]

func (h *dueHeap[R, V]) push(p *Request[R, V]) {
	*h = append(*h, p)
	p.at = len(*h) - 1
	h.up(p.at)
}

// remove takes p out of the heap, if it is in it.
func (h *dueHeap[R, V]) remove(p *Request[R, V]) {
	i := p.at
	if i < 0 || i >= len(*h) || (*h)[i] != p {
		return
	}
	last := len(*h) - 1
	h.swap(i, last)
	(*h)[last] = nil
	*h = (*h)[:last]
	p.at = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

func (h dueHeap[R, V]) less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }

func (h dueHeap[R, V]) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].at, h[j].at = i, j
}

func (h dueHeap[R, V]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

func (h dueHeap[R, V]) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h.swap(i, j)
		i = j
	}
}
