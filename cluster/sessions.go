package cluster

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// askTimeout bounds a question to the instance that holds an MCP session.
const askTimeout = 2 * time.Second

// Sessions is what the instances tell each other of the MCP face's
// sessions: an instance holds the sessions it made, answers the others'
// questions about them on <prefix>.mcp.session.<name>, and every instance
// hears on <prefix>.mcp.end that a session ended. It satisfies
// mcpface.SessionShare.
type Sessions struct{ c *Cluster }

// Sessions returns the instance's part in sharing the MCP face's sessions.
func (c *Cluster) Sessions() *Sessions { return &Sessions{c: c} }

func (s *Sessions) askSubject(name string) string { return s.c.opts.Prefix + ".mcp.session." + name }
func (s *Sessions) endSubject() string            { return s.c.opts.Prefix + ".mcp.end" }

// Name is this instance's name.
func (s *Sessions) Name() string { return s.c.opts.Name }

// Ask asks the instance holder for its record of the session id: found is
// false when holder has no such session (or is gone from the cluster); err
// says holder could not be asked (NATS is unreachable, or it did not
// answer in time).
func (s *Sessions) Ask(holder, id string) (record []byte, found bool, err error) {
	msg, err := s.c.nc.Request(s.askSubject(holder), []byte(id), askTimeout)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cluster: ask %s about MCP session %s: %w", holder, id, err)
	}
	return msg.Data, len(msg.Data) > 0, nil
}

// End tells every instance, this one too, that the session id ended.
func (s *Sessions) End(id string) error {
	if err := s.c.nc.Publish(s.endSubject(), []byte(id)); err != nil {
		return fmt.Errorf("cluster: tell the end of MCP session %s: %w", id, err)
	}
	return nil
}

// Serve answers the other instances' questions with look (the record of a
// session this instance holds, false when it has none) and gives end every
// session any instance ends, until stop.
func (s *Sessions) Serve(look func(id string) ([]byte, bool), end func(id string)) (stop func(), err error) {
	ask, err := s.c.nc.Subscribe(s.askSubject(s.c.opts.Name), func(msg *nats.Msg) {
		rec, _ := look(string(msg.Data))
		if err := msg.Respond(rec); err != nil {
			s.c.log.Warn("cluster: answer about an MCP session", "error", err)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: subscribe %s: %w", s.askSubject(s.c.opts.Name), err)
	}
	ended, err := s.c.nc.Subscribe(s.endSubject(), func(msg *nats.Msg) { end(string(msg.Data)) })
	if err != nil {
		_ = ask.Unsubscribe()
		return nil, fmt.Errorf("cluster: subscribe %s: %w", s.endSubject(), err)
	}
	if err := s.c.nc.Flush(); err != nil {
		_ = ask.Unsubscribe()
		_ = ended.Unsubscribe()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return func() {
		_ = ask.Unsubscribe()
		_ = ended.Unsubscribe()
	}, nil
}
