//go:build !linux

package ws

import "errors"

// newPoller: elsewhere than Linux, connections do not park; each keeps
// its reading goroutine.
func newPoller() (poller, error) {
	return nil, errors.New("ws: parking connections needs Linux's epoll")
}
