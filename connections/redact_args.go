package connections

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Rules for the credentials of a command line and a URL, beyond the
// secret-named flags (secretName) and credential shapes (secretShape).

// headerFlags take an HTTP header, "Name: value", as their value: the
// --header of mcp-remote and curl, curl's -H.
var headerFlags = map[string]bool{"--header": true, "-header": true, "-H": true}

// passwordShortFlags are the one-letter flags whose value is a password:
// -p of mysql, sshpass, mongosh and many more. Long flags are recognized
// by their name (secretName) instead.
var passwordShortFlags = map[string]bool{"-p": true}

// userFlags take NAME:PASSWORD (curl's -u and --user).
var userFlags = map[string]bool{"-u": true, "--user": true}

// notPassword matches the values of -p (and passwords of -u) that are
// ports, port mappings or numeric IDs, not passwords: psql -p 5432, docker
// run -p 8080:80, docker run -u 1000:1000. Masking them would hide every
// such number in every message.
var notPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9.:]+$`) })

// flagValueSecrets returns the secrets of one argument, given as
// NAME=VALUE or as NAME followed by next (empty when no value follows);
// ok says the argument is a flag or pair whose value was judged.
func flagValueSecrets(arg, next string) (found []string, ok bool) {
	name, value, inline := strings.Cut(arg, "=")
	if strings.Contains(name, "://") {
		return nil, false
	}
	if !inline {
		if !strings.HasPrefix(arg, "-") || next == "" {
			return nil, false
		}
		value = next
	}
	switch {
	case headerFlags[name]:
		return headerArgSecrets(value), true
	case userFlags[name]:
		if _, password, ok := strings.Cut(value, ":"); ok && !notPassword().MatchString(password) {
			return []string{password, value}, true
		}
		return nil, true
	case passwordShortFlags[name]:
		if notPassword().MatchString(value) {
			return nil, true
		}
		return []string{value}, true
	case isSecretName(strings.TrimLeft(name, "-")):
		return []string{value}, true
	}
	return nil, false
}

// headerArgSecrets returns the secrets of a header given on a command
// line: "Authorization: Bearer abc", or mcp-remote's "Authorization:${AUTH}".
// It follows the rule of a config's headers (headerSecrets).
func headerArgSecrets(header string) []string {
	name, value, ok := strings.Cut(header, ":")
	if !ok {
		return []string{header} // not a header: keep it all masked
	}
	return headerSecrets(strings.TrimSpace(name), strings.TrimSpace(value))
}

// plainHeaders are standard headers that describe the request, never
// authorize it. Their values ("application/json", "en-US") are words that
// tool descriptions and errors use everywhere: masking them would hide
// those words, not a secret. Every other header's value is taken for a
// secret, whatever its name, since services invent their own (X-Api-Key,
// X-Goog-Api-Key, PRIVATE-TOKEN, DD-APPLICATION-KEY, ...).
var plainHeaders = map[string]bool{
	"accept": true, "accept-charset": true, "accept-encoding": true, "accept-language": true,
	"cache-control": true, "connection": true, "content-encoding": true, "content-language": true,
	"content-length": true, "content-type": true, "mcp-protocol-version": true, "origin": true,
	"pragma": true, "referer": true, "user-agent": true,
}

// headerSecrets returns the secrets of header name: value.
func headerSecrets(name, value string) []string {
	if plainHeaders[strings.ToLower(name)] {
		return nil
	}
	return headerValueSecrets(value)
}

// headerValueSecrets returns a header value, its credential without the
// scheme ("Bearer abc" leaks "abc" if a server echoes only the token) and,
// for Basic, the decoded user:password and password.
func headerValueSecrets(value string) []string {
	found := []string{value}
	scheme, credential, ok := strings.Cut(value, " ")
	if !ok {
		return found
	}
	credential = strings.TrimSpace(credential)
	found = append(found, credential)
	if strings.EqualFold(scheme, "Basic") {
		if decoded, err := base64.StdEncoding.DecodeString(credential); err == nil {
			found = append(found, string(decoded))
			if _, password, ok := strings.Cut(string(decoded), ":"); ok {
				found = append(found, password)
			}
		}
	}
	return found
}

// minPathTokenRun is the shortest run of letters and digits, mixing both,
// that makes a URL path segment a credential, as the key in
// /v1/<32-character key>/mcp. Words (server-everything), versions (v2),
// dates, numeric IDs and short IDs (a1b2c3) have no such run.
const minPathTokenRun = 16

// uuidShape is a UUID, which services put in URLs as a capability: it has
// no run of 16, but 122 random bits.
var uuidShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
})

// tokenLikeSegment says whether a (decoded) URL path segment is a
// credential: a UUID, or a run of at least minPathTokenRun ASCII letters
// and digits holding both.
func tokenLikeSegment(segment string) bool {
	if uuidShape().MatchString(segment) {
		return true
	}
	run, letters, digits := 0, false, false
	for i := 0; i <= len(segment); i++ {
		var c byte
		if i < len(segment) {
			c = segment[i]
		}
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			run, letters = run+1, true
		case '0' <= c && c <= '9':
			run, digits = run+1, true
		default:
			if run >= minPathTokenRun && letters && digits {
				return true
			}
			run, letters, digits = 0, false, false
		}
	}
	return false
}

// pathTokens returns the token-like segments of u's path, as written and
// decoded.
func pathTokens(u *url.URL) []string {
	var found []string
	for _, segment := range strings.Split(u.EscapedPath(), "/") {
		decoded, err := url.PathUnescape(segment)
		if err != nil {
			decoded = segment
		}
		if tokenLikeSegment(decoded) {
			found = append(found, segment, decoded)
		}
	}
	return found
}

// maskPathTokens replaces the token-like segments of u's path with Mask.
func maskPathTokens(u *url.URL) {
	segments := strings.Split(u.EscapedPath(), "/")
	changed := false
	for i, segment := range segments {
		decoded, err := url.PathUnescape(segment)
		if err != nil {
			decoded = segment
		}
		if tokenLikeSegment(decoded) {
			segments[i], changed = Mask, true
		}
	}
	if !changed {
		return
	}
	escaped := strings.Join(segments, "/")
	plain, err := url.PathUnescape(escaped)
	if err != nil {
		plain = escaped
	}
	u.Path, u.RawPath = plain, escaped
}

// connPair is one KEY=value pair of a ;-separated connection string (ADO,
// ODBC, JDBC properties): "Server=db;User ID=sa;Password=pw". A value in
// braces or quotes may hold a ";" ({a;b}, "a;b").
var connPair = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z][A-Za-z0-9 _.-]*)=\s*(\{[^}]*\}|"[^"]*"|[^;]*)`)
})

// connStringSecrets returns the values of the secret-named pairs (Password,
// Pwd, ...) of a connection string in arg. The pairs after the first are
// not flags, so flagValueSecrets, which judges one NAME=VALUE, misses them.
func connStringSecrets(arg string) []string {
	if !strings.Contains(arg, ";") {
		return nil
	}
	var found []string
	for _, m := range connPair().FindAllStringSubmatch(arg, -1) {
		name, value := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		if value == "" || !isSecretName(name) {
			continue
		}
		found = append(found, value)
		if unwrapped := strings.Trim(value, `{}"`); unwrapped != value && unwrapped != "" {
			found = append(found, unwrapped)
		}
	}
	return found
}
