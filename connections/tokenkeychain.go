package connections

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dispatch/keychain"
)

// Token stores: where the secrets of a token entry (the client secret, the
// access and refresh tokens) are kept. The rest of the entry (server, client
// id, expiry, scopes, discovered metadata) stays in the token file either
// way, which is also the list of entries.
const (
	TokenStoreFile     = "file"
	TokenStoreKeychain = "keychain"
)

// KeychainService names dispatch's items in the OS keychain.
const KeychainService = "dispatch"

// keychainSecrets is the one keychain item of an entry.
type keychainSecrets struct {
	ClientSecret string `json:"clientSecret,omitempty"`
	AccessToken  string `json:"accessToken,omitempty"`
	RefreshToken string `json:"refreshToken,omitempty"`
}

func (s keychainSecrets) empty() bool { return s == keychainSecrets{} }

// keychainAccount names the keychain item of the entry under key: its
// server URL, and the configured client id when there is one.
func keychainAccount(key string) string {
	url, clientID, _ := strings.Cut(key, "\n")
	if clientID == "" {
		return url
	}
	return url + " clientId=" + clientID
}

// keychainFix is what to do when the keychain cannot be used.
const keychainFix = "unlock or start the OS keychain, or keep tokens in the file with --token-store file"

// keychainError adds the fix to an unusable keychain's error.
func keychainError(err error) error {
	var unavailable *keychain.UnavailableError
	switch {
	case errors.As(err, &unavailable):
		return fmt.Errorf("%w: %s", err, keychainFix)
	case errors.Is(err, keychain.ErrTooLarge):
		return fmt.Errorf("%w: keep tokens in the file with --token-store file", err)
	}
	return err
}

// cachedSecrets are an entry's secrets as last read from or written to the
// keychain, with the version the token file names for them.
type cachedSecrets struct {
	version string
	secrets keychainSecrets
}

// loadSecretsLocked fills e (the entry under key, as read from the file)
// with its secrets from the keychain when they are there. found is false
// when the keychain no longer has them (removed by hand): the entry is
// then as good as absent.
func (f *TokenFile) loadSecretsLocked(key string, e *TokenEntry) (filled *TokenEntry, found bool, err error) {
	if e == nil || e.SecretsIn != TokenStoreKeychain {
		return e, true, nil
	}
	if f.keychain == nil {
		return nil, false, fmt.Errorf("the tokens of %s are in the OS keychain: use --token-store keychain", SanitizeURL(e.URL))
	}
	var secrets keychainSecrets
	if c, ok := f.cache[key]; ok && c.version != "" && c.version == e.SecretsVersion {
		secrets = c.secrets
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), keychain.DefaultTimeout)
		defer cancel()
		raw, err := f.keychain.Get(ctx, keychainAccount(key))
		if errors.Is(err, keychain.ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("the tokens of %s: %w", SanitizeURL(e.URL), keychainError(err))
		}
		if err := json.Unmarshal([]byte(raw), &secrets); err != nil {
			return nil, false, fmt.Errorf("the keychain item of %s is not dispatch's (%v): run dispatch auth logout and login again", SanitizeURL(e.URL), err)
		}
		f.cache[key] = cachedSecrets{version: e.SecretsVersion, secrets: secrets}
	}
	filled = e.clone()
	filled.ClientSecret = secrets.ClientSecret
	if filled.Token != nil {
		filled.Token.AccessToken, filled.Token.RefreshToken = secrets.AccessToken, secrets.RefreshToken
	}
	f.learn(filled)
	return filled, true, nil
}

// storeSecretsLocked returns e (complete, under key) as the token file is to
// keep it: with its secrets when the file is the store, else with them
// written to the keychain and left out.
func (f *TokenFile) storeSecretsLocked(key string, e *TokenEntry) (*TokenEntry, error) {
	stored := e.clone()
	stored.SecretsIn, stored.SecretsVersion = "", ""
	if f.store != TokenStoreKeychain {
		return stored, nil
	}
	secrets := keychainSecrets{ClientSecret: e.ClientSecret}
	if e.Token != nil {
		secrets.AccessToken, secrets.RefreshToken = e.Token.AccessToken, e.Token.RefreshToken
	}
	if secrets.empty() {
		return stored, nil
	}
	raw, err := json.Marshal(secrets)
	if err != nil {
		return nil, fmt.Errorf("encode the keychain item: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), keychain.DefaultTimeout)
	defer cancel()
	if err := f.keychain.Set(ctx, keychainAccount(key), string(raw)); err != nil {
		return nil, fmt.Errorf("keep the tokens of %s: %w", SanitizeURL(e.URL), keychainError(err))
	}
	stored.SecretsIn, stored.SecretsVersion = TokenStoreKeychain, newSecretsVersion()
	stored.ClientSecret = ""
	if stored.Token != nil {
		stored.Token.AccessToken, stored.Token.RefreshToken = "", ""
	}
	f.cache[key] = cachedSecrets{version: stored.SecretsVersion, secrets: secrets}
	return stored, nil
}

// deleteSecretsLocked removes the keychain item under key; one already
// gone is no error.
func (f *TokenFile) deleteSecretsLocked(key, url string) error {
	delete(f.cache, key)
	if f.keychain == nil {
		return fmt.Errorf("the tokens of %s are in the OS keychain: use --token-store keychain", SanitizeURL(url))
	}
	ctx, cancel := context.WithTimeout(context.Background(), keychain.DefaultTimeout)
	defer cancel()
	err := f.keychain.Delete(ctx, keychainAccount(key))
	if err != nil && !errors.Is(err, keychain.ErrNotFound) {
		return fmt.Errorf("delete the tokens of %s: %w", SanitizeURL(url), keychainError(err))
	}
	return nil
}

// newSecretsVersion names one write of an entry's secrets to the keychain,
// so that a process whose cached copy is older reads them again.
func newSecretsVersion() string { return rand.Text() }

// CheckStore reports whether the chosen store can be used: the keychain
// answers. Login calls it before sending anyone to a browser.
func (f *TokenFile) CheckStore(ctx context.Context) error {
	if f.store != TokenStoreKeychain {
		return nil
	}
	if err := f.keychain.Check(ctx); err != nil {
		return keychainError(err)
	}
	return nil
}

// StoreName says where the chosen store keeps tokens, for messages.
func (f *TokenFile) StoreName() string {
	if f.store == TokenStoreKeychain {
		return "the " + f.keychain.Name() + ", listed in " + f.path
	}
	return f.path
}

// clone copies e deeply enough to change its secrets.
func (e *TokenEntry) clone() *TokenEntry {
	c := *e
	if e.Token != nil {
		token := *e.Token
		c.Token = &token
	}
	return &c
}

// Store is where e's secrets are: TokenStoreFile or TokenStoreKeychain.
func (e *TokenEntry) Store() string {
	if e.SecretsIn == TokenStoreKeychain {
		return TokenStoreKeychain
	}
	return TokenStoreFile
}
