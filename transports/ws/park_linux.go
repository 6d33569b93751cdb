package ws

import (
	"fmt"
	"syscall"
	"time"
)

// epoller is the parker's poller on Linux: one epoll instance. A socket
// is armed one-shot, so that it is reported once per park; it may be in
// the Go runtime's own epoll too, which the kernel allows.
type epoller struct {
	fd     int
	events []syscall.EpollEvent
}

func newPoller() (poller, error) {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("ws: epoll for parked connections: %w", err)
	}
	return &epoller{fd: fd}, nil
}

func (e *epoller) arm(fd uintptr, id uint64, first bool) error {
	ev := syscall.EpollEvent{
		Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | syscall.EPOLLONESHOT,
		// The event's data is the connection's id, never its socket's
		// number, which a later socket may take.
		Fd:  int32(uint32(id)),
		Pad: int32(uint32(id >> 32)),
	}
	op := syscall.EPOLL_CTL_MOD
	if first {
		op = syscall.EPOLL_CTL_ADD
	}
	if err := syscall.EpollCtl(e.fd, op, int(fd), &ev); err != nil {
		return fmt.Errorf("ws: epoll_ctl of a parked connection: %w", err)
	}
	return nil
}

func (e *epoller) disarm(fd uintptr) error {
	if err := syscall.EpollCtl(e.fd, syscall.EPOLL_CTL_DEL, int(fd), nil); err != nil {
		return fmt.Errorf("ws: epoll_ctl of a closing connection: %w", err)
	}
	return nil
}

func (e *epoller) wait(ids []uint64, timeout time.Duration) (int, error) {
	if len(e.events) < len(ids) {
		e.events = make([]syscall.EpollEvent, len(ids))
	}
	n, err := syscall.EpollWait(e.fd, e.events[:len(ids)], int(timeout/time.Millisecond))
	switch {
	case err == syscall.EINTR:
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("ws: epoll_wait for parked connections: %w", err)
	}
	for i, ev := range e.events[:n] {
		ids[i] = uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
	}
	return n, nil
}
