package trust

import (
	"crypto"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// The algorithms a token may be signed with; any other (none among them)
// is refused.
var algorithms = []string{"HS256", "RS256", "ES256"}

// leeway is the clock skew allowed on exp, nbf and iat.
const leeway = 30 * time.Second

// Reason says why a token was refused, as the metrics label it.
type Reason string

// The reasons a token is refused.
const (
	Malformed   Reason = "malformed"
	Algorithm   Reason = "algorithm"
	Signature   Reason = "signature"
	Expired     Reason = "expired"
	NotYetValid Reason = "not_yet_valid"
	Issuer      Reason = "issuer"
	Audience    Reason = "audience"
	Subject     Reason = "subject"
	Missing     Reason = "missing"
)

// Refusal is a token that does not prove anything, and why.
type Refusal struct {
	Reason Reason
	// Detail says it in words, without the token.
	Detail string
}

func (r *Refusal) Error() string { return r.Detail }

// Verifier checks JSON Web Tokens against the configured keys, issuer and
// audience, and says which agent id a good one names. It is safe for
// concurrent use.
type Verifier struct {
	hs256    []byte
	rsa      []crypto.PublicKey
	ec       []crypto.PublicKey
	kids     map[string]crypto.PublicKey // JWKS keys by kid
	parser   *jwt.Parser
	claim    string
	required bool
}

// NewVerifier reads the keys c names. A file that cannot be read or holds
// no usable key is an error naming it.
func NewVerifier(c *config.JWT) (*Verifier, error) {
	v := &Verifier{claim: c.SubjectClaim, required: c.Required, kids: map[string]crypto.PublicKey{}}
	if v.claim == "" {
		v.claim = "sub"
	}
	if c.HS256Secret != "" {
		v.hs256 = []byte(c.HS256Secret)
	}
	var errs []error
	for _, f := range c.PublicKeys {
		keys, err := readPublicKeys(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, k := range keys {
			v.add(k)
		}
	}
	if c.JWKSFile != "" {
		set, err := readJWKS(c.JWKSFile)
		if err != nil {
			errs = append(errs, err)
		}
		for _, k := range set {
			v.add(k.key)
			if k.kid != "" {
				v.kids[k.kid] = k.key
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods(algorithms), jwt.WithLeeway(leeway), jwt.WithExpirationRequired(), jwt.WithIssuedAt()}
	if c.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(c.Issuer))
	}
	if c.Audience != "" {
		opts = append(opts, jwt.WithAudience(c.Audience))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// add files a public key under its algorithm.
func (v *Verifier) add(k crypto.PublicKey) {
	if isRSA(k) {
		v.rsa = append(v.rsa, k)
	} else {
		v.ec = append(v.ec, k)
	}
}

// Required reports whether every connection must prove who it is.
func (v *Verifier) Required() bool { return v.required }

// LooksLikeJWT reports whether a presented credential is a JWT (three
// base64url parts) rather than a static token.
func LooksLikeJWT(s string) bool {
	if strings.Count(s, ".") != 2 || len(s) < 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '=') {
			return false
		}
	}
	return true
}

// Verify checks token and returns the agent id its subject claim names,
// or why it proves nothing.
func (v *Verifier) Verify(token string) (string, *Refusal) {
	claims := jwt.MapClaims{}
	t, err := v.parser.ParseWithClaims(token, claims, v.key)
	if err != nil {
		return "", refusal(t, err, algorithms)
	}
	sub, _ := claims[v.claim].(string)
	if sub == "" {
		return "", &Refusal{Reason: Subject, Detail: fmt.Sprintf("the token names no agent: its %q claim is missing or not a string", v.claim)}
	}
	return sub, nil
}

// key returns the keys a token's algorithm is checked against.
func (v *Verifier) key(t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	if kid, _ := t.Header["kid"].(string); kid != "" {
		if k, ok := v.kids[kid]; ok && (alg == "RS256") == isRSA(k) {
			return k, nil
		}
	}
	var keys []crypto.PublicKey
	switch alg {
	case "HS256":
		if v.hs256 == nil {
			return nil, errors.New("no HS256 key is configured")
		}
		return v.hs256, nil
	case "RS256":
		keys = v.rsa
	case "ES256":
		keys = v.ec
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no %s key is configured", alg)
	}
	set := jwt.VerificationKeySet{}
	for _, k := range keys {
		set.Keys = append(set.Keys, k)
	}
	return set, nil
}

// refusal says why the parser refused a token; algs are the algorithms
// accepted.
func refusal(t *jwt.Token, err error, algs []string) *Refusal {
	r := &Refusal{Detail: "the token is not valid: " + err.Error()}
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		r.Reason, r.Detail = Malformed, "the token is malformed"
	case t != nil && t.Method != nil && !slices.Contains(algs, t.Method.Alg()):
		r.Reason, r.Detail = Algorithm, fmt.Sprintf("the token is signed with %q; only %s are accepted", t.Method.Alg(), strings.Join(algs, ", "))
	case t != nil && t.Method == nil:
		r.Reason, r.Detail = Algorithm, "the token names an unknown signing algorithm"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		r.Reason, r.Detail = Signature, "the token's signature does not verify with the configured keys"
	case errors.Is(err, jwt.ErrTokenExpired):
		r.Reason, r.Detail = Expired, "the token has expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		r.Reason, r.Detail = NotYetValid, "the token is not valid yet"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		r.Reason, r.Detail = Issuer, "the token's issuer is not the one configured"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		r.Reason, r.Detail = Audience, "the token is not meant for this bridge (audience)"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && strings.Contains(err.Error(), "aud claim"):
		r.Reason, r.Detail = Audience, "the token names no audience (aud)"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		r.Reason, r.Detail = Expired, "the token has no expiry (exp)"
	default:
		r.Reason = Malformed
	}
	return r
}

// readPublicKeys reads the public keys (or certificates) of a PEM file.
func readPublicKeys(path string) ([]crypto.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth.jwt.public_keys: %w", err)
	}
	keys, err := parsePublicKeys(data)
	if err != nil {
		return nil, fmt.Errorf("auth.jwt.public_keys: %s: %w", path, err)
	}
	return keys, nil
}
