package connections

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// MaxPrivateKeyFileBytes bounds the PEM file of oauth.privateKeyFile: a
// 4096-bit RSA key is about 3 KiB.
const MaxPrivateKeyFileBytes = 64 << 10

// clientAssertionLifetime is how long a private_key_jwt assertion is
// valid: it is used once, at once.
const clientAssertionLifetime = time.Minute

// loadPrivateKey reads the client's signing key: a PEM PKCS #8, SEC 1 (EC)
// or PKCS #1 (RSA) private key.
func loadPrivateKey(path string) (crypto.Signer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("oauth.privateKeyFile: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxPrivateKeyFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("oauth.privateKeyFile: %w", err)
	}
	if len(raw) > MaxPrivateKeyFileBytes {
		return nil, fmt.Errorf("oauth.privateKeyFile %s is larger than %d KiB: it should hold one PEM private key", path, MaxPrivateKeyFileBytes>>10)
	}
	return parsePrivateKey(raw)
}

func parsePrivateKey(raw []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, errors.New("oauth.privateKeyFile holds no PEM block: give a PEM private key (BEGIN PRIVATE KEY)")
	}
	if key, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if signer, ok := key.(crypto.Signer); ok {
			return signer, nil
		}
		return nil, fmt.Errorf("oauth.privateKeyFile: a %T key cannot sign client assertions; use an EC (P-256, P-384) or RSA key", key)
	}
	if key, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return key, nil
	}
	if key, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return key, nil
	}
	return nil, fmt.Errorf("oauth.privateKeyFile: the %q PEM block is not a PKCS #8, EC or RSA private key", block.Type)
}

// signingAlg is the JWS algorithm for key.
func signingAlg(key crypto.Signer) (string, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		}
		return "", fmt.Errorf("oauth.privateKeyFile: EC curve %s is not supported; use P-256 or P-384", k.Curve.Params().Name)
	case *rsa.PrivateKey:
		return "RS256", nil
	}
	return "", fmt.Errorf("oauth.privateKeyFile: a %T key is not supported; use an EC (P-256, P-384) or RSA key", key)
}

// clientAssertion is a private_key_jwt client assertion (RFC 7523 §2.2):
// issued by and about clientID, for the authorization server audience,
// signed with key. algs are the algorithms the server accepts (any when
// empty).
func clientAssertion(key crypto.Signer, clientID, audience string, algs []string) (string, error) {
	alg, err := signingAlg(key)
	if err != nil {
		return "", err
	}
	if len(algs) > 0 && !slices.Contains(algs, alg) {
		return "", fmt.Errorf("the authorization server accepts client assertions signed with %s, and oauth.privateKeyFile's key signs %s", strings.Join(algs, ", "), alg)
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", err
	}
	now := time.Now()
	header, err := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	if err != nil {
		return "", err
	}
	claims, err := json.Marshal(map[string]any{
		"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(clientAssertionLifetime).Unix(),
		"jti": hex.EncodeToString(id),
	})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signingInput := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sig, err := signJWS(key, alg, []byte(signingInput))
	if err != nil {
		return "", fmt.Errorf("sign the client assertion: %w", err)
	}
	return signingInput + "." + enc.EncodeToString(sig), nil
}

func signJWS(key crypto.Signer, alg string, input []byte) ([]byte, error) {
	switch alg {
	case "ES256", "ES384":
		ec := key.(*ecdsa.PrivateKey)
		var digest []byte
		if alg == "ES256" {
			sum := sha256.Sum256(input)
			digest = sum[:]
		} else {
			sum := sha512.Sum384(input)
			digest = sum[:]
		}
		r, s, err := ecdsa.Sign(rand.Reader, ec, digest)
		if err != nil {
			return nil, err
		}
		// JWS wants r and s as fixed-size big-endian halves, not ASN.1.
		size := (ec.Curve.Params().BitSize + 7) / 8
		out := make([]byte, 2*size)
		r.FillBytes(out[:size])
		s.FillBytes(out[size:])
		return out, nil
	case "RS256":
		sum := sha256.Sum256(input)
		return rsa.SignPKCS1v15(rand.Reader, key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
	}
	return nil, fmt.Errorf("unsupported algorithm %s", alg)
}
