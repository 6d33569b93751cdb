package trust

import (
	"crypto"
	"crypto/ecdsa"
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

// jwk is one key of a JWKS file.
type jwk struct {
	kid string
	key crypto.PublicKey
}

// readJWKS reads the RSA and EC P-256 keys of a JSON Web Key Set file
// (RFC 7517); keys of other types are skipped.
func readJWKS(path string) ([]jwk, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth.jwt.jwks_file: %w", err)
	}
	var set struct {
		Keys []struct {
			Kty, Kid, Use, Crv, N, E, X, Y string
		} `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("auth.jwt.jwks_file: %s: not a JWKS: %w", path, err)
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
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("auth.jwt.jwks_file: %s: keys[%d]: %w", path, i, err)
		}
		out = append(out, jwk{kid: k.Kid, key: key})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("auth.jwt.jwks_file: %s: no RSA or EC P-256 signing key", path)
	}
	return out, nil
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
