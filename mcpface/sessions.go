package mcpface

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// MCP sessions (2025-11-25 and before; 2026-07-28 has none). The face
// tracks the sessions it makes, so that a DELETE ends one and a request
// with an id it never made, or one that ended, is answered 404. In a
// cluster (ShareSessions) the instance that answered initialize holds the
// session's record (the client's name, capabilities and protocol version);
// another instance that serves one of its requests asks the holder, keeps
// the answer for sessionRecheck, and hears at once when any instance ends
// the session.

// SessionShare is where the sessions of one instance of a cluster are
// known to the others (cluster.Sessions).
type SessionShare interface {
	// Name is this instance's name, unique in the cluster.
	Name() string
	// Ask asks the instance holder for its record of session id.
	Ask(holder, id string) (record []byte, found bool, err error)
	// End tells every instance, this one too, that session id ended.
	End(id string) error
	// Level tells every instance, this one too, the log level the client
	// of session id set.
	Level(id, level string) error
	// Relay hands msg to the instance to and returns its reply; found is
	// false when there is no such instance.
	Relay(to string, msg []byte) (reply []byte, found bool, err error)
	// Serve, until stop, answers the others' questions with look, gives
	// end every session that ends and level every log level told, and
	// answers what is relayed to this instance with relay.
	Serve(look func(id string) ([]byte, bool), end func(id string),
		level func(id, level string), relay func(msg []byte) []byte) (stop func(), err error)
}

// The default bounds of the table of sessions (Options.Sessions,
// Options.SessionIdle): past defaultSessions the one used least lately
// goes, and a session no request used for defaultSessionIdle ends. Another
// instance's session is asked about again after sessionRecheck.
const (
	defaultSessions    = 10000
	defaultSessionIdle = time.Hour
	sessionRecheck     = 2 * time.Second
)

// sessionRecord is what the instance that answered a session's initialize
// keeps of it, and tells the others.
type sessionRecord struct {
	Client       mcp.Implementation     `json:"client"`
	Capabilities mcp.ClientCapabilities `json:"capabilities"`
	Version      string                 `json:"version,omitempty"`
	Level        mcp.LoggingLevel       `json:"level,omitempty"` // set by logging/setLevel on any instance
}

// sessionEntry is one session in the table.
type sessionEntry struct {
	rec     sessionRecord
	mine    bool      // this instance holds it
	ended   bool      // DELETE, idle or the holder ended it: 404 from now on
	used    time.Time // its last request
	checked time.Time // when its holder last confirmed it (another's)
}

// sessionTable is the face's mcp-go SessionIdManager: the sessions the
// face knows, by id.
type sessionTable struct {
	closeLocal func(id string) // ends what mcp-go holds of a session here
	max        int             // sessions kept at most
	idle       time.Duration   // a session unused this long ends
	dropped    func(n int)     // counts sessions forgotten past max

	mu      sync.Mutex
	share   SessionShare // nil: alone
	entries map[string]*sessionEntry
	streams map[string]map[*streamRef]bool // the GET streams open here, by session
	swept   time.Time
}

// streamRef is one GET stream, ended by cancel.
type streamRef struct{ cancel context.CancelFunc }

// newSessionTable returns a table of at most limit sessions (0: the
// default), each ending after idle unused (0: the default).
func newSessionTable(closeLocal func(id string), limit int, idle time.Duration) *sessionTable {
	if limit <= 0 {
		limit = defaultSessions
	}
	if idle <= 0 {
		idle = defaultSessionIdle
	}
	return &sessionTable{closeLocal: closeLocal, max: limit, idle: idle, dropped: func(int) {},
		entries: map[string]*sessionEntry{}, streams: map[string]map[*streamRef]bool{}}
}

// Generate makes a new session's id (server.SessionIdManager): random, and
// in a cluster followed by the instance's name, which holds it.
func (t *sessionTable) Generate() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := "s-" + hex.EncodeToString(b[:])
	now := time.Now()
	t.mu.Lock()
	if t.share != nil {
		id += "." + t.share.Name()
	}
	t.entries[id] = &sessionEntry{mine: true, used: now}
	gone := t.bound(now)
	t.mu.Unlock()
	t.endLocally(gone)
	return id
}

// Validate says whether id is a session that is on (server.SessionIdManager):
// terminated when it ended, an error when it is unknown.
func (t *sessionTable) Validate(id string) (isTerminated bool, err error) {
	now := time.Now()
	t.mu.Lock()
	e := t.entries[id]
	share := t.share
	switch {
	case e != nil && e.ended:
		t.mu.Unlock()
		return true, nil
	case e != nil && (e.mine || now.Sub(e.checked) < sessionRecheck):
		e.used = now
		t.mu.Unlock()
		return false, nil
	}
	t.mu.Unlock()
	holder := holderOf(id)
	if share == nil || holder == "" || holder == share.Name() {
		return false, fmt.Errorf("mcp: session %q: unknown", id)
	}
	data, found, err := share.Ask(holder, id)
	var gone []string
	defer func() { t.endLocally(gone) }()
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur := t.entries[id]; cur != nil && cur.ended {
		return true, nil // it ended while the holder was asked
	}
	switch {
	case err != nil && e != nil:
		// NATS trouble does not end a session this instance has served.
		e.used = now
		return false, nil
	case err != nil:
		return false, fmt.Errorf("mcp: session %q: %w", id, err)
	case !found && e != nil:
		e.ended = true
		return true, nil
	case !found:
		return false, fmt.Errorf("mcp: session %q: unknown to its instance %s", id, holder)
	}
	var rec sessionRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return false, fmt.Errorf("mcp: session %q: the record of instance %s: %w", id, holder, err)
	}
	t.entries[id] = &sessionEntry{rec: rec, used: now, checked: now}
	gone = t.bound(now)
	return false, nil
}

// Terminate ends session id (server.SessionIdManager), here and, in a
// cluster, on every instance.
func (t *sessionTable) Terminate(id string) (isNotAllowed bool, err error) {
	t.mu.Lock()
	e := t.entries[id]
	if e != nil && e.ended {
		t.mu.Unlock()
		return false, nil
	}
	if e == nil {
		e = &sessionEntry{}
		t.remember(id, e)
	}
	e.ended, e.used = true, time.Now()
	share := t.share
	t.mu.Unlock()
	t.cancelStreams(id)
	if share != nil {
		if err := share.End(id); err != nil {
			return false, err
		}
	}
	return false, nil
}

// ended is a session that ended on another instance (or an echo of one
// that ended here): it ends here too.
func (t *sessionTable) ended(id string) {
	t.mu.Lock()
	e := t.entries[id]
	if e != nil && e.ended {
		t.mu.Unlock()
		return
	}
	if e == nil {
		e = &sessionEntry{}
		t.remember(id, e)
	}
	e.ended, e.used = true, time.Now()
	t.mu.Unlock()
	t.endLocally([]string{id})
}

// remember keeps e, the entry of a session id this table did not know
// that ended, while the table has room: it spares asking the holder again,
// and it never makes a session that is on give way. t.mu is held.
func (t *sessionTable) remember(id string, e *sessionEntry) {
	if len(t.entries) < t.max {
		t.entries[id] = e
	}
}

// endLocally ends what this instance holds of the sessions ids: their GET
// streams and mcp-go's state.
func (t *sessionTable) endLocally(ids []string) {
	for _, id := range ids {
		t.cancelStreams(id)
		t.closeLocal(id)
	}
}

// bound ends the sessions idle for t.idle, forgets those that ended as
// long ago, and forgets the ones used least lately past t.max. It
// returns the sessions that were on, for endLocally. t.mu is held.
func (t *sessionTable) bound(now time.Time) (gone []string) {
	if now.Sub(t.swept) > t.idle/60 {
		t.swept = now
		for id, e := range t.entries {
			if now.Sub(e.used) < t.idle {
				continue
			}
			if e.ended {
				delete(t.entries, id)
				continue
			}
			e.ended, e.used = true, now
			gone = append(gone, id)
		}
	}
	for len(t.entries) > t.max {
		oldest, at := "", now
		for id, e := range t.entries {
			if !e.used.After(at) {
				oldest, at = id, e.used
			}
		}
		if !t.entries[oldest].ended {
			gone = append(gone, oldest)
		}
		delete(t.entries, oldest)
		t.dropped(1)
	}
	return gone
}

// size is how many sessions the table holds.
func (t *sessionTable) size() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return float64(len(t.entries))
}

// look is this instance's record of a session it holds, for another
// instance that asks.
func (t *sessionTable) look(id string) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[id]
	if e == nil || !e.mine || e.ended {
		return nil, false
	}
	data, err := json.Marshal(e.rec)
	if err != nil {
		return nil, false
	}
	return data, true
}

// initialized records what a session's initialize said of its client.
func (t *sessionTable) initialized(id string, rec sessionRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entries[id]; e != nil && e.mine {
		e.rec = rec
	}
}

// record is the table's record of session id.
func (t *sessionTable) record(id string) (sessionRecord, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[id]
	if e == nil || e.ended {
		return sessionRecord{}, false
	}
	return e.rec, true
}

// stream notes a GET stream of session id, ended by cancel when the
// session ends; done forgets it.
func (t *sessionTable) stream(id string, cancel context.CancelFunc) (done func()) {
	ref := &streamRef{cancel: cancel}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.streams[id] == nil {
		t.streams[id] = map[*streamRef]bool{}
	}
	t.streams[id][ref] = true
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.streams[id], ref)
		if len(t.streams[id]) == 0 {
			delete(t.streams, id)
		}
	}
}

// streaming says whether a GET stream of session id is open here.
func (t *sessionTable) streaming(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.streams[id]) > 0
}

// cancelStreams ends the GET streams of session id open here.
func (t *sessionTable) cancelStreams(id string) {
	t.mu.Lock()
	refs := t.streams[id]
	delete(t.streams, id)
	t.mu.Unlock()
	for ref := range refs {
		ref.cancel()
	}
}

// holderOf is the instance that holds session id; "" for a session made
// alone.
func holderOf(id string) string {
	_, holder, _ := strings.Cut(id, ".")
	return holder
}

// shared is where the sessions are shared with the cluster; nil alone.
func (t *sessionTable) shared() SessionShare {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.share
}

// leveled records the log level the client of session id set, on this
// instance or another.
func (t *sessionTable) leveled(id, level string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entries[id]; e != nil && !e.ended {
		e.rec.Level = mcp.LoggingLevel(level)
	}
}

// level is the log level the client of session id set, "" if none.
func (t *sessionTable) level(id string) mcp.LoggingLevel {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entries[id]; e != nil && !e.ended {
		return e.rec.Level
	}
	return ""
}
