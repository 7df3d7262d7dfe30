package connections

import (
	"dispatch/internal/testkit"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// expireSoon makes cfg's stored access token one that expires within a
// second, as if it had been issued long ago.
func expireSoon(t *testing.T, tokens *TokenFile, cfg ServerConfig) {
	t.Helper()
	if err := tokens.update(cfg, func(e *TokenEntry) { e.Token.ExpiresAt = time.Now().Add(time.Second) }); err != nil {
		t.Fatal(err)
	}
}

func refreshesOf(as *authServer) int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.refreshes
}

// Many connections finding the same token about to expire refresh it once
// between them, whether they share a token file (one process) or each open
// their own (processes): the authorization server rotates refresh tokens,
// so a second refresh with the same one would be refused.
func TestOAuth_ConcurrentRefreshesRefreshOnce(t *testing.T) {
	for _, shared := range []bool{true, false} {
		name := map[bool]string{true: "one token file", false: "a token file each"}[shared]
		t.Run(name, func(t *testing.T) {
			as := newAuthServer(t)
			cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
			path := filepath.Join(t.TempDir(), TokenFileName)
			first := NewTokenFile(path, nil)
			login(t, cfg, first)
			expireSoon(t, first, cfg)

			const callers = 6
			conns := make([]*Conn, callers)
			for i := range conns {
				tokens := first
				if !shared {
					tokens = NewTokenFile(path, nil)
				}
				conns[i] = oauthConn(t, cfg, tokens, nil)
			}
			var wg sync.WaitGroup
			errs := make([]error, callers)
			for i, c := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = callEcho(t, c, "x")
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("caller %d: %v", i, err)
				}
			}
			if n := refreshesOf(as); n != 1 {
				t.Errorf("refreshes = %d, want 1", n)
			}
		})
	}
}

// A token whose whole lifetime is shorter than TokenRefreshMargin is not
// refreshed on every request: only after half its lifetime.
func TestOAuth_ShortLivedTokenNotRefreshedAtOnce(t *testing.T) {
	as := newAuthServer(t)
	as.expiresIn = 20 // shorter than TokenRefreshMargin
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	login(t, cfg, tokens)
	c := oauthConn(t, cfg, tokens, nil)
	for i := 0; i < 3; i++ {
		if got, err := callEcho(t, c, "x"); err != nil || got != "x" {
			t.Fatalf("call %d: %q, %v", i, got, err)
		}
	}
	if n := refreshesOf(as); n != 0 {
		t.Errorf("refreshes of a token just issued = %d, want 0", n)
	}
}

// A server that refuses the listening stream (GET) whatever the token gets
// a bounded number of tries, further apart each time, one refresh at most,
// and a warning in the log; the connection's calls keep working.
func TestOAuth_RefusedListeningStreamIsBounded(t *testing.T) {
	as := newAuthServer(t)
	var refused atomic.Int32
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServerWith(t, as, protectedOptions{refuseListen: true, listenRefused: &refused})}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	login(t, cfg, tokens)
	var logs testkit.SyncBuffer
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Tokens: tokens,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	set.SetUpstream(&urlAgent{}) // an agent with capabilities: dispatch listens for the server's requests
	c := set.Conns()[0]
	if got, err := callEcho(t, c, "x"); err != nil || got != "x" {
		t.Fatalf("call: %q, %v", got, err)
	}
	// The listener gives up after MaxListenRefusals; wait for that, well
	// past the time its back-off needs.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(logs.String(), "stopped listening") {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "stopped listening") {
		t.Fatalf("no warning that the listening stream stopped; %d GETs refused; log:\n%s", refused.Load(), logs.String())
	}
	settled := refused.Load()
	time.Sleep(2500 * time.Millisecond) // more than mcp-go's 1s retry: a listener still going would GET again
	// The first refusal is tried once more with a renewed token.
	if n := refused.Load(); n != settled || n > MaxListenRefusals+1 {
		t.Errorf("refused GETs = %d, then %d: want at most %d, and none after the listener stopped", settled, n, MaxListenRefusals+1)
	}
	if n := refreshesOf(as); n > 1 {
		t.Errorf("refreshes = %d, want at most 1", n)
	}
	if got, err := callEcho(t, c, "y"); err != nil || got != "y" {
		t.Errorf("call after the listener stopped: %q, %v", got, err)
	}
}

// A refresh token the authorization server refused is not kept: the entry
// says a login is needed (what dispatch auth status shows), and a login
// clears it.
func TestOAuth_RevokedRefreshIsRecorded(t *testing.T) {
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), nil)
	login(t, cfg, tokens)
	as.revokeAll()
	if _, err := callEcho(t, oauthConn(t, cfg, tokens, nil), "x"); err == nil {
		t.Fatal("a call with revoked tokens succeeded")
	}
	e, err := tokens.Entry(cfg)
	if err != nil || e == nil {
		t.Fatalf("entry: %v, %v", e, err)
	}
	if e.Token != nil || !strings.Contains(e.LoginNeeded, "refused the refresh token") {
		t.Errorf("entry after a refused refresh: token kept %v, loginNeeded %q", e.Token != nil, e.LoginNeeded)
	}
	login(t, cfg, tokens)
	if e, err := tokens.Entry(cfg); err != nil || e.Token == nil || e.LoginNeeded != "" {
		t.Errorf("entry after a new login: %+v, %v", e, err)
	}
}
