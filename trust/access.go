package trust

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// accessAlgorithms are the algorithms an access token may be signed with:
// the public-key ones a JWKS holds keys of. none and HS* are refused.
var accessAlgorithms = []string{"RS256", "ES256", "EdDSA"}

// Access is what a verified OAuth access token grants its holder.
type Access struct {
	// Subject is the token's sub: who holds it; the client's id when it
	// names no subject.
	Subject string
	// Client is the client the token was issued to (azp, or client_id);
	// "" when it names none.
	Client string
	// Scopes are the scopes it grants (scope, space-separated; or scp).
	Scopes []string
	// Claims are all its claims, as JSON decodes them.
	Claims map[string]any
}

// AccessVerifier checks OAuth 2.1 access tokens: JWTs (RFC 9068) an
// authorization server signed with a key of its key set, for one resource.
// It is safe for concurrent use.
type AccessVerifier struct {
	keys   *KeySet
	issuer string
}

// NewAccessVerifier returns the verifier of tokens signed with the keys of
// keys, whose iss is issuer ("": any).
func NewAccessVerifier(keys *KeySet, issuer string) *AccessVerifier {
	return &AccessVerifier{keys: keys, issuer: issuer}
}

// Verify checks token: its signature (RS256, ES256 or EdDSA, with a key of
// the set), exp (which it must have) and nbf with 30 s of leeway, iss, and
// that its aud holds resource: a token issued for another resource proves
// nothing here. It returns what the token grants, or why it was refused.
func (v *AccessVerifier) Verify(ctx context.Context, token, resource string) (*Access, *Refusal) {
	opts := []jwt.ParserOption{jwt.WithValidMethods(accessAlgorithms), jwt.WithLeeway(leeway), jwt.WithExpirationRequired(),
		jwt.WithAudience(resource)}
	if v.issuer != "" {
		opts = append(opts, jwt.WithIssuer(v.issuer))
	}
	claims := jwt.MapClaims{}
	t, err := jwt.NewParser(opts...).ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		keys, err := v.keys.candidates(ctx, t.Method.Alg(), kid)
		if err != nil {
			return nil, err
		}
		set := jwt.VerificationKeySet{}
		for _, k := range keys {
			set.Keys = append(set.Keys, k)
		}
		return set, nil
	})
	if err != nil {
		r := refusal(t, err, accessAlgorithms)
		switch r.Reason {
		case Audience:
			r.Detail = fmt.Sprintf("the token was issued for another resource: its aud does not hold %s", resource)
		case Signature:
			if errors.Is(err, jwt.ErrTokenUnverifiable) {
				r.Detail = "the token's signature cannot be checked: " + keyfuncError(err)
			}
		}
		return nil, r
	}
	a := &Access{Claims: claims}
	a.Subject, _ = claims["sub"].(string)
	for _, c := range []string{"azp", "client_id"} {
		if id, _ := claims[c].(string); id != "" && a.Client == "" {
			a.Client = id
		}
	}
	if a.Subject == "" {
		a.Subject = a.Client
	}
	if a.Subject == "" {
		return nil, &Refusal{Reason: Subject, Detail: "the token names neither a subject (sub) nor a client (azp, client_id)"}
	}
	a.Scopes = scopes(claims)
	return a, nil
}

// keyfuncError is what the key lookup said, without the parser's
// wrapping.
func keyfuncError(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, "error while executing keyfunc: "); ok {
		return after
	}
	return msg
}

// scopes are the scopes claims grant: scope, space-separated (RFC 9068),
// or scp, a list or a string (as some servers write it).
func scopes(claims jwt.MapClaims) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch scp := claims["scp"].(type) {
	case string:
		return strings.Fields(scp)
	case []any:
		var out []string
		for _, x := range scp {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
