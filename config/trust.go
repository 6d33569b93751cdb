package config

import "time"

// Auth configures how agents and clients prove who they are, beyond the
// agents' static tokens (auth:).
type Auth struct {
	JWT *JWT // nil: no JWT is verified
}

// JWT configures the verification of JSON Web Tokens (auth.jwt:), and the
// tokens the bridge mints for fuse agents (Sign).
type JWT struct {
	HS256Secret  string   // the HS256 key, "" for none
	PublicKeys   []string // PEM files of RS256 / ES256 public keys (or certificates)
	JWKSFile     string   // a JWKS file of public keys, "" for none
	Issuer       string   // the iss every token must name, "" for any
	Audience     string   // the aud every token must include, "" for any
	SubjectClaim string   // the claim naming the agent id
	Required     bool     // every connection must present a valid JWT
	Sign         *Sign    // nil: the bridge mints no tokens
}

// Sign configures the tokens the bridge writes into the messages it sends
// fuse agents (auth.jwt.sign:).
type Sign struct {
	Key    string        // a PEM private key file (RS256, ES256); "": HS256 with the HS256 secret
	Issuer string        // the tokens' iss; "": the bridge's id
	TTL    time.Duration // how long a token is valid
}

// TLS configures TLS on the listener, and the CAs the bridge trusts when
// it dials agents (tls:).
type TLS struct {
	Cert, Key  string // the listener's certificate and key (PEM files); "" for plain HTTP
	ClientCA   string // PEM of the CAs that sign client certificates; "" for none
	ClientAuth string // with ClientCA: "require" or "optional"
	CA         string // PEM of CAs trusted beside the system's for agents the bridge dials; "" for none
}

// Enabled reports whether the listener speaks TLS.
func (t TLS) Enabled() bool { return t.Cert != "" }

// Limits bound what agents and clients may take (limits:).
type Limits struct {
	Rate                  float64       // messages per second each agent may send; 0: no limit
	Burst                 int           // messages an agent may send at once above its rate
	Connections           int           // open connections to the listener; 0: no limit
	ConnectionsPerAddress int           // open connections from one IP address; 0: no limit
	ReadHeaderTimeout     time.Duration // how long a client may take to send a request's headers
	IdleTimeout           time.Duration // how long a keep-alive connection may stay idle
}

// Reload configures reloading the config while the bridge runs (reload:).
type Reload struct {
	Watch    bool          // reload when a watched file changes (SIGHUP always reloads)
	Debounce time.Duration // the quiet time after a change before reloading
}

// Tracing configures OpenTelemetry traces (tracing:).
type Tracing struct {
	Exporter    string  // "none", "otlp" or "stdout"
	SampleRatio float64 // the fraction of traces started at the bridge that are recorded
}

// Enabled reports whether traces are made.
func (t Tracing) Enabled() bool { return t.Exporter != "" && t.Exporter != "none" }
