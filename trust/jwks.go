package trust

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// RefetchInterval is the least time between two fetches of a JWKS URL: a
// token naming a kid the cached keys lack fetches the set again at most
// this often.
const RefetchInterval = 10 * time.Second

// maxJWKS bounds the size of a fetched JWKS.
const maxJWKS = 1 << 20

// KeySet is a JSON Web Key Set of signing keys, read from a file once, or
// fetched from a URL when first needed and again when a token names a key
// it lacks, at most once every RefetchInterval; between fetches the keys
// fetched last serve. It is safe for concurrent use.
type KeySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    []jwk
	fetched time.Time // when the URL was last fetched, successfully or not
	failed  error     // why the last fetch failed; nil after a good one
}

// ReadKeySet reads the JWKS file at path; name is how errors name the
// key (mcp.oauth.jwks_file).
func ReadKeySet(name, path string) (*KeySet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	keys, err := parseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", name, path, err)
	}
	return &KeySet{keys: keys, now: time.Now}, nil
}

// FetchedKeySet returns the key set of the JWKS at url, fetched with
// client (nil: http.DefaultClient) when first needed.
func FetchedKeySet(url string, client *http.Client) *KeySet {
	if client == nil {
		client = http.DefaultClient
	}
	return &KeySet{url: url, client: client, now: time.Now}
}

// candidates returns the keys a token signed with alg and naming kid ("":
// none) may be checked against: the key of that kid, or every key of the
// algorithm when it names none. A kid the set lacks fetches a URL's set
// again, unless it was fetched less than RefetchInterval ago.
func (s *KeySet) candidates(ctx context.Context, alg, kid string) ([]crypto.PublicKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := s.lookup(alg, kid)
	if len(found) > 0 || s.url == "" {
		return found, s.missing(alg, kid, found)
	}
	if s.fetched.IsZero() || !s.knows(kid) && s.now().Sub(s.fetched) >= RefetchInterval {
		s.fetch(ctx)
		found = s.lookup(alg, kid)
	}
	if len(found) == 0 && len(s.keys) == 0 && s.failed != nil {
		return nil, s.failed
	}
	return found, s.missing(alg, kid, found)
}

// knows reports whether a key of the set has kid ("": never). s.mu is
// held.
func (s *KeySet) knows(kid string) bool {
	if kid == "" {
		return false
	}
	for _, k := range s.keys {
		if k.kid == kid {
			return true
		}
	}
	return false
}

// lookup returns the keys of kid (any kid when "") that can check alg.
// s.mu is held.
func (s *KeySet) lookup(alg, kid string) []crypto.PublicKey {
	var out []crypto.PublicKey
	for _, k := range s.keys {
		if (kid == "" || k.kid == kid) && (k.alg == "" || k.alg == alg) && fits(alg, k.key) {
			out = append(out, k.key)
		}
	}
	return out
}

// missing is the error of a lookup that found nothing, nil otherwise.
func (s *KeySet) missing(alg, kid string, found []crypto.PublicKey) error {
	switch {
	case len(found) > 0:
		return nil
	case kid != "" && s.knows(kid):
		return fmt.Errorf("the key %q cannot check %s", kid, alg)
	case kid != "":
		return fmt.Errorf("no key %q is in the key set", kid)
	}
	return fmt.Errorf("no %s key is in the key set", alg)
}

// fetch gets the set from its URL; on failure the keys fetched last stay.
// s.mu is held.
func (s *KeySet) fetch(ctx context.Context) {
	s.fetched = s.now()
	keys, err := s.get(ctx)
	if err != nil {
		s.failed = fmt.Errorf("the key set at %s: %w", s.url, err)
		return
	}
	s.keys, s.failed = keys, nil
}

func (s *KeySet) get(ctx context.Context) ([]jwk, error) {
	// A client that gives up its request does not cut the fetch short:
	// every other token waits for its keys.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RefetchInterval)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	res, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("answered %s", res.Status)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxJWKS+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJWKS {
		return nil, errors.New("more than 1 MiB")
	}
	return parseJWKS(data)
}

// fits reports whether key can check a signature of alg: RS256 an RSA key,
// ES256 an EC P-256 key, EdDSA an Ed25519 key.
func fits(alg string, key crypto.PublicKey) bool {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return alg == "RS256"
	case *ecdsa.PublicKey:
		return alg == "ES256" && k.Curve == elliptic.P256()
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}
