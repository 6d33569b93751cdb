package trust

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
)

// parsePublicKeys reads every RSA or EC P-256 public key of PEM data: PUBLIC
// KEY, RSA PUBLIC KEY and CERTIFICATE blocks.
func parsePublicKeys(data []byte) ([]crypto.PublicKey, error) {
	var keys []crypto.PublicKey
	for n := 1; ; n++ {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		var k any
		var err error
		switch b.Type {
		case "PUBLIC KEY":
			k, err = x509.ParsePKIXPublicKey(b.Bytes)
		case "RSA PUBLIC KEY":
			k, err = x509.ParsePKCS1PublicKey(b.Bytes)
		case "CERTIFICATE":
			var c *x509.Certificate
			if c, err = x509.ParseCertificate(b.Bytes); err == nil {
				k = c.PublicKey
			}
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("PEM block %d (%s): %w", n, b.Type, err)
		}
		if err := usable(k); err != nil {
			return nil, fmt.Errorf("PEM block %d (%s): %w", n, b.Type, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE block")
	}
	return keys, nil
}

// usable checks that k is an RSA key (RS256) or an EC P-256 key (ES256).
func usable(k any) error {
	switch k := k.(type) {
	case *rsa.PublicKey:
		return nil
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return fmt.Errorf("an EC key on %s; ES256 needs P-256", k.Curve.Params().Name)
		}
		return nil
	}
	return fmt.Errorf("a %T; only RSA (RS256) and EC P-256 (ES256) keys are accepted", k)
}

func isRSA(k crypto.PublicKey) bool { _, ok := k.(*rsa.PublicKey); return ok }

// jwk is one key of a JSON Web Key Set.
type jwk struct {
	kid string
	alg string // the algorithm the set binds the key to; "" for any of its type
	key crypto.PublicKey
}

// readJWKS reads the RSA and EC P-256 keys of a JSON Web Key Set file
// (RFC 7517); keys of other types are skipped.
func readJWKS(path string) ([]jwk, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth.jwt.jwks_file: %w", err)
	}
	set, err := parseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("auth.jwt.jwks_file: %s: %w", path, err)
	}
	out := set[:0]
	for _, k := range set {
		if usable(k.key) == nil {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("auth.jwt.jwks_file: %s: no RSA or EC P-256 signing key", path)
	}
	return out, nil
}

// parseJWKS reads the signing keys of a JSON Web Key Set (RFC 7517): RSA,
// EC P-256 and Ed25519 (OKP) keys. Keys of other types (symmetric "oct"
// keys among them) and keys for encryption are skipped; a set with no
// signing key left is an error.
func parseJWKS(data []byte) ([]jwk, error) {
	var set struct {
		Keys []struct {
			Kty, Kid, Use, Alg, Crv, N, E, X, Y string
		} `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("not a JWKS: %w", err)
	}
	var out []jwk
	for i, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var key crypto.PublicKey
		var err error
		switch k.Kty {
		case "RSA":
			key, err = rsaJWK(k.N, k.E)
		case "EC":
			key, err = ecJWK(k.Crv, k.X, k.Y)
		case "OKP":
			if k.Crv != "Ed25519" {
				continue
			}
			key, err = ed25519JWK(k.X)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("keys[%d]: %w", i, err)
		}
		out = append(out, jwk{kid: k.Kid, alg: k.Alg, key: key})
	}
	if len(out) == 0 {
		return nil, errors.New("no RSA, EC P-256 or Ed25519 signing key")
	}
	return out, nil
}

func ed25519JWK(x string) (crypto.PublicKey, error) {
	xb, err := base64.RawURLEncoding.DecodeString(x)
	if err != nil || len(xb) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("an Ed25519 key needs x, %d bytes, base64url", ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(xb), nil
}

func rsaJWK(n, e string) (crypto.PublicKey, error) {
	nb, err1 := base64.RawURLEncoding.DecodeString(n)
	eb, err2 := base64.RawURLEncoding.DecodeString(e)
	if err := errors.Join(err1, err2); err != nil || len(nb) == 0 || len(eb) == 0 || len(eb) > 4 {
		return nil, errors.New("an RSA key needs n and e, base64url")
	}
	exp := int(new(big.Int).SetBytes(eb).Int64())
	return &rsa.PublicKey{N: new(big.Int).SetBytes(nb), E: exp}, nil
}

func ecJWK(crv, x, y string) (crypto.PublicKey, error) {
	if crv != "P-256" {
		return nil, fmt.Errorf("an EC key on %q; ES256 needs P-256", crv)
	}
	xb, err1 := base64.RawURLEncoding.DecodeString(x)
	yb, err2 := base64.RawURLEncoding.DecodeString(y)
	if err := errors.Join(err1, err2); err != nil || len(xb) != 32 || len(yb) != 32 {
		return nil, errors.New("an EC key needs x and y, 32 bytes each, base64url")
	}
	// The uncompressed point: 0x04 || x || y.
	point := append(append([]byte{4}, xb...), yb...)
	k, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	if err != nil {
		return nil, fmt.Errorf("the EC point is not on P-256: %w", err)
	}
	return k, nil
}

// readPrivateKey reads the RSA or EC P-256 private key of a PEM file.
func readPrivateKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth.jwt.sign.key: %w", err)
	}
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("auth.jwt.sign.key: %s: no PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block", path)
		}
		var k any
		switch b.Type {
		case "PRIVATE KEY":
			k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
		case "RSA PRIVATE KEY":
			k, err = x509.ParsePKCS1PrivateKey(b.Bytes)
		case "EC PRIVATE KEY":
			k, err = x509.ParseECPrivateKey(b.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("auth.jwt.sign.key: %s: %w", path, err)
		}
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("auth.jwt.sign.key: %s: a %T cannot sign", path, k)
		}
		if err := usable(s.Public()); err != nil {
			return nil, fmt.Errorf("auth.jwt.sign.key: %s: %w", path, err)
		}
		return s, nil
	}
}
