package trust

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
)

const (
	resource = "https://bridge.example/mcp"
	asURL    = "https://auth.example/realms/agents"
)

// signer is a key made in the test and the kid a JWKS files it under.
type signer struct {
	kid    string
	method jwt.SigningMethod
	key    crypto.Signer
}

func newSigners(t *testing.T) (rs, es, ed signer) {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, dk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signer{"r1", jwt.SigningMethodRS256, rk}, signer{"e1", jwt.SigningMethodES256, testpki.ECKey(t)}, signer{"d1", jwt.SigningMethodEdDSA, dk}
}

// sign mints a token of claims signed by s, naming its kid.
func (s signer) sign(t *testing.T, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(s.method, c)
	tok.Header["kid"] = s.kid
	out, err := tok.SignedString(s.key)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// jwks is the JWKS of the signers' public keys.
func jwks(t *testing.T, signers ...signer) []byte {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	var keys []map[string]string
	for _, s := range signers {
		switch k := s.key.Public().(type) {
		case *rsa.PublicKey:
			keys = append(keys, map[string]string{"kty": "RSA", "kid": s.kid, "alg": "RS256", "use": "sig",
				"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())})
		case *ecdsa.PublicKey:
			point, err := k.Bytes() // 0x04 || x || y
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, map[string]string{"kty": "EC", "kid": s.kid, "crv": "P-256", "x": b64(point[1:33]), "y": b64(point[33:])})
		case ed25519.PublicKey:
			keys = append(keys, map[string]string{"kty": "OKP", "kid": s.kid, "crv": "Ed25519", "x": b64(k)})
		}
	}
	// A symmetric key in the set is never used: HS* is refused.
	keys = append(keys, map[string]string{"kty": "oct", "kid": "h1", "k": b64([]byte("a-secret-long-enough-for-hs256!!"))})
	out, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// access is claims valid now for an hour, for resource, from asURL.
func access(sub string, extra ...any) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"sub": sub, "iss": asURL, "aud": []string{"account", resource}, "iat": now.Unix(), "nbf": now.Unix(),
		"exp": now.Add(time.Hour).Unix(), "azp": "ide-client", "scope": "openid tools.call"}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == nil {
			delete(c, extra[i].(string))
		} else {
			c[extra[i].(string)] = extra[i+1]
		}
	}
	return c
}

// TestAccessVerify: access tokens signed with each algorithm by a key of
// the JWKS are accepted; every way one can be wrong is refused for its
// reason.
func TestAccessVerify(t *testing.T) {
	rs, es, ed := newSigners(t)
	ks, err := ReadKeySet("mcp.oauth.jwks_file", testpki.Write(t, t.TempDir(), "jwks.json", jwks(t, rs, es, ed)))
	if err != nil {
		t.Fatal(err)
	}
	v := NewAccessVerifier(ks, asURL)
	stranger := signer{"r1", jwt.SigningMethodRS256, mustRSA(t)}
	hour := time.Hour
	// The RSA key's public half as an HMAC secret: the classic confusion.
	pub, err := x509.MarshalPKIXPublicKey(rs.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	confused := jwt.NewWithClaims(jwt.SigningMethodHS256, access("ann"))
	confused.Header["kid"] = "r1"
	hs, err := confused.SignedString(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
	if err != nil {
		t.Fatal(err)
	}
	hsOct := jwt.NewWithClaims(jwt.SigningMethodHS256, access("ann"))
	hsOct.Header["kid"] = "h1"
	hsOctToken, err := hsOct.SignedString([]byte("a-secret-long-enough-for-hs256!!"))
	if err != nil {
		t.Fatal(err)
	}
	noKid := jwt.NewWithClaims(jwt.SigningMethodES256, access("ann"))
	noKidToken, err := noKid.SignedString(es.key)
	if err != nil {
		t.Fatal(err)
	}
	wrongKid := signer{"e1", jwt.SigningMethodRS256, rs.key}
	for _, c := range []struct {
		name  string
		token string
		want  Reason // "" for a good token
	}{
		{"RS256", rs.sign(t, access("ann")), ""},
		{"ES256", es.sign(t, access("ann")), ""},
		{"EdDSA", ed.sign(t, access("ann")), ""},
		{"no kid: every key of its algorithm", noKidToken, ""},
		{"aud a string", rs.sign(t, access("ann", "aud", resource)), ""},
		{"expired, past the leeway", rs.sign(t, access("ann", "exp", time.Now().Add(-time.Minute).Unix())), Expired},
		{"expired, within the leeway", rs.sign(t, access("ann", "exp", time.Now().Add(-10*time.Second).Unix())), ""},
		{"no expiry", rs.sign(t, access("ann", "exp", nil)), Expired},
		{"not yet valid", rs.sign(t, access("ann", "nbf", time.Now().Add(hour).Unix())), NotYetValid},
		{"wrong issuer", rs.sign(t, access("ann", "iss", "https://evil.example")), Issuer},
		{"wrong audience: no passthrough", rs.sign(t, access("ann", "aud", "https://other.example/mcp")), Audience},
		{"no audience", rs.sign(t, access("ann", "aud", nil)), Audience},
		{"alg none", testpki.None(t, access("ann")), Algorithm},
		{"HS256 with the RSA public key", hs, Algorithm},
		{"HS256 with the set's oct key", hsOctToken, Algorithm},
		{"signed by a stranger under a known kid", stranger.sign(t, access("ann")), Signature},
		{"unknown kid", signer{"zz", jwt.SigningMethodES256, es.key}.sign(t, access("ann")), Signature},
		{"kid of a key of another type", wrongKid.sign(t, access("ann")), Signature},
		{"no subject: the client", rs.sign(t, access("", "sub", nil)), ""},
		{"neither subject nor client", rs.sign(t, access("", "sub", nil, "azp", nil)), Subject},
		{"malformed", "abc.def.ghi", Malformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, r := v.Verify(context.Background(), c.token, resource)
			switch {
			case c.want == "" && r != nil:
				t.Fatalf("refused: %v (%s)", r, r.Reason)
			case c.want != "" && r == nil:
				t.Fatalf("accepted as %+v, want refused for %s", a, c.want)
			case c.want != "" && r.Reason != c.want:
				t.Fatalf("refused for %s (%v), want %s", r.Reason, r, c.want)
			}
		})
	}
	a, r := v.Verify(context.Background(), rs.sign(t, access("ann")), resource)
	if r != nil || a.Subject != "ann" || a.Client != "ide-client" || !slices.Equal(a.Scopes, []string{"openid", "tools.call"}) {
		t.Errorf("access %+v, %v", a, r)
	}
	a, _ = v.Verify(context.Background(), rs.sign(t, access("", "sub", nil, "scope", nil, "scp", []string{"a", "b"})), resource)
	if a == nil || a.Subject != "ide-client" || !slices.Equal(a.Scopes, []string{"a", "b"}) {
		t.Errorf("access without sub, with scp: %+v", a)
	}
}

func mustRSA(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestKeySetRefetch: a JWKS URL is fetched when first needed, again for a
// token naming an unknown kid at most once every RefetchInterval, and
// its last keys keep serving when a fetch fails.
func TestKeySetRefetch(t *testing.T) {
	rs, es, ed := newSigners(t)
	var mu sync.Mutex
	served := jwks(t, rs)
	down := false
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(served)
	}))
	defer srv.Close()
	serve := func(body []byte, unavailable bool) {
		mu.Lock()
		served, down = body, unavailable
		mu.Unlock()
	}
	ks := FetchedKeySet(srv.URL, srv.Client())
	clock := time.Now()
	ks.now = func() time.Time { return clock }
	v := NewAccessVerifier(ks, asURL)
	ctx := context.Background()
	step := func(name, token string, ok bool, wantFetches int32) {
		t.Helper()
		_, r := v.Verify(ctx, token, resource)
		if (r == nil) != ok {
			t.Errorf("%s: refused %v, want accepted %v", name, r, ok)
		}
		if n := fetches.Load(); n != wantFetches {
			t.Errorf("%s: %d fetches, want %d", name, n, wantFetches)
		}
	}
	step("first use fetches", rs.sign(t, access("ann")), true, 1)
	step("a known kid does not", rs.sign(t, access("ann")), true, 1)
	serve(jwks(t, rs, es), false)
	clock = clock.Add(time.Second)
	step("an unknown kid within 10 s: the cached keys", es.sign(t, access("ann")), false, 1)
	clock = clock.Add(RefetchInterval)
	step("an unknown kid after 10 s fetches again", es.sign(t, access("ann")), true, 2)
	clock = clock.Add(time.Second)
	step("another unknown kid within 10 s", ed.sign(t, access("ann")), false, 2)
	serve(nil, true)
	clock = clock.Add(RefetchInterval)
	step("a failed fetch", ed.sign(t, access("ann")), false, 3)
	step("the cached keys still serve", es.sign(t, access("ann")), true, 3)

	unreachable := FetchedKeySet("http://127.0.0.1:1/jwks", nil)
	_, r := NewAccessVerifier(unreachable, asURL).Verify(ctx, rs.sign(t, access("ann")), resource)
	if r == nil || r.Reason != Signature {
		t.Errorf("no keys to be had: %v", r)
	}
}

// TestReadKeySet: a JWKS file without a usable signing key is an error
// naming the key and the file.
func TestReadKeySet(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"not JSON", `{`, "not a JWKS: unexpected end of JSON input"},
		{"only oct", `{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}`, "no RSA, EC P-256 or Ed25519 signing key"},
		{"bad Ed25519", `{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "AAAA"}]}`, "keys[0]: an Ed25519 key needs x, 32 bytes, base64url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := testpki.Write(t, dir, c.name+".json", []byte(c.body))
			_, err := ReadKeySet("mcp.oauth.jwks_file", p)
			if want := "mcp.oauth.jwks_file: " + p + ": " + c.want; err == nil || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}
