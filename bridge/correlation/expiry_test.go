package correlation

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestExpiry: requests time out each once and never before their
// deadline; those answered first never do; the timer rests once nothing is
// open, and the next request arms it again.
func TestExpiry(t *testing.T) {
	tb := NewTable[*requester, *agent](0)
	a, s := &agent{id: "a"}, &requester{"s"}
	var mu sync.Mutex
	var order []int
	late := map[int]time.Duration{}
	done := make(chan struct{}, 64)
	start := time.Now()
	limits := []time.Duration{60, 20, 40, 5, 80, 30, 10, 50} // milliseconds, opened in this order
	var reqs []*req
	index := map[*req]int{}
	fired := make(chan struct{})
	tb.OnExpiry(func(p *req, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		i, ok := index[p]
		if !ok { // opened after the timer rested
			close(fired)
			return
		}
		if d != limits[i]*time.Millisecond {
			t.Errorf("request %d expired with the limit %v, want %v", i, d, limits[i]*time.Millisecond)
		}
		order = append(order, i)
		late[i] = time.Since(start) - d
		done <- struct{}{}
	})
	for i, ms := range limits {
		p := &req{Requester: s, Receiver: a}
		mu.Lock()
		index[p] = i
		mu.Unlock()
		tb.Open(p, ms*time.Millisecond)
		reqs = append(reqs, p)
	}
	// Answered in time: the 40 ms and 80 ms requests never time out.
	for _, i := range []int{2, 4} {
		if !tb.Take(reqs[i]) {
			t.Fatalf("request %d was closed before its answer", i)
		}
	}
	for range len(limits) - 2 {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("timed out: %v", order)
		}
	}
	select {
	case <-done:
		t.Fatal("an answered request timed out")
	case <-time.After(100 * time.Millisecond):
	}
	mu.Lock()
	// Each expiry runs in its own goroutine, so their order is not fixed:
	// compare the set.
	got := slices.Clone(order)
	slices.Sort(got)
	if want := []int{0, 1, 3, 5, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("timed out %v, want %v", order, want)
	}
	for i, d := range late {
		if d < 0 {
			t.Errorf("request %d (%v) timed out %v early", i, limits[i]*time.Millisecond, -d)
		}
	}
	mu.Unlock()
	if n, due := tb.Count(), tb.dueCount(); n != 0 || due != 0 {
		t.Errorf("%d open, %d due after every request closed", n, due)
	}
	// The timer rests once nothing is open...
	deadline := time.Now().Add(10 * time.Second)
	for tb.isArmed() {
		if time.Now().After(deadline) {
			t.Fatal("the timer is still armed with nothing open")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// ...and the next request arms it again.
	tb.Open(&req{Requester: s, Receiver: a}, time.Millisecond)
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("a request opened after the timer rested never timed out")
	}
}

func (t *Table[R, V]) isArmed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.armed.IsZero()
}

func (t *Table[R, V]) dueCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.due)
}

// TestDueHeap: whatever is pushed and removed, the heap gives the
// remaining requests soonest first, and each knows its place.
func TestDueHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Now()
	for round := range 200 {
		var h dueHeap[*requester, *agent]
		var in []*req
		for range rng.IntN(40) {
			p := &req{deadline: base.Add(time.Duration(rng.IntN(20)) * time.Millisecond)}
			h.push(p)
			in = append(in, p)
			if len(in) > 0 && rng.IntN(3) == 0 {
				k := rng.IntN(len(in))
				h.remove(in[k])
				if in[k].at != -1 {
					t.Fatalf("round %d: a removed request keeps place %d", round, in[k].at)
				}
				h.remove(in[k]) // a second removal changes nothing
				in = slices.Delete(in, k, k+1)
			}
		}
		for i, p := range h {
			if p.at != i {
				t.Fatalf("round %d: request at %d says %d", round, i, p.at)
			}
		}
		slices.SortFunc(in, func(x, y *req) int { return x.deadline.Compare(y.deadline) })
		for _, want := range in {
			p := h[0]
			if !p.deadline.Equal(want.deadline) {
				t.Fatalf("round %d: first due at %v, want %v", round, p.deadline.Sub(base), want.deadline.Sub(base))
			}
			h.remove(p)
		}
		if len(h) != 0 {
			t.Fatalf("round %d: %d left", round, len(h))
		}
	}
}

// TestOnExpiry: a request whose time is up is handed to the table's
// handler with its time limit, once, and closed; one answered in time
// never is.
func TestOnExpiry(t *testing.T) {
	type expiry struct {
		p     *req
		limit time.Duration
	}
	tb := NewTable[*requester, *agent](0)
	handled := make(chan expiry, 8)
	tb.OnExpiry(func(p *req, limit time.Duration) { handled <- expiry{p, limit} })
	a, s := &agent{id: "a"}, &requester{"s"}
	timedOut := &req{Requester: s, Receiver: a}
	tb.Open(timedOut, time.Millisecond)
	answered := &req{Requester: s, Receiver: a}
	tb.Open(answered, 2*time.Millisecond)
	if !tb.Take(answered) {
		t.Fatal("the request was closed before its answer")
	}
	select {
	case e := <-handled:
		if e.p != timedOut || e.limit != time.Millisecond {
			t.Errorf("handler got %p (%v), want %p (1ms)", e.p, e.limit, timedOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was never told")
	}
	select {
	case e := <-handled:
		t.Errorf("a second expiry: %p", e.p)
	case <-time.After(50 * time.Millisecond):
	}
	if n := tb.Count(); n != 0 {
		t.Errorf("%d requests open, want none", n)
	}
}
