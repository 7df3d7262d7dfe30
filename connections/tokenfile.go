package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"dispatch/keychain"

	"github.com/mark3labs/mcp-go/client/transport"
)

// MaxTokenFileBytes bounds the token file dispatch reads: it holds a few
// entries per configured server, far below this.
const MaxTokenFileBytes = 4 << 20

// TokenRefreshMargin is how long before its expiry an access token is
// refreshed, so that a call started just before expiry does not reach the
// server with a dead token. A token that lives less than twice as long is
// refreshed after half its lifetime instead: else every request would
// refresh a token just issued.
const TokenRefreshMargin = 30 * time.Second

// TokenFileName is the token file's name in the state directory.
const TokenFileName = "oauth-tokens.json"

// StateDirEnv names the environment variable that sets dispatch's state
// directory (the token file's) on every OS: XDG_STATE_HOME means nothing
// on Windows, and tests must not touch the user's own tokens anywhere.
const StateDirEnv = "DISPATCH_STATE_DIR"

// DefaultTokenFile is where tokens live: $DISPATCH_STATE_DIR, else
// $XDG_STATE_HOME/dispatch, else ~/.local/state/dispatch;
// %LocalAppData%\dispatch on Windows.
func DefaultTokenFile() (string, error) {
	if dir := os.Getenv(StateDirEnv); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", fmt.Errorf("%s=%s is not an absolute path: give the full path of the state directory", StateDirEnv, dir)
		}
		return filepath.Join(dir, TokenFileName), nil
	}
	if runtime.GOOS == "windows" {
		dir, err := os.UserCacheDir() // %LocalAppData%
		if err != nil {
			return "", fmt.Errorf("find the token directory: %w", err)
		}
		return filepath.Join(dir, "dispatch", TokenFileName), nil
	}
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "dispatch", TokenFileName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the token directory: %w (set XDG_STATE_HOME or DISPATCH_STATE_DIR)", err)
	}
	return filepath.Join(home, ".local", "state", "dispatch", TokenFileName), nil
}

// TokenEntry is what is kept for one server URL and client: the client
// (given, or registered dynamically) and its tokens.
type TokenEntry struct {
	URL          string           `json:"url"`
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	AuthMethod   string           `json:"tokenEndpointAuthMethod,omitempty"`
	Token        *transport.Token `json:"token,omitempty"`
	// AuthServer and Resource are what the login discovered: a refresh
	// goes there without discovering again.
	AuthServer *AuthServerMetadata `json:"authServer,omitempty"`
	Resource   string              `json:"resource,omitempty"`
	// Scopes were asked for at the last authorization; StepUpScopes are
	// the wider ones a server asked for since (403 insufficient_scope),
	// which the next login asks for.
	Scopes       []string `json:"scopes,omitempty"`
	StepUpScopes []string `json:"stepUpScopes,omitempty"`
	// SecretsIn is TokenStoreKeychain when the client secret and tokens
	// are in the OS keychain, not here; SecretsVersion names their last
	// write there.
	SecretsIn      string `json:"secretsIn,omitempty"`
	SecretsVersion string `json:"secretsVersion,omitempty"`
	// LoginNeeded says why the tokens were dropped (the authorization
	// server refused the refresh token); a login clears it.
	LoginNeeded string `json:"loginNeeded,omitempty"`
}

type tokenFileData struct {
	Version int                    `json:"version"`
	Entries map[string]*TokenEntry `json:"entries"`
}

// TokenFile is the 0600 JSON file of OAuth clients and tokens, keyed by
// server URL and configured client; with the keychain store, their secrets
// are in the OS keychain and the file keeps the rest. Every write replaces
// the file atomically; every secret read or written is taught to the
// redactor.
type TokenFile struct {
	path     string
	redactor *Redactor
	// store is where secrets written from now on go (TokenStoreFile or
	// TokenStoreKeychain); entries already written are read from where
	// they are, and move on their next write.
	store    string
	keychain *keychain.Keychain
	mu       sync.Mutex
	// cache holds the keychain secrets of each entry as of the version the
	// file names, sparing a keychain read per request.
	cache map[string]cachedSecrets

	// lock keeps other processes out while this one writes or renews.
	lock *processLock

	// renewals holds a one-slot semaphore per entry key: one renewal of
	// an entry at a time in this process, whichever connection asks.
	renewalsMu sync.Mutex
	renewals   map[string]chan struct{}
}

// tokenLockSuffix names the lock file next to the token file.
const tokenLockSuffix = ".lock"

// NewTokenFile returns the token file at path, keeping secrets in it; r
// learns every secret in it.
func NewTokenFile(path string, r *Redactor) *TokenFile {
	return NewTokenStore(path, r, TokenStoreFile, nil)
}

// NewTokenStore returns the token file at path, keeping the secrets of new
// and refreshed tokens in store (TokenStoreFile or TokenStoreKeychain); kc
// is the keychain, for that store and for reading entries kept there
// before (nil: none).
func NewTokenStore(path string, r *Redactor, store string, kc *keychain.Keychain) *TokenFile {
	if r == nil {
		r = NewRedactor()
	}
	if kc == nil {
		store = TokenStoreFile
	}
	return &TokenFile{path: path, redactor: r, store: store, keychain: kc, cache: map[string]cachedSecrets{},
		lock: newProcessLock(path + tokenLockSuffix), renewals: map[string]chan struct{}{}}
}

// Store is where secrets written from now on go: TokenStoreFile or
// TokenStoreKeychain.
func (f *TokenFile) Store() string { return f.store }

// lockRenewal keeps cfg's entry for one renewal: no other caller of this
// process, and no other process, renews it (or writes the file) until
// unlock. A refresh token may be good for one use only (rotation): the
// caller reads the entry again once it has the lock, since another may
// have renewed it meanwhile.
func (f *TokenFile) lockRenewal(ctx context.Context, cfg ServerConfig) (unlock func(), err error) {
	key := tokenKey(cfg)
	f.renewalsMu.Lock()
	sem := f.renewals[key]
	if sem == nil {
		sem = make(chan struct{}, 1)
		f.renewals[key] = sem
	}
	f.renewalsMu.Unlock()
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for another renewal of the token: %w", ctx.Err())
	}
	release, err := f.lock.acquire(ctx)
	if err != nil {
		<-sem
		return nil, err
	}
	return func() { release(); <-sem }, nil
}

// Redactor is the redactor that learns the file's secrets.
func (f *TokenFile) Redactor() *Redactor { return f.redactor }

// Path is the file's location.
func (f *TokenFile) Path() string { return f.path }

// tokenKey names a server's entry: its URL and the configured client id
// ("" for a dynamically registered client, whose id is only known later).
func tokenKey(cfg ServerConfig) string {
	clientID := ""
	if cfg.OAuth != nil {
		clientID = cfg.OAuth.ClientID
	}
	return cfg.URL + "\n" + clientID
}

func (f *TokenFile) readLocked() (tokenFileData, error) {
	data := tokenFileData{Version: 1, Entries: map[string]*TokenEntry{}}
	info, err := os.Lstat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return data, nil
	}
	if err != nil {
		return data, fmt.Errorf("read token file: %w", err)
	}
	if err := checkTokenDir(filepath.Dir(f.path)); err != nil {
		return data, err
	}
	if err := checkTokenFile(f.path, info); err != nil {
		return data, err
	}
	file, err := os.Open(f.path)
	if err != nil {
		return data, fmt.Errorf("read token file: %w", err)
	}
	defer file.Close()
	raw, err := io.ReadAll(io.LimitReader(file, MaxTokenFileBytes+1))
	if err != nil {
		return data, fmt.Errorf("read token file %s: %w", f.path, err)
	}
	if len(raw) > MaxTokenFileBytes {
		return data, fmt.Errorf("token file %s is larger than %d bytes: delete it and run dispatch auth login again", f.path, MaxTokenFileBytes)
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		return data, fmt.Errorf("token file %s is not valid JSON (%v): delete it and run dispatch auth login again", f.path, err)
	}
	if data.Entries == nil {
		data.Entries = map[string]*TokenEntry{}
	}
	for _, e := range data.Entries {
		f.learn(e)
	}
	return data, nil
}

func (f *TokenFile) learn(e *TokenEntry) {
	if e == nil {
		return
	}
	f.redactor.LearnSecrets(e.ClientSecret)
	if e.Token != nil {
		f.redactor.LearnSecrets(e.Token.AccessToken, e.Token.RefreshToken)
	}
}

func (f *TokenFile) writeLocked(data tokenFileData) error {
	raw, err := json.MarshalIndent(data, "", "  ")
	if err != nil {
		return fmt.Errorf("encode token file: %w", err)
	}
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create token directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".oauth-tokens-*")
	if err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write token file: %w", err)
	}
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return fmt.Errorf("write token file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write token file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	if err := replaceFile(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	return nil
}

// Entry returns cfg's entry, or nil.
func (f *TokenFile) Entry(cfg ServerConfig) (*TokenEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := f.readLocked()
	if err != nil {
		return nil, err
	}
	key := tokenKey(cfg)
	e, _, err := f.loadSecretsLocked(key, data.Entries[key])
	return e, err
}

// update changes cfg's entry (creating it) under the lock.
func (f *TokenFile) update(cfg ServerConfig, change func(e *TokenEntry)) error {
	release, err := f.lock.acquire(context.Background()) // bounded by TokenLockTimeout
	if err != nil {
		return err
	}
	defer release()
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := f.readLocked()
	if err != nil {
		return err
	}
	key := tokenKey(cfg)
	old := data.Entries[key]
	e, found, err := f.loadSecretsLocked(key, old)
	if err != nil {
		return err
	}
	if e == nil || !found {
		e = &TokenEntry{URL: cfg.URL}
	}
	change(e)
	f.learn(e)
	stored, err := f.storeSecretsLocked(key, e)
	if err != nil {
		return err
	}
	data.Entries[key] = stored
	if err := f.writeLocked(data); err != nil {
		return err
	}
	if old != nil && old.SecretsIn == TokenStoreKeychain && stored.SecretsIn != TokenStoreKeychain {
		// Moved to the file: the keychain item is left over.
		return f.deleteSecretsLocked(key, e.URL)
	}
	return nil
}

// Remove deletes cfg's entry; it reports whether there was one.
func (f *TokenFile) Remove(cfg ServerConfig) (bool, error) {
	release, err := f.lock.acquire(context.Background()) // bounded by TokenLockTimeout
	if err != nil {
		return false, err
	}
	defer release()
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := f.readLocked()
	if err != nil {
		return false, err
	}
	key := tokenKey(cfg)
	e, ok := data.Entries[key]
	if !ok {
		return false, nil
	}
	if e.SecretsIn == TokenStoreKeychain {
		// First: should it fail, the entry still says where they are.
		if err := f.deleteSecretsLocked(key, e.URL); err != nil {
			return false, err
		}
	}
	delete(data.Entries, key)
	return true, f.writeLocked(data)
}

// URLs lists the server URLs that have an entry, sorted.
func (f *TokenFile) URLs() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := f.readLocked()
	if err != nil {
		return nil, err
	}
	var urls []string
	for _, e := range data.Entries {
		urls = append(urls, e.URL)
	}
	sort.Strings(urls)
	return urls, nil
}
