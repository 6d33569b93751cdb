package cluster

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a NATS server run in the bridge's process (cluster.embedded),
// for a cluster in one binary: the other instances join it at its URL.
type Embedded struct {
	s *server.Server
}

// StartEmbedded runs a NATS server listening on listen (host:port; port 0
// picks one) and returns once it takes connections.
func StartEmbedded(listen string) (*Embedded, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded NATS listen %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded NATS listen %q: the port is not a number", listen)
	}
	if p == 0 {
		p = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{Host: host, Port: p, NoSigs: true, NoLog: true, MaxPayload: 8 << 20})
	if err != nil {
		return nil, fmt.Errorf("cluster: embedded NATS: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("cluster: the embedded NATS on %s did not start", listen)
	}
	return &Embedded{s: s}, nil
}

// URL is where clients connect.
func (e *Embedded) URL() string { return e.s.ClientURL() }

// Shutdown stops the server.
func (e *Embedded) Shutdown() {
	e.s.Shutdown()
	e.s.WaitForShutdown()
}
