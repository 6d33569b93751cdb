package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// askTimeout bounds a question to the instance that holds an MCP session,
// and a message relayed to the instance that asked the client something.
const askTimeout = 2 * time.Second

// Sessions is what the instances tell each other of the MCP face's
// sessions: an instance holds the sessions it made, answers the others'
// questions about them on <prefix>.mcp.session.<name>, takes the client
// answers relayed to it on <prefix>.mcp.relay.<name>, and every instance
// hears on <prefix>.mcp.end that a session ended and on <prefix>.mcp.level
// the log level a session's client set. It satisfies mcpface.SessionShare.
type Sessions struct{ c *Cluster }

// Sessions returns the instance's part in sharing the MCP face's sessions.
func (c *Cluster) Sessions() *Sessions { return &Sessions{c: c} }

func (s *Sessions) askSubject(name string) string   { return s.c.opts.Prefix + ".mcp.session." + name }
func (s *Sessions) relaySubject(name string) string { return s.c.opts.Prefix + ".mcp.relay." + name }
func (s *Sessions) endSubject() string              { return s.c.opts.Prefix + ".mcp.end" }
func (s *Sessions) levelSubject() string            { return s.c.opts.Prefix + ".mcp.level" }

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

// Relay hands msg to the instance to and returns its reply: found is false
// when no instance of that name is in the cluster; err says it could not
// be reached (NATS is unreachable, or it did not answer in time).
func (s *Sessions) Relay(to string, msg []byte) (reply []byte, found bool, err error) {
	m, err := s.c.nc.Request(s.relaySubject(to), msg, askTimeout)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cluster: relay to %s: %w", to, err)
	}
	return m.Data, true, nil
}

// End tells every instance, this one too, that the session id ended.
func (s *Sessions) End(id string) error {
	if err := s.c.nc.Publish(s.endSubject(), []byte(id)); err != nil {
		return fmt.Errorf("cluster: tell the end of MCP session %s: %w", id, err)
	}
	return nil
}

// levelNews is what <prefix>.mcp.level carries.
type levelNews struct {
	ID    string `json:"id"`
	Level string `json:"level"`
}

// Level tells every instance, this one too, that the client of session id
// set its log level to level.
func (s *Sessions) Level(id, level string) error {
	data, err := json.Marshal(levelNews{ID: id, Level: level})
	if err != nil {
		return fmt.Errorf("cluster: the log level of MCP session %s: %w", id, err)
	}
	if err := s.c.nc.Publish(s.levelSubject(), data); err != nil {
		return fmt.Errorf("cluster: tell the log level of MCP session %s: %w", id, err)
	}
	return nil
}

// Serve, until stop, answers the other instances' questions with look (the
// record of a session this instance holds, false when it has none), gives
// end every session any instance ends and level every log level any
// instance tells, and answers what the others relay to this instance with
// relay.
func (s *Sessions) Serve(look func(id string) ([]byte, bool), end func(id string),
	level func(id, level string), relay func(msg []byte) []byte) (stop func(), err error) {
	var subs []*nats.Subscription
	stop = func() {
		for _, sub := range subs {
			_ = sub.Unsubscribe()
		}
	}
	for _, h := range []struct {
		subject string
		handle  nats.MsgHandler
	}{
		{s.askSubject(s.c.opts.Name), func(msg *nats.Msg) {
			rec, _ := look(string(msg.Data))
			if err := msg.Respond(rec); err != nil {
				s.c.log.Warn("cluster: answer about an MCP session", "error", err)
			}
		}},
		{s.relaySubject(s.c.opts.Name), func(msg *nats.Msg) {
			if err := msg.Respond(relay(msg.Data)); err != nil {
				s.c.log.Warn("cluster: answer a relayed MCP message", "error", err)
			}
		}},
		{s.endSubject(), func(msg *nats.Msg) { end(string(msg.Data)) }},
		{s.levelSubject(), func(msg *nats.Msg) {
			var n levelNews
			if err := json.Unmarshal(msg.Data, &n); err != nil || n.ID == "" {
				s.c.log.Warn("cluster: a log level of an MCP session that does not read", "data", string(msg.Data))
				return
			}
			level(n.ID, n.Level)
		}},
	} {
		sub, err := s.c.nc.Subscribe(h.subject, h.handle)
		if err != nil {
			stop()
			return nil, fmt.Errorf("cluster: subscribe %s: %w", h.subject, err)
		}
		subs = append(subs, sub)
	}
	if err := s.c.nc.Flush(); err != nil {
		stop()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return stop, nil
}
