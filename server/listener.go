package server

import (
	"net/http"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/limits"
	"github.com/mcp-bridge/mcp-bridge/trust"
	"github.com/prometheus/client_golang/prometheus"
)

// listenerTLS sets up what guards the listener: its connection caps, its
// certificates, and the TLS the bridge dials agents with.
func (s *Server) listenerTLS(cfg *config.Config, metrics prometheus.Registerer) error {
	open := prometheus.NewGauge(prometheus.GaugeOpts{Name: "bridge_listener_connections", Help: "Connections open to the listener, counted against limits.connections."})
	if err := metrics.Register(open); err != nil {
		return err
	}
	s.conns = limits.NewConns(cfg.Limits.Connections, cfg.Limits.ConnectionsPerAddress)
	s.conns.Refused = func(limit string) { s.guard.limited.WithLabelValues(limit).Inc() }
	s.conns.Open = func(n int) { open.Set(float64(n)) }
	if cfg.TLS.Enabled() {
		certs, err := trust.LoadCerts(cfg.TLS)
		if err != nil {
			return err
		}
		s.tls = trust.NewListener(certs)
	}
	var err error
	s.dialTLS, err = trust.DialConfig(cfg.TLS.CA)
	return err
}

// webhookClient is the HTTP client webhooks are POSTed with.
func (s *Server) webhookClient() *http.Client {
	if s.dialTLS == nil {
		return nil
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: s.dialTLS, Proxy: http.ProxyFromEnvironment}}
}

// carriesTokens reports whether messages of dialect carry a credential
// of their own (fuse's authentication member).
func (s *Server) carriesTokens(dialect string) bool {
	c, ok := s.bridge.Registry().Lookup(dialect)
	return ok && c.Holds(canonical.ActRequest).Has(canonical.CAuthentication)
}
