package ws

import (
	"io"
	"net"
	"testing"
)

// TestHeldConn: the handshake's answer held in a heldConn goes before the
// first write, or alone when answer comes first, and once either way.
func TestHeldConn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes func(c *heldConn) error
		want   string
	}{
		{"a write first", func(c *heldConn) error {
			if _, err := c.Write([]byte("frame")); err != nil {
				return err
			}
			return c.answer()
		}, "101|frame"},
		{"the answer first", func(c *heldConn) error {
			if err := c.answer(); err != nil {
				return err
			}
			_, err := c.Write([]byte("frame"))
			return err
		}, "101|frame"},
		{"the answer alone", func(c *heldConn) error {
			if err := c.answer(); err != nil {
				return err
			}
			return c.answer()
		}, "101|"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := net.Pipe()
			c := &heldConn{Conn: a, head: []byte("101|")}
			errs := make(chan error, 1)
			go func() { errs <- tc.writes(c); a.Close() }()
			got, err := io.ReadAll(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("the peer read %q, want %q", got, tc.want)
			}
		})
	}
}
