package trust

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
)

const (
	secret = "a-secret-long-enough-for-hs256!!"
	iss    = "https://issuer.example"
	aud    = "mcp-bridge"
)

// TestVerify: good tokens of each algorithm name their agent; every way a
// token can be wrong is refused for its reason.
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	ec := testpki.ECKey(t)
	other := testpki.ECKey(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwksKey := testpki.ECKey(t)
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig",
		"x": base64.RawURLEncoding.EncodeToString(jwksKey.X.FillBytes(make([]byte, 32))),
		"y": base64.RawURLEncoding.EncodeToString(jwksKey.Y.FillBytes(make([]byte, 32))),
	}, {
		"kty": "RSA", "kid": "r1",
		"n": base64.RawURLEncoding.EncodeToString(rsaKey.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(rsaKey.E)).Bytes()),
	}}})
	v, err := NewVerifier(&config.JWT{
		HS256Secret: secret, PublicKeys: []string{testpki.Write(t, dir, "ec.pem", testpki.PublicPEM(t, &ec.PublicKey))},
		JWKSFile: testpki.Write(t, dir, "jwks.json", jwks), Issuer: iss, Audience: aud, SubjectClaim: "sub",
	})
	if err != nil {
		t.Fatal(err)
	}
	good := testpki.Good("jules", iss, aud)
	with := func(k string, val any) testpki.Claims {
		c := testpki.Claims{}
		for key, x := range good {
			c[key] = x
		}
		if val == nil {
			delete(c, k)
		} else {
			c[k] = val
		}
		return c
	}
	rs256 := func(c testpki.Claims) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
		tok.Header["kid"] = "r1"
		s, err := tok.SignedString(rsaKey)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	hour := time.Hour
	for _, c := range []struct {
		name  string
		token string
		want  Reason // "" for a good token
	}{
		{"HS256", testpki.HS256(t, secret, good), ""},
		{"ES256 from a PEM file", testpki.ES256(t, ec, good), ""},
		{"ES256 from the JWKS", testpki.ES256(t, jwksKey, good), ""},
		{"RS256 from the JWKS by kid", rs256(good), ""},
		{"expired", testpki.HS256(t, secret, with("exp", time.Now().Add(-hour).Unix())), Expired},
		{"no expiry", testpki.HS256(t, secret, with("exp", nil)), Expired},
		{"not yet valid", testpki.HS256(t, secret, with("nbf", time.Now().Add(hour).Unix())), NotYetValid},
		{"issued in the future", testpki.HS256(t, secret, with("iat", time.Now().Add(hour).Unix())), NotYetValid},
		{"wrong audience", testpki.HS256(t, secret, with("aud", "another-service")), Audience},
		{"wrong issuer", testpki.HS256(t, secret, with("iss", "https://evil.example")), Issuer},
		{"bad HS256 signature", testpki.HS256(t, "another secret, just as long!!!!", good), Signature},
		{"unknown ES256 key", testpki.ES256(t, other, good), Signature},
		{"alg none", testpki.None(t, good), Algorithm},
		{"no subject", testpki.HS256(t, secret, with("sub", nil)), Subject},
		{"malformed", "abc.def.ghi", Malformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			sub, r := v.Verify(c.token)
			switch {
			case c.want == "" && r != nil:
				t.Fatalf("refused: %v (%s)", r, r.Reason)
			case c.want == "" && sub != "jules":
				t.Fatalf("subject %q, want jules", sub)
			case c.want != "" && r == nil:
				t.Fatalf("accepted as %q, want refused for %s", sub, c.want)
			case c.want != "" && r.Reason != c.want:
				t.Fatalf("refused for %s (%v), want %s", r.Reason, r, c.want)
			}
		})
	}
}

// TestSubjectClaim: the agent id comes from the configured claim.
func TestSubjectClaim(t *testing.T) {
	v, err := NewVerifier(&config.JWT{HS256Secret: secret, SubjectClaim: "agent_id"})
	if err != nil {
		t.Fatal(err)
	}
	c := testpki.Good("user-7", "", "")
	c["agent_id"] = "Eddy"
	if sub, r := v.Verify(testpki.HS256(t, secret, c)); r != nil || sub != "Eddy" {
		t.Fatalf("got %q, %v; want Eddy", sub, r)
	}
}

// TestBadKeyFiles: key files that cannot be used are errors naming them.
func TestBadKeyFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		cfg  config.JWT
		want string
	}{
		{"missing PEM", config.JWT{PublicKeys: []string{dir + "/none.pem"}}, "auth.jwt.public_keys: open " + dir + "/none.pem: no such file or directory"},
		{"not PEM", config.JWT{PublicKeys: []string{testpki.Write(t, dir, "x.pem", []byte("hello"))}},
			"auth.jwt.public_keys: " + dir + "/x.pem: no PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE block"},
		{"not JWKS", config.JWT{JWKSFile: testpki.Write(t, dir, "j.json", []byte(`{"keys": 3}`))},
			"auth.jwt.jwks_file: " + dir + "/j.json: not a JWKS: json: cannot unmarshal number into Go struct field .keys of type []struct { Kty string; Kid string; Use string; Alg string; Crv string; N string; E string; X string; Y string }"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := NewVerifier(&c.cfg); err == nil || err.Error() != c.want {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestSigner: minted tokens verify with the signing key's public half,
// name sender and receiver, and are reused while young.
func TestSigner(t *testing.T) {
	dir := t.TempDir()
	key := testpki.ECKey(t)
	g, err := NewSigner(&config.Sign{Key: testpki.Write(t, dir, "bridge.pem", testpki.PrivatePEM(t, key)), Issuer: "mcp-bridge", TTL: time.Minute}, "")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := g.Mint("eddy", "fuse-agent", now)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(&config.JWT{PublicKeys: []string{testpki.Write(t, dir, "pub.pem", testpki.PublicPEM(t, g.Public()))},
		Issuer: "mcp-bridge", Audience: "fuse-agent"})
	if err != nil {
		t.Fatal(err)
	}
	if sub, r := v.Verify(tok); r != nil || sub != "eddy" {
		t.Fatalf("minted token: %q, %v", sub, r)
	}
	if again, _ := g.Mint("eddy", "fuse-agent", now.Add(10*time.Second)); again != tok {
		t.Error("a young token was not reused")
	}
	if later, _ := g.Mint("eddy", "fuse-agent", now.Add(40*time.Second)); later == tok {
		t.Error("a token past half its life was reused")
	}
}

func TestLooksLikeJWT(t *testing.T) {
	for s, want := range map[string]bool{"s3cret": false, "a.b.c": false, testpki.HS256(t, secret, testpki.Good("x", "", "")): true, "has space.in it.xxxxxxxxxxxxxxx": false} {
		if LooksLikeJWT(s) != want {
			t.Errorf("LooksLikeJWT(%q) = %v", s, !want)
		}
	}
}
