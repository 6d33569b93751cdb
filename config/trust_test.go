package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	_ "github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestTrustKeys reads auth, tls, limits, reload and tracing into the
// Config, with their defaults.
func TestTrustKeys(t *testing.T) {
	t.Setenv("JWT_SECRET", "s3cret")
	cfg, err := Parse("/etc/bridge/serve.yaml", []byte(`auth:
  jwt:
    hs256_secret: ${JWT_SECRET}
    public_keys: [keys/agents.pem]
    jwks_file: keys/jwks.json
    issuer: https://issuer.example
    audience: mcp-bridge
    required: true
    sign: {key: keys/bridge.pem}
tls: {cert: tls/cert.pem, key: tls/key.pem, client_ca: tls/ca.pem}
limits: {rate: 2.5, connections_per_address: 64}
reload: {watch: false}
tracing: {exporter: otlp, sample_ratio: 0.25}
`), dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	wantJWT := &JWT{HS256Secret: "s3cret", PublicKeys: []string{"/etc/bridge/keys/agents.pem"}, JWKSFile: "/etc/bridge/keys/jwks.json",
		Issuer: "https://issuer.example", Audience: "mcp-bridge", SubjectClaim: "sub", Required: true,
		Sign: &Sign{Key: "/etc/bridge/keys/bridge.pem", Issuer: "mcp-bridge", TTL: 5 * time.Minute}}
	if !reflect.DeepEqual(cfg.Auth.JWT, wantJWT) {
		t.Errorf("auth.jwt:\n got %+v\nwant %+v", cfg.Auth.JWT, wantJWT)
	}
	wantTLS := TLS{Cert: "/etc/bridge/tls/cert.pem", Key: "/etc/bridge/tls/key.pem", ClientCA: "/etc/bridge/tls/ca.pem", ClientAuth: "require"}
	if cfg.TLS != wantTLS {
		t.Errorf("tls: got %+v, want %+v", cfg.TLS, wantTLS)
	}
	wantLimits := Limits{Rate: 2.5, Burst: 3, Connections: 100000, ConnectionsPerAddress: 64, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	if cfg.Limits != wantLimits {
		t.Errorf("limits: got %+v, want %+v", cfg.Limits, wantLimits)
	}
	if cfg.Reload != (Reload{Debounce: 250 * time.Millisecond}) || cfg.Tracing != (Tracing{Exporter: "otlp", SampleRatio: 0.25}) {
		t.Errorf("reload %+v, tracing %+v", cfg.Reload, cfg.Tracing)
	}
	d := Default()
	if d.Auth.JWT != nil || d.TLS.Enabled() || d.Tracing.Enabled() || d.Limits.Rate != 0 || d.Limits.ConnectionsPerAddress != 0 || d.Limits.Connections < 10000 {
		t.Errorf("the defaults must not get in the way: %+v %+v %+v %+v", d.Auth, d.TLS, d.Tracing, d.Limits)
	}
}

func TestBadTrustKeys(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"jwt without a key", "auth:\n  jwt: {issuer: x}\n",
			"bad.yaml:2: auth.jwt: names no key to verify tokens with: give hs256_secret, public_keys or jwks_file"},
		{"sign without a key", "auth:\n  jwt:\n    public_keys: [a.pem]\n    sign: {ttl: 1m}\n",
			"bad.yaml:4: auth.jwt.sign: names no key to sign with: give sign.key (a PEM private key), or hs256_secret for HS256"},
		{"secret not quoted", "auth:\n  jwt: {hs256_secret: [x]}\n", "bad.yaml:2: auth.jwt.hs256_secret: must be a secret"},
		{"cert without key", "tls: {cert: c.pem}\n", "bad.yaml:1: tls.cert: needs its key: give tls.key too"},
		{"client CA without TLS", "tls: {client_ca: ca.pem}\n", "bad.yaml:1: tls.client_ca: client certificates need TLS on the listener: give tls.cert and tls.key"},
		{"client_auth alone", "tls: {cert: c.pem, key: k.pem, client_auth: optional}\n",
			"bad.yaml:1: tls.client_auth: only with client_ca: what to do with client certificates"},
		{"negative rate", "limits: {rate: -1}\n", `bad.yaml:1: limits.rate: "-1" is not a number of at least 0`},
		{"ratio", "tracing: {sample_ratio: 2}\n", `bad.yaml:1: tracing.sample_ratio: "2" is not a fraction from 0 to 1`},
		{"exporter", "tracing: {exporter: jaeger}\n", `bad.yaml:1: tracing.exporter: "jaeger" is not none, otlp or stdout`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse("bad.yaml", []byte(c.text), dialects.Names()); err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}
