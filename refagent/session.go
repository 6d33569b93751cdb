package refagent

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// writer sends one frame on a transport. Writes are serialized by the
// session; a write that cannot go on fails when the transport closes.
type writer interface {
	write(frame []byte) error
}

// session is the agent serving one transport, from Connect or ServeStdio
// until it ends: it sends the introduction, hands received frames to the
// agent, answers requests concurrently and serializes what it writes.
type session struct {
	a    *Agent
	w    writer
	turn chan struct{} // holds a token while a frame is written

	ctx    context.Context // the requests' context; ends with the session
	cancel context.CancelFunc
	wg     sync.WaitGroup // requests being answered
}

// errBusy refuses a second transport while the agent serves one.
var errBusy = errors.New("already serving a transport")

// open makes a the server of transport w until the session is closed.
func (a *Agent) open(ctx context.Context, w writer) (*session, error) {
	sctx, cancel := context.WithCancel(ctx)
	s := &session{a: a, w: w, turn: make(chan struct{}, 1), ctx: sctx, cancel: cancel}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sess != nil {
		cancel()
		return nil, fmt.Errorf("agent %s: %w", a.id, errBusy)
	}
	a.sess = s
	return s, nil
}

// greet sends the introduction and the subscriptions, then marks the agent
// ready.
func (s *session) greet() error {
	for _, f := range append(s.a.Introduction(), s.a.subscriptions()...) {
		if err := s.send(s.ctx, f); err != nil {
			return fmt.Errorf("agent %s: introducing itself: %w", s.a.id, err)
		}
	}
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	if s.a.sess == s && !s.a.isReady {
		close(s.a.ready)
		s.a.isReady = true
	}
	return nil
}

// send writes one frame, waiting for its turn until ctx ends, and tells the
// observer. Once begun, a write is not abandoned: a caller giving up must
// not cut a frame in half.
func (s *session) send(ctx context.Context, frame []byte) error {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ctx.Done():
		return errClosed
	}
	defer func() { <-s.turn }()
	if s.ctx.Err() != nil {
		return errClosed // the turn came as the session ended
	}
	if err := s.w.write(frame); err != nil {
		return err
	}
	s.a.observe(Sent, frame)
	return nil
}

// deliver takes one received frame (the session takes ownership of it).
// Requests are answered on their own goroutine, so that a slow one holds up
// nothing else.
func (s *session) deliver(frame []byte) {
	env, refusal := s.a.receive(frame)
	var first [][]byte
	var w work
	switch {
	case refusal != nil:
		first = refusal
	case env != nil:
		first, w = s.a.take(env)
	}
	for _, f := range first {
		if err := s.send(s.ctx, f); err != nil {
			s.a.log.Warn("agent: cannot send a reply", "error", err.Error())
			return
		}
	}
	if w == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for _, f := range w(s.ctx) {
			if err := s.send(s.ctx, f); err != nil {
				s.a.log.Warn("agent: cannot send a reply", "error", err.Error())
				return
			}
		}
	}()
}

// close ends the session. With drain, the requests in hand are answered
// first, unless ctx ends; then the rest are cancelled, and calls still
// waiting for a reply fail.
func (s *session) close(ctx context.Context, drain bool) {
	if drain {
		done := make(chan struct{})
		go func() {
			s.wg.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	s.cancel()
	s.wg.Wait()
	s.a.mu.Lock()
	s.a.sess = nil
	if s.a.isReady {
		s.a.ready = make(chan struct{})
		s.a.isReady = false
	}
	s.a.mu.Unlock()
	s.a.failCalls(errClosed)
}
