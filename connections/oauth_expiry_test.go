package connections

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// An authorization server's absurd expires_in (up to 2^63-1 seconds) is
// capped at MaxTokenLifetimeSeconds: the token's expiry stays in the
// future, and calls do not refresh it.
func TestOAuth_HugeExpiresInIsCapped(t *testing.T) {
	for _, expiresIn := range []int{math.MaxInt64, 9_300_000_000} {
		t.Run(fmt.Sprint(expiresIn), func(t *testing.T) {
			as := newAuthServer(t)
			as.mu.Lock()
			as.expiresIn = expiresIn
			as.mu.Unlock()
			cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
			r := NewRedactor(cfg)
			tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), r)
			login(t, cfg, tokens)
			e, err := tokens.Entry(cfg)
			if err != nil || e == nil || e.Token == nil {
				t.Fatalf("no token kept: %v", err)
			}
			if until := time.Until(e.Token.ExpiresAt); until < 300*24*time.Hour || until > MaxTokenLifetimeSeconds*time.Second {
				t.Errorf("expires_in %d: the token expires in %s (at %s)", expiresIn, until, e.Token.ExpiresAt)
			}
			c := oauthConn(t, cfg, tokens, r)
			for _, msg := range []string{"one", "two"} {
				if got, err := callEcho(t, c, msg); err != nil || got != msg {
					t.Fatalf("call: %q, %v", got, err)
				}
			}
			if n := refreshesOf(as); n != 0 {
				t.Errorf("a token valid for a year was refreshed %d times", n)
			}
		})
	}
}
