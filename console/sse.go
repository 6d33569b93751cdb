package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// keepalive is how often an idle stream sends a comment, so that proxies
// and browsers keep it open.
const keepalive = 15 * time.Second

// stream is one live server-sent event stream.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// openStream starts a server-sent event stream on w, taking one of the
// console's viewer slots; release gives it back. With every slot taken,
// it answers 503 and reports false.
func (c *Console) openStream(w http.ResponseWriter) (s *stream, release func(), ok bool) {
	select {
	case c.viewers <- struct{}{}:
	default:
		fail(w, http.StatusServiceUnavailable, "%d live views are open already (ui.viewers): close one and try again", cap(c.viewers))
		return nil, nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s = &stream{w: w, rc: http.NewResponseController(w)}
	_ = s.rc.Flush()
	return s, func() { <-c.viewers }, true
}

// send writes one event of kind with v as its JSON data, and id when it
// is not empty.
func (s *stream) send(kind, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("console: event %s: %w", kind, err)
	}
	if id != "" {
		if _, err := fmt.Fprintf(s.w, "id: %s\n", id); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", kind, data); err != nil {
		return err
	}
	return s.rc.Flush()
}

// ping writes a comment, to keep an idle stream open.
func (s *stream) ping() error {
	if _, err := fmt.Fprint(s.w, ": keepalive\n\n"); err != nil {
		return err
	}
	return s.rc.Flush()
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
