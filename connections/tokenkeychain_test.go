package connections

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dispatch/keychain"

	"github.com/mark3labs/mcp-go/client/transport"
)

// testKeychain returns the real OS keychain under a service name of this
// test's own, emptied after it; the test is skipped when no keychain
// answers here (on Linux: no Secret Service on the session bus, which
// scripts/keychain-test.sh starts).
func testKeychain(t *testing.T) *keychain.Keychain {
	t.Helper()
	kc := keychain.New("dispatch-test-"+rand.Text(), 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := kc.Check(ctx); err != nil {
		if os.Getenv("DISPATCH_KEYCHAIN_TEST") == "1" {
			t.Fatalf("DISPATCH_KEYCHAIN_TEST=1 but no OS keychain answers: %v", err)
		}
		t.Skipf("no OS keychain reachable here (%v); on Linux run scripts/keychain-test.sh, which starts a real Secret Service", err)
	}
	return kc
}

// keychainItem is the raw keychain item of cfg's entry, or "" when there
// is none.
func keychainItem(t *testing.T, kc *keychain.Keychain, cfg ServerConfig) string {
	t.Helper()
	raw, err := kc.Get(context.Background(), keychainAccount(tokenKey(cfg)))
	if errors.Is(err, keychain.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatalf("read the keychain: %v", err)
	}
	return raw
}

func readTokenFile(t *testing.T, tokens *TokenFile) string {
	t.Helper()
	raw, err := os.ReadFile(tokens.Path())
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestKeychain_LoginRefreshLogout: with the keychain store, the tokens are
// in the keychain and not in the file, a refresh replaces them there (seen
// by another process's token store), and logout deletes the item.
func TestKeychain_LoginRefreshLogout(t *testing.T) {
	kc := testKeychain(t)
	as := newAuthServer(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	path := filepath.Join(t.TempDir(), "state", TokenFileName)
	r := NewRedactor(cfg)
	tokens := NewTokenStore(path, r, TokenStoreKeychain, kc)
	t.Cleanup(func() { tokens.Remove(cfg) }) //nolint:errcheck // best effort: the item is the test's own

	login(t, cfg, tokens)
	first := secretsOf(t, tokens, cfg)
	item := keychainItem(t, kc, cfg)
	file := readTokenFile(t, tokens)
	for _, s := range first {
		if s == "" {
			t.Fatal("login kept an empty token")
		}
		if !strings.Contains(item, s) {
			t.Error("a token is not in the keychain item")
		}
		if strings.Contains(file, s) {
			t.Error("a token is in the token file although the keychain holds it")
		}
	}
	if e, err := tokens.Entry(cfg); err != nil || e.Store() != TokenStoreKeychain {
		t.Errorf("entry store = %v, %v; want keychain", e, err)
	}

	expireSoon(t, tokens, cfg) // the next use refreshes it
	c := oauthConn(t, cfg, tokens, r)
	if got, err := callEcho(t, c, "x"); err != nil || got != "x" {
		t.Fatalf("call: %q, %v", got, err)
	}
	as.mu.Lock()
	refreshes := as.refreshes
	as.mu.Unlock()
	if refreshes == 0 {
		t.Fatal("a token about to expire was not refreshed")
	}
	// Another process: its own token store and redactor, nothing cached.
	r2 := NewRedactor()
	other := NewTokenStore(path, r2, TokenStoreKeychain, kc)
	second := secretsOf(t, other, cfg)
	if second[0] == first[0] || second[1] == first[1] {
		t.Error("the refreshed tokens did not reach the keychain")
	}
	if item := keychainItem(t, kc, cfg); !strings.Contains(item, second[0]) {
		t.Error("the keychain item does not hold the refreshed access token")
	}
	for _, s := range second {
		if strings.Contains(readTokenFile(t, tokens), s) {
			t.Error("a refreshed token is in the token file")
		}
		if got := r2.String("token " + s); strings.Contains(got, s) {
			t.Errorf("the redactor of a process that read the keychain does not mask a token: %q", got)
		}
	}

	removed, err := other.Remove(cfg)
	if err != nil || !removed {
		t.Fatalf("remove: %v, %v", removed, err)
	}
	if item := keychainItem(t, kc, cfg); item != "" {
		t.Error("logout left the keychain item")
	}
	if e, err := tokens.Entry(cfg); err != nil || e != nil {
		t.Errorf("entry after logout: %v, %v", e, err)
	}
}

// TestKeychain_StoreChangeMovesEntry: an entry written to the file moves to
// the keychain on its next write with the keychain store, and back.
func TestKeychain_StoreChangeMovesEntry(t *testing.T) {
	kc := testKeychain(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: "https://mcp.example.com/mcp",
		OAuth: &OAuthSettings{ClientID: "cid", ClientSecret: "client-secret-7c1f0e9a"}}
	path := filepath.Join(t.TempDir(), TokenFileName)
	asFile := NewTokenStore(path, nil, TokenStoreFile, kc)
	asKeychain := NewTokenStore(path, nil, TokenStoreKeychain, kc)
	t.Cleanup(func() { asKeychain.Remove(cfg) }) //nolint:errcheck // best effort: the item is the test's own

	const access, refresh = "access-token-5b2d9c", "refresh-token-8e4a1f"
	setToken := func(tokens *TokenFile, suffix string) {
		t.Helper()
		err := tokens.update(cfg, func(e *TokenEntry) {
			e.ClientID, e.ClientSecret = "cid", cfg.OAuth.ClientSecret
			e.Token = &transport.Token{AccessToken: access + suffix, RefreshToken: refresh + suffix, ExpiresAt: time.Now().Add(time.Hour)}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	setToken(asFile, "1")
	if !strings.Contains(readTokenFile(t, asFile), access+"1") || keychainItem(t, kc, cfg) != "" {
		t.Fatal("the file store wrote the keychain, or not the file")
	}
	setToken(asKeychain, "2")
	file, item := readTokenFile(t, asFile), keychainItem(t, kc, cfg)
	for _, s := range []string{access + "2", refresh + "2", cfg.OAuth.ClientSecret} {
		if strings.Contains(file, s) || !strings.Contains(item, s) {
			t.Errorf("%s: in the file %v, in the keychain %v; want only the keychain", s, strings.Contains(file, s), strings.Contains(item, s))
		}
	}
	// The file store still reads what the keychain holds...
	if e, err := asFile.Entry(cfg); err != nil || e.Token.AccessToken != access+"2" || e.ClientSecret != cfg.OAuth.ClientSecret {
		t.Fatalf("file store reading a keychain entry: %+v, %v", e, err)
	}
	// ...and moves it back on its next write, deleting the item.
	setToken(asFile, "3")
	if !strings.Contains(readTokenFile(t, asFile), access+"3") || keychainItem(t, kc, cfg) != "" {
		t.Error("the entry did not move back to the file, or its keychain item was left")
	}
}

// TestKeychain_OtherProcessWriteSeen: a store that cached an entry's
// secrets reads them again once another process has written new ones.
func TestKeychain_OtherProcessWriteSeen(t *testing.T) {
	kc := testKeychain(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: "https://mcp.example.com/mcp"}
	path := filepath.Join(t.TempDir(), TokenFileName)
	mine, theirs := NewTokenStore(path, nil, TokenStoreKeychain, kc), NewTokenStore(path, nil, TokenStoreKeychain, kc)
	t.Cleanup(func() { mine.Remove(cfg) }) //nolint:errcheck // best effort: the item is the test's own
	for i, tokens := range []*TokenFile{mine, theirs} {
		access := fmt.Sprintf("access-token-%d-6a0c", i)
		if err := tokens.update(cfg, func(e *TokenEntry) { e.Token = &transport.Token{AccessToken: access} }); err != nil {
			t.Fatal(err)
		}
		if e, err := mine.Entry(cfg); err != nil || e.Token.AccessToken != access {
			t.Fatalf("after write %d: %+v, %v; want access token %s", i, e, err, access)
		}
	}
}

// TestKeychain_ItemRemovedByHand: an entry whose keychain item is gone is
// not logged in, rather than logged in with empty tokens.
func TestKeychain_ItemRemovedByHand(t *testing.T) {
	kc := testKeychain(t)
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: "https://mcp.example.com/mcp"}
	tokens := NewTokenStore(filepath.Join(t.TempDir(), TokenFileName), nil, TokenStoreKeychain, kc)
	err := tokens.update(cfg, func(e *TokenEntry) { e.Token = &transport.Token{AccessToken: "access-token-3f9e"} })
	if err != nil {
		t.Fatal(err)
	}
	if err := kc.Delete(context.Background(), keychainAccount(tokenKey(cfg))); err != nil {
		t.Fatal(err)
	}
	fresh := NewTokenStore(tokens.Path(), nil, TokenStoreKeychain, kc)
	if e, err := fresh.Entry(cfg); err != nil || e != nil {
		t.Errorf("entry without its keychain item = %+v, %v; want none", e, err)
	}
}

// BenchmarkTokenStore_Entry reads one entry, as every request to an OAuth
// server does: from the file store, from the keychain store with the
// file's version matching the cached secrets (the usual case), and from
// the keychain store with nothing cached (another process just wrote).
func BenchmarkTokenStore_Entry(b *testing.B) {
	kc := keychain.New("dispatch-bench-"+rand.Text(), 5*time.Second)
	if err := kc.Check(context.Background()); err != nil {
		b.Skipf("no OS keychain reachable here (%v); on Linux run under scripts/keychain-test.sh", err)
	}
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: "https://mcp.example.com/mcp"}
	for _, store := range []string{TokenStoreFile, TokenStoreKeychain} {
		tokens := NewTokenStore(filepath.Join(b.TempDir(), TokenFileName), nil, store, kc)
		err := tokens.update(cfg, func(e *TokenEntry) {
			e.Token = &transport.Token{AccessToken: "access-token-2e7c", RefreshToken: "refresh-token-9d1a", ExpiresAt: time.Now().Add(time.Hour)}
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { tokens.Remove(cfg) }) //nolint:errcheck // best effort: the item is the bench's own
		run := func(name string, uncached bool) {
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if uncached {
						tokens.mu.Lock()
						clear(tokens.cache)
						tokens.mu.Unlock()
					}
					if e, err := tokens.Entry(cfg); err != nil || e.Token.AccessToken == "" {
						b.Fatalf("entry: %v, %v", e, err)
					}
				}
			})
		}
		run(store, false)
		if store == TokenStoreKeychain {
			run("keychain-uncached", true)
		}
	}
}
