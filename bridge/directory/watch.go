package directory

import (
	"slices"
	"sync"
)

// ChangeKind says what changed about an agent.
type ChangeKind uint8

// The kinds of Change.
const (
	// StatusChanged: the agent's status changed (it connected: READY; it
	// went: STOPPED or UNAVAILABLE; and so on).
	StatusChanged ChangeKind = iota + 1
	// Declared: the agent declared its tools or topics, or the config did.
	Declared
	// Removed: the agent's record is gone (an HTTP-only agent forgotten).
	Removed
)

func (k ChangeKind) String() string {
	switch k {
	case StatusChanged:
		return "status"
	case Declared:
		return "declared"
	case Removed:
		return "removed"
	}
	return "unknown"
}

// Change is one change to the directory.
type Change struct {
	Kind ChangeKind
	// Agent is the agent as it is after the change.
	Agent Info
	// Previous is its status before a StatusChanged.
	Previous Status
	// Reason says why, for a status change or a removal.
	Reason string
}

// watchers are the functions told of changes.
type watchers struct {
	mu   sync.RWMutex
	next int
	fns  []watcher // in the order they began watching
}

type watcher struct {
	id int
	fn func(Change)
}

// Watch calls fn with every change from now on until stop is called. fn runs
// in the goroutine that made the change, after the directory's lock is
// released, and must not block: it may read the directory.
func (d *Directory[E]) Watch(fn func(Change)) (stop func()) {
	w := &d.watchers
	w.mu.Lock()
	defer w.mu.Unlock()
	id := w.next
	w.next++
	w.fns = append(w.fns, watcher{id, fn})
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.fns = slices.DeleteFunc(w.fns, func(x watcher) bool { return x.id == id })
	}
}

func (w *watchers) tell(c Change) {
	w.mu.RLock()
	fns := slices.Clone(w.fns)
	w.mu.RUnlock()
	for _, x := range fns {
		x.fn(c)
	}
}
