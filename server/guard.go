package server

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/limits"
	"github.com/mcp-bridge/mcp-bridge/transports"
	"github.com/mcp-bridge/mcp-bridge/trust"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tidwall/gjson"
)

// credentials are the keys and limits in force, replaced whole by a
// reload.
type credentials struct {
	jwt    *trust.Verifier // nil: no JWT is verified
	signer *trust.Signer   // nil: no token is minted
	rates  *limits.Rates   // nil: no rate
}

// loadCredentials reads the key files of c's auth and builds its rates.
func loadCredentials(c *config.Config) (*credentials, error) {
	cr := &credentials{rates: limits.NewRates(c.Limits.Rate, c.Limits.Burst)}
	if j := c.Auth.JWT; j != nil {
		var err error
		if cr.jwt, err = trust.NewVerifier(j); err != nil {
			return nil, err
		}
		if j.Sign != nil {
			if cr.signer, err = trust.NewSigner(j.Sign, j.HS256Secret); err != nil {
				return nil, err
			}
		}
	}
	return cr, nil
}

// guard is the bridge's Guard: it verifies the tokens messages carry,
// asks for one where auth.jwt.required says so, holds each agent to its
// rate, and stamps messages to fuse agents with a minted token.
type guard struct {
	cur     atomic.Pointer[credentials]
	auth    *trust.Metrics
	limited *prometheus.CounterVec // bridge_limited_total{limit}
}

func newGuard(cr *credentials, metrics prometheus.Registerer) (*guard, error) {
	g := &guard{limited: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_limited_total",
		Help: "Messages and connections refused by a limit: rate (an agent over limits.rate), connections, connections_per_address.",
	}, []string{"limit"})}
	var err error
	if g.auth, err = trust.NewMetrics(metrics); err != nil {
		return nil, err
	}
	if err := metrics.Register(g.limited); err != nil {
		return nil, fmt.Errorf("register bridge_limited_total: %w", err)
	}
	g.cur.Store(cr)
	return g, nil
}

// Admit implements bridge.Guard.
func (g *guard) Admit(s *bridge.Session, env *canonical.Envelope) (string, *canonical.Error) {
	cr := g.cur.Load()
	var proven string
	if cr.jwt != nil {
		token, carries := messageToken(env.Authentication)
		switch {
		case token != "":
			sub, r := cr.jwt.Verify(token)
			if r != nil {
				g.auth.Checked("jwt", r.Reason)
				return "", unauthorized(s.Dialect(), "the message's token", r.Detail)
			}
			if env.Sender.ID != "" && env.Sender.ID != sub {
				g.auth.Checked("jwt", "mismatch")
				return "", unauthorized(s.Dialect(), "the message's token",
					fmt.Sprintf("it names %s, and the message is sent as %s", sub, env.Sender.ID))
			}
			g.auth.Checked("jwt", "")
			// The credential was for the bridge: it goes no further.
			env.Authentication = ""
			if env.Sender.ID == "" {
				env.Sender.ID = sub
			}
			proven = sub
		case cr.jwt.Required() && !vouched(s):
			g.auth.Checked("jwt", trust.Missing)
			what := "present one as a bearer token when connecting"
			if carries {
				what = "its authentication member holds none"
			}
			d := s.Dialect()
			return "", &canonical.Error{Code: canonical.ErrUnauthorized, Message: d + ": the message has no JWT, and this bridge requires one of every agent: " + what}
		}
	}
	if cr.rates != nil {
		id := env.Sender.ID
		if id == "" {
			id = s.AgentID()
		}
		if id != "" {
			if ok, wait := cr.rates.Allow(id, time.Now()); !ok {
				g.limited.WithLabelValues("rate").Inc()
				yes := true
				return "", &canonical.Error{Code: canonical.ErrUnavailable, Retryable: &yes, RetryAfter: canonical.Dur(wait),
					Message: fmt.Sprintf("%s sends faster than its rate of %g messages a second (limits.rate); retry after %s", id, cr.rates.PerSecond(), wait.Round(time.Millisecond))}
			}
		}
	}
	return proven, nil
}

// vouched reports whether the session's connection proved who it is, or
// was made by the bridge to an agent of its config.
func vouched(s *bridge.Session) bool { return s.Identity().Agent != "" || s.Reached() }

// Stamp implements bridge.Guard: a message to a fuse agent carries a
// token the bridge minted, when auth.jwt.sign is configured.
func (g *guard) Stamp(dialect, sender, to string) canonical.JSON {
	cr := g.cur.Load()
	if cr.signer == nil || dialect != "fuse" || sender == "" {
		return ""
	}
	token, err := cr.signer.Mint(sender, to, time.Now())
	if err != nil {
		return ""
	}
	return canonical.JSON(`{"type":"jwt","token":"` + token + `"}`)
}

// messageToken returns the JWT of an authentication member,
// {"type": "jwt", "token": T}; carries says the member is there at all.
func messageToken(auth canonical.JSON) (token string, carries bool) {
	if auth == "" {
		return "", false
	}
	v := gjson.Parse(string(auth))
	if typ := v.Get("type").String(); typ != "" && typ != "jwt" && typ != "JWT" {
		return "", true
	}
	return v.Get("token").String(), true
}

func unauthorized(dialect, what, detail string) *canonical.Error {
	if dialect == "" {
		dialect = "auto"
	}
	return &canonical.Error{Code: canonical.ErrUnauthorized, Message: fmt.Sprintf("%s: %s is refused: %s", dialect, what, detail)}
}

// authenticator checks what a WebSocket handshake or HTTP request proves:
// a verified client certificate names its agent; a bearer token that is
// a JWT is verified and names its agent; any other token is a static one.
// Where auth.jwt.required, a connection that proves nothing is refused,
// unless its dialect carries tokens in its messages (fuse), or is yet to
// be detected.
func (g *guard) authenticator(carriesTokens func(dialect string) bool) transports.Authenticator {
	return func(r *http.Request, dialect string) (bridge.Identity, string, *canonical.Error) {
		cr := g.cur.Load()
		token := transports.Token(r)
		var id bridge.Identity
		if agent := trust.PeerAgent(r.TLS); agent != "" {
			id = bridge.Identity{Agent: agent, By: "tls"}
			g.auth.Checked("tls", "")
		}
		if cr.jwt == nil {
			return id, token, nil
		}
		if trust.LooksLikeJWT(token) {
			sub, ref := cr.jwt.Verify(token)
			if ref != nil {
				g.auth.Checked("jwt", ref.Reason)
				return id, "", unauthorized(dialect, "the bearer token", ref.Detail)
			}
			if id.Agent != "" && id.Agent != sub {
				g.auth.Checked("jwt", "mismatch")
				return id, "", unauthorized(dialect, "the bearer token",
					fmt.Sprintf("it names %s, and the client certificate %s", sub, id.Agent))
			}
			g.auth.Checked("jwt", "")
			return bridge.Identity{Agent: sub, By: "jwt"}, "", nil
		}
		if cr.jwt.Required() && id.Agent == "" && dialect != "" && !carriesTokens(dialect) {
			g.auth.Checked("jwt", trust.Missing)
			return id, "", &canonical.Error{Code: canonical.ErrUnauthorized,
				Message: dialect + ": the connection has no JWT, and this bridge requires one of every agent: present it as \"Authorization: Bearer <JWT>\""}
		}
		return id, token, nil
	}
}

// verifyMCP checks an MCP client's bearer token as a JWT.
func (g *guard) verifyMCP(token string) (string, error) {
	cr := g.cur.Load()
	if cr.jwt == nil {
		return "", fmt.Errorf("no JWT is accepted here")
	}
	sub, r := cr.jwt.Verify(token)
	if r != nil {
		g.auth.Checked("jwt", r.Reason)
		return "", r
	}
	g.auth.Checked("jwt", "")
	return sub, nil
}
