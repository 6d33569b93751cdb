package trust

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/mcp-bridge/mcp-bridge/config"
)

// Certs are the listener's TLS material as read from its files at one
// time: its certificate, and the CAs of client certificates.
type Certs struct {
	cert    tls.Certificate
	clients *x509.CertPool // nil: no client certificates
	auth    tls.ClientAuthType
}

// LoadCerts reads the files c names. Every file that cannot be used is
// an error naming it.
func LoadCerts(c config.TLS) (*Certs, error) {
	cert, err := tls.LoadX509KeyPair(c.Cert, c.Key)
	if err != nil {
		return nil, fmt.Errorf("tls.cert and tls.key (%s, %s): %w", c.Cert, c.Key, err)
	}
	out := &Certs{cert: cert, auth: tls.NoClientCert}
	if c.ClientCA != "" {
		pool, err := readPool("tls.client_ca", c.ClientCA)
		if err != nil {
			return nil, err
		}
		out.clients = pool
		out.auth = tls.RequireAndVerifyClientCert
		if c.ClientAuth == "optional" {
			out.auth = tls.VerifyClientCertIfGiven
		}
	}
	return out, nil
}

// readPool reads the certificates of a PEM file into a pool.
func readPool(key, path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s: %s holds no PEM certificate", key, path)
	}
	return pool, nil
}

// Listener serves the TLS of the listener from the Certs in use, which
// Use replaces without dropping a connection: new handshakes take the new
// ones.
type Listener struct {
	cur atomic.Pointer[Certs]
}

// NewListener returns a Listener serving c.
func NewListener(c *Certs) *Listener {
	l := &Listener{}
	l.cur.Store(c)
	return l
}

// Use makes new handshakes use c.
func (l *Listener) Use(c *Certs) { l.cur.Store(c) }

// Config is the listener's tls.Config: each handshake takes the Certs in
// use at the time. HTTP/1.1 only: WebSocket upgrades need it.
func (l *Listener) Config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			c := l.cur.Load()
			return &tls.Config{
				MinVersion:   tls.VersionTLS12,
				NextProtos:   []string{"http/1.1"},
				Certificates: []tls.Certificate{c.cert},
				ClientCAs:    c.clients,
				ClientAuth:   c.auth,
			}, nil
		},
	}
}

// PeerAgent returns the agent id a verified client certificate names: its
// Common Name, or its first DNS name when it has none; "" when the
// connection presented no verified certificate.
func PeerAgent(state *tls.ConnectionState) string {
	if state == nil || len(state.VerifiedChains) == 0 || len(state.PeerCertificates) == 0 {
		return ""
	}
	c := state.PeerCertificates[0]
	if c.Subject.CommonName != "" {
		return c.Subject.CommonName
	}
	if len(c.DNSNames) > 0 {
		return c.DNSNames[0]
	}
	return ""
}

// DialConfig is the TLS the bridge dials agents with (wss://, https://):
// the system's CAs, and those of the file ca when it is set; nil when
// there is nothing to add to Go's defaults.
func DialConfig(ca string) (*tls.Config, error) {
	if ca == "" {
		return nil, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	data, err := os.ReadFile(ca)
	if err != nil {
		return nil, fmt.Errorf("tls.ca: %w", err)
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, errors.New("tls.ca: " + ca + " holds no PEM certificate")
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}, nil
}
