package trust

import (
	"crypto"
	"crypto/rsa"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// Signer mints the tokens the bridge writes into the messages it sends:
// iss the configured issuer, sub the message's sender, aud the receiving
// agent. A token is reused for its pair of agents until half its life is
// spent, so that signing costs little per message. It is safe for
// concurrent use.
type Signer struct {
	method jwt.SigningMethod
	key    any
	issuer string
	ttl    time.Duration

	mu    sync.Mutex
	cache map[[2]string]minted
}

type minted struct {
	token string
	renew time.Time
}

// NewSigner reads the signing key of s; without one it signs HS256 with
// secret.
func NewSigner(s *config.Sign, secret string) (*Signer, error) {
	g := &Signer{issuer: s.Issuer, ttl: s.TTL, cache: map[[2]string]minted{}}
	if g.ttl <= 0 {
		g.ttl = 5 * time.Minute
	}
	if s.Key == "" {
		if secret == "" {
			return nil, fmt.Errorf("auth.jwt.sign: no key: give sign.key, or hs256_secret for HS256")
		}
		g.method, g.key = jwt.SigningMethodHS256, []byte(secret)
		return g, nil
	}
	k, err := readPrivateKey(s.Key)
	if err != nil {
		return nil, err
	}
	g.key = k
	if _, ok := k.(*rsa.PrivateKey); ok {
		g.method = jwt.SigningMethodRS256
	} else {
		g.method = jwt.SigningMethodES256
	}
	return g, nil
}

// Mint returns a token saying the bridge delivers a message from sender
// to receiver.
func (g *Signer) Mint(sender, receiver string, now time.Time) (string, error) {
	k := [2]string{sender, receiver}
	g.mu.Lock()
	m, ok := g.cache[k]
	g.mu.Unlock()
	if ok && now.Before(m.renew) {
		return m.token, nil
	}
	claims := jwt.MapClaims{"iss": g.issuer, "sub": sender, "aud": receiver,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(g.ttl).Unix()}
	token, err := jwt.NewWithClaims(g.method, claims).SignedString(g.key)
	if err != nil {
		return "", fmt.Errorf("auth.jwt.sign: %w", err)
	}
	g.mu.Lock()
	if len(g.cache) > 100000 {
		clear(g.cache) // bounded: pairs come and go
	}
	g.cache[k] = minted{token: token, renew: now.Add(g.ttl / 2)}
	g.mu.Unlock()
	return token, nil
}

// Public returns the public key tokens are checked with, nil for HS256.
func (g *Signer) Public() crypto.PublicKey {
	if s, ok := g.key.(crypto.Signer); ok {
		return s.Public()
	}
	return nil
}
