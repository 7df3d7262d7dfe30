package connections

import (
	"bytes"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mask replaces every credential dispatch shows.
const Mask = "***"

// minSecretLen keeps very short values ("1", "on") out of free-text masking:
// masking every "1" in an error message would make messages unreadable while
// protecting nothing.
const minSecretLen = 4

// secretName matches parameter, flag and header names that carry
// credentials. It is the definition; isSecretName answers the same faster.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(token|secret|passw(or)?d|^pass$|passphrase|^pw$|pwd|api[-_]?key|apikey|access[-_]?key|private[-_]?key|client[-_]?secret|auth|credential|session|cookie|signature|^sig$|^key$|^code$|bearer|jwt|^creds?$|(^|[-_])pat$)`)
})

// secretShape matches values that look like credentials whatever their
// name: well-known token prefixes, JWTs and bearer values. It is the
// definition; hasSecretShape answers the same faster.
var secretShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(sk-[A-Za-z0-9_-]{8,}|sk_(live|test)_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{16,}|xox[abpors]-[A-Za-z0-9-]{8,}|AKIA[A-Z0-9]{12,}|AIza[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)$`)
})

// Every command starts by learning the secrets of every configured server
// and of the environment, which asks these two of each argument, flag
// name and variable: through the regexps that cost a warm one-shot search
// over 16 servers half a millisecond, most of it compiling them and
// backtracking through secretName's alternatives at every position.
// isSecretName and hasSecretShape answer exactly as the regexps do
// (TestSecretNameAndShapeMatchTheirRegexps), without them for the usual
// input.

// secretNameWords are the alternatives of secretName found anywhere in a
// name, lower case; secretNameWholes those that must be the whole name.
var (
	secretNameWords = []string{"token", "secret", "passwd", "password", "passphrase", "pwd",
		"apikey", "api-key", "api_key", "accesskey", "access-key", "access_key",
		"privatekey", "private-key", "private_key", "auth", "credential", "session",
		"cookie", "signature", "bearer", "jwt"}
	secretNameWholes = []string{"pass", "pw", "sig", "key", "code", "cred", "creds", "pat"}
)

// isSecretName reports whether secretName matches name.
func isSecretName(name string) bool {
	lower, ok := asciiLower(name)
	if !ok {
		// (?i) folds some non-ASCII letters to ASCII ones (K, ſ): the
		// regexp decides.
		return secretName().MatchString(name)
	}
	for _, w := range secretNameWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	for _, w := range secretNameWholes {
		if lower == w {
			return true
		}
	}
	return strings.HasSuffix(lower, "-pat") || strings.HasSuffix(lower, "_pat")
}

// asciiLower returns s in lower case if it is ASCII; ok is false if not.
func asciiLower(s string) (lower string, ok bool) {
	var upper bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return "", false
		case 'A' <= c && c <= 'Z':
			upper = true
		}
	}
	if !upper {
		return s, true
	}
	return strings.ToLower(s), true
}

// secretShapePrefixes are the first two bytes of every alternative of
// secretShape: a value that starts otherwise cannot match it.
var secretShapePrefixes = []string{"sk", "gh", "gi", "gl", "xo", "AK", "AI", "ey"}

// hasSecretShape reports whether secretShape matches value.
func hasSecretShape(value string) bool {
	if len(value) < 2 || !slices.Contains(secretShapePrefixes, value[:2]) {
		return false
	}
	return secretShape().MatchString(value)
}

// Redactor masks credentials in text. It learns the secret values of every
// configured server (env values, header values, URL user info, token-like
// query parameters, secret-looking arguments) and replaces any occurrence of
// them in messages, logs and captured stderr. It is safe for concurrent use.
type Redactor struct {
	mu       sync.RWMutex
	secrets  []string // longest first, so a secret containing another is masked whole
	replacer *strings.Replacer
	// answerSecrets are the secrets that are credentials proper (see
	// Learn), which MaskAnswer masks in what servers answer.
	answerSecrets []string
	// answerForms are the answerSecrets as JSON writes them (see
	// answerForms), longest first, for MaskAnswer.
	answerForms  [][]byte
	answerGroups []answerGroup
	// answerReplacer replaces the answerSecrets in text (MaskAnswerText).
	answerReplacer *strings.Replacer
}

// minAnswerSecretLen is the shortest secret masked in a server's answers.
// An answer is data the agent asked for: masking a short value there
// (a 4-character password that is also a word) would change the data
// wherever the word occurs, while real credentials are long.
const minAnswerSecretLen = 8

// NewRedactor returns a Redactor that knows the secrets of configs.
func NewRedactor(configs ...ServerConfig) *Redactor {
	r := &Redactor{}
	for _, c := range configs {
		r.Learn(c)
	}
	return r
}

// Learn adds the secrets of c.
//
// Every env value is masked in dispatch's own text (errors, logs, a
// server's catalog), but in a server's answers only those that are
// credentials: an env value whose name says so or that is shaped like a
// token, and the password inside a URL or connection string an env value
// holds (DATABASE_URL=postgres://app:PASSWORD@db). ROOT=/home/me/project
// or PORT=8080 configure a server, and masking them in its answers would
// turn every path it returns into "***/file". Likewise a URL's user name,
// and a header that is not an authorization one (X-Workspace: eng), are
// masked in text but are not credentials in answers.
func (r *Redactor) Learn(c ServerConfig) {
	var found []string
	notCredentials := map[string]bool{}
	for name, v := range c.Env {
		found = append(found, v)
		if !credentialEnv(name) && !hasSecretShape(strings.TrimSpace(v)) {
			notCredentials[strings.TrimSpace(v)] = true
		}
		found = append(found, valueCredentials(v)...)
	}
	for name, v := range c.Headers {
		secrets := headerSecrets(name, v)
		found = append(found, secrets...)
		if !credentialHeader(name, v) {
			for _, s := range secrets {
				notCredentials[strings.TrimSpace(s)] = true
			}
		}
	}
	found = append(found, urlSecrets(c.URL)...)
	found = append(found, argSecrets(c.Args)...)
	for _, raw := range append(urlInArg().FindAllString(strings.Join(c.Args, " "), -1), c.URL) {
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if _, hasPassword := u.User.Password(); hasPassword || !hasSecretShape(u.User.Username()) {
				notCredentials[u.User.Username()] = true
			}
		}
	}
	if c.OAuth != nil && c.OAuth.ClientSecret != "" {
		found = append(found, c.OAuth.ClientSecret)
	}
	r.add(found, notCredentials)
}

// valueCredentials returns the credentials inside a value that is not
// one as a whole: the passwords of the URLs in it and of a
// "Password=…;" connection string.
func valueCredentials(v string) []string {
	var found []string
	for _, raw := range urlInArg().FindAllString(v, -1) {
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				found = append(found, p)
			}
		}
	}
	return append(found, connStringSecrets(v)...)
}

// credentialHeader reports whether a header carries a credential: an
// authorization-type name (Authorization, Cookie, X-Api-Key, …-Token) or
// a value with an auth scheme or a token's shape.
func credentialHeader(name, value string) bool {
	if credentialWords(name) || strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization") {
		return true
	}
	scheme, _, _ := strings.Cut(strings.TrimSpace(value), " ")
	switch strings.ToLower(scheme) {
	case "bearer", "basic", "token", "apikey":
		return true
	}
	return hasSecretShape(strings.TrimSpace(value))
}

// credentialWordSet are the words of a name (split at _, -, . and case
// changes are not considered) that say it holds a credential. Whole
// words only: AUTHOR, MONKEY, GOPRIVATE, TOKENIZERS_PARALLELISM and
// SESSION_MANAGER name no credential, and masking their values in
// answers lost names, hosts and module paths.
var credentialWordSet = map[string]bool{
	"TOKEN": true, "SECRET": true, "PASSWORD": true, "PASSWD": true, "PWD": true, "PASS": true,
	"PASSPHRASE": true, "KEY": true, "APIKEY": true, "AUTH": true, "CREDENTIAL": true,
	"CREDENTIALS": true, "CREDS": true, "COOKIE": true, "PAT": true, "JWT": true, "BEARER": true,
	"AUTHTOKEN": true, "ACCESSTOKEN": true, "SECRETKEY": true, "PRIVATEKEY": true,
}

// credentialWords reports whether name has a credential word (see
// credentialWordSet) or a word ending in TOKEN, SECRET or PASSWORD.
func credentialWords(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToUpper(name), func(c rune) bool { return c == '_' || c == '-' || c == '.' }) {
		if credentialWordSet[w] || strings.HasSuffix(w, "TOKEN") || strings.HasSuffix(w, "SECRET") || strings.HasSuffix(w, "PASSWORD") {
			return true
		}
	}
	return false
}

// credentialEnv reports whether an environment variable's name says it
// holds a credential (API_KEY, GITHUB_TOKEN, DB_PASSWORD, ...).
func credentialEnv(name string) bool {
	return credentialWords(name) && !notSecretEnv[strings.ToUpper(name)] && !notSecretEnvShape().MatchString(name)
}

// secretEnvName matches environment variable names that hold
// credentials: API_KEY, GITHUB_TOKEN, DB_PASSWORD, ...
var secretEnvName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(key|token|secret|passw|pwd|auth|credential|cookie|session|private)`)
})

// secretEnvWords are secretEnvName's words, lower case.
var secretEnvWords = []string{"key", "token", "secret", "passw", "pwd", "auth", "credential", "cookie", "session", "private"}

// isSecretEnvName reports whether secretEnvName matches name, without the
// regexp for an ASCII name, as isSecretName does: it is asked of every
// variable of the environment at every start.
func isSecretEnvName(name string) bool {
	lower, ok := asciiLower(name)
	if !ok {
		return secretEnvName().MatchString(name)
	}
	for _, w := range secretEnvWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// notSecretEnv are variables whose names match secretEnvName but which
// every shell sets to a path: PWD and OLDPWD are working directories, not
// passwords, and masking them turned every path under the working
// directory into "***/...". MYSQL_PWD, DB_PWD and the like still match.
var notSecretEnv = map[string]bool{"PWD": true, "OLDPWD": true, "XAUTHORITY": true}

// notSecretEnvShape are desktop-session and socket variables whose names
// mention a session, key or auth but whose values are words and paths
// (XDG_SESSION_CLASS=user, SSH_AUTH_SOCK=/tmp/...): masking "user" took it
// out of every error message.
var notSecretEnvShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^XDG_|^DBUS_|^GNOME_KEYRING|_(SOCK|SOCKET|PATH|DIR|FILE|HOME|CLASS|TYPE|DESKTOP|MODE|LEVEL|LAYOUT)$)`)
})

// minEnvSecretLen is the shortest inherited value taken for a secret: the
// environment is full of short words, while real credentials are long.
const minEnvSecretLen = 8

// LearnEnviron adds the values of credential-named variables of an
// environment (os.Environ()): stdio servers inherit dispatch's
// environment, and one that prints it must not leak what it got.
func (r *Redactor) LearnEnviron(environ []string) {
	var found []string
	notCredentials := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && (isSecretEnvName(name) || credentialWords(name)) && !notSecretEnv[strings.ToUpper(name)] &&
			!notSecretEnvShape().MatchString(name) && len(strings.TrimSpace(value)) >= minEnvSecretLen {
			found = append(found, value)
			if !credentialEnv(name) {
				notCredentials[strings.TrimSpace(value)] = true
			}
		}
	}
	r.add(found, notCredentials)
}

// LearnSecrets adds values dispatch itself created or received, such as
// OAuth tokens, so that they are masked from the moment they exist.
func (r *Redactor) LearnSecrets(values ...string) {
	r.add(values, nil)
}

// add learns values as secrets; those in notCredentials are masked in
// dispatch's own text only, not in servers' answers (see Learn).
func (r *Redactor) add(values []string, notCredentials map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[string]bool, len(r.secrets))
	for _, s := range r.secrets {
		seen[s] = true
	}
	inAnswers := make(map[string]bool, len(r.answerSecrets))
	for _, s := range r.answerSecrets {
		inAnswers[s] = true
	}
	// New slices: MaskAnswer may be reading the old ones.
	answerSecrets := slices.Clone(r.answerSecrets)
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minSecretLen {
			continue
		}
		// A secret also travels URL-encoded, e.g. inside a logged URL: in
		// a query (space as +) or a path or user info (space as %20).
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v), url.User(v).String()} {
			if !seen[form] {
				seen[form] = true
				r.secrets = append(r.secrets, form)
			}
			if len(v) >= minAnswerSecretLen && !notCredentials[v] && !inAnswers[form] {
				inAnswers[form] = true
				answerSecrets = append(answerSecrets, form)
			}
		}
	}
	sortLongestFirst(r.secrets)
	sortLongestFirst(answerSecrets)
	r.answerSecrets = answerSecrets
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.replacer = strings.NewReplacer(pairs...)
	answerPairs := make([]string, 0, 2*len(r.answerSecrets))
	for _, s := range r.answerSecrets {
		answerPairs = append(answerPairs, s, Mask)
	}
	r.answerReplacer = strings.NewReplacer(answerPairs...)
	forms := make([][]byte, 0, len(r.answerForms))
	groups := make([]answerGroup, 0, len(r.answerSecrets))
	seenForm := make(map[string]bool, len(r.answerForms))
	for _, s := range r.answerSecrets {
		g := answerGroupOf(s)
		groups = append(groups, g)
		for _, f := range g.forms {
			if !seenForm[string(f)] {
				seenForm[string(f)] = true
				forms = append(forms, f)
			}
		}
	}
	sortForms(forms)
	r.answerForms, r.answerGroups = forms, groups
}

// sortLongestFirst orders secrets so that one containing another is
// masked whole.
func sortLongestFirst(secrets []string) {
	sort.Slice(secrets, func(i, j int) bool {
		if len(secrets[i]) != len(secrets[j]) {
			return len(secrets[i]) > len(secrets[j])
		}
		return secrets[i] < secrets[j]
	})
}

// longestSecret is the length of the longest secret r knows in any form
// (0 for none).
func (r *Redactor) longestSecret() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.secrets) == 0 {
		return 0
	}
	return len(r.secrets[0]) // longest first
}

// String masks every known secret in s, and anything shaped like a
// credential even if no config declared it.
func (r *Redactor) String(s string) string {
	if r == nil {
		return maskShapes(s)
	}
	r.mu.RLock()
	replacer := r.replacer
	r.mu.RUnlock()
	if replacer != nil {
		s = replacer.Replace(s)
	}
	return maskShapes(s)
}

// maskRules numbers the rules that decide what String masks whatever the
// secrets: the shapes below and the URL user info. Change it with them: a
// cached catalog saved under other rules is masked again when loaded (see
// CacheEntry.MaskedBy).
const maskRules = 1

// holdsNoSecret reports whether data, JSON that dispatch wrote, holds no
// secret r knows in any form a JSON string could carry it in: neither the
// secret as it is nor, when data escapes any character as \uXXXX, at all.
// A secret with a character JSON may escape otherwise (a quote, backslash,
// slash or control character) is never ruled out.
func (r *Redactor) holdsNoSecret(data []byte) bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	secrets := r.secrets
	r.mu.RUnlock()
	if len(secrets) > 0 && bytes.Contains(data, []byte(`\u`)) {
		return false
	}
	for _, s := range secrets {
		if strings.ContainsFunc(s, func(c rune) bool { return c == '"' || c == '\\' || c == '/' || c < 0x20 }) ||
			bytes.Contains(data, []byte(s)) {
			return false
		}
	}
	return true
}

// The shapes start at a word boundary: inside a word ("ask-sampling",
// "task-0123456789") the same letters are a name, not a key.
var shapeInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(sk-[A-Za-z0-9_-]{8,}|sk_(live|test)_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{16,}|xox[abpors]-[A-Za-z0-9-]{8,}|AKIA[A-Z0-9]{12,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*|(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,})`)
})

// userinfoInText finds the user info of URLs in free text. Go's own URL
// errors print "user:***@host", and a user name too short to mask by value
// (minSecretLen) would otherwise still show.
var userinfoInText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s"'<>@]+@`) })

func maskShapes(s string) string {
	// Running the two expressions costs far more than looking for the
	// literals they cannot match without: a server's catalog, masked as
	// it is loaded, is hundreds of kilobytes of text that holds none.
	if mayHoldUserinfo(s) {
		s = userinfoInText().ReplaceAllString(s, "${1}"+Mask+"@")
	}
	if !mayHoldShape(s) {
		return s
	}
	return shapeInText().ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:len("bearer")] + " " + Mask
		}
		return Mask
	})
}

// mayHoldUserinfo reports whether some "://" in s is followed by an '@'
// before the characters userinfoInText stops at: without one, it cannot
// match.
func mayHoldUserinfo(s string) bool {
	for rest := s; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		rest = rest[i+len("://"):]
		if end := strings.IndexAny(rest, "/\t\n\f\r \"'<>@"); end > 0 && rest[end] == '@' {
			return true
		}
	}
}

// shapePrefixes are the literals every alternative of shapeInText starts
// with (the case-insensitive "bearer" included), by their first byte.
var shapePrefixes = func() (byFirst [256][]string) {
	for _, p := range []string{"sk-", "sk_live_", "sk_test_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
		"github_pat_", "glpat-", "xox", "AKIA", "eyJ", "bearer", "Bearer"} {
		byFirst[p[0]] = append(byFirst[p[0]], p)
	}
	return byFirst
}()

// mayHoldShape reports whether s holds a literal that a match of
// shapeInText starts with: without one, the expression cannot match. One
// pass over s, looking closer only at the bytes a literal starts with.
func mayHoldShape(s string) bool {
	for i := 0; i < len(s); i++ {
		for _, p := range shapePrefixes[s[i]] {
			if p[0] == 'b' || p[0] == 'B' {
				if len(s)-i >= len(p) && strings.EqualFold(s[i:i+len(p)], p) {
					return true
				}
			} else if strings.HasPrefix(s[i:], p) {
				return true
			}
		}
	}
	return false
}

// urlSecrets returns the user info, token-like path segments and
// token-like query values of raw.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return nil
	}
	var found []string
	if u.User != nil {
		found = append(found, u.User.Username())
		if p, ok := u.User.Password(); ok {
			found = append(found, p)
		}
		found = append(found, u.User.String())
		// As written, too: errors quote the URL as it was configured,
		// and its escaping may differ from Go's (%2f, %41, ...).
		found = append(found, rawUserinfo(raw)...)
	}
	found = append(found, pathTokens(u)...)
	for name, values := range u.Query() {
		if isSecretName(name) {
			found = append(found, values...)
		}
	}
	// Query values as written: an escaped value (a%2Fb) shows as it is
	// in any error that quotes the URL, not as its decoded or re-escaped
	// form.
	for _, pair := range strings.Split(u.RawQuery, "&") {
		name, value, ok := strings.Cut(pair, "=")
		if unescaped, err := url.QueryUnescape(name); err == nil {
			name = unescaped
		}
		if ok && isSecretName(name) {
			found = append(found, value)
		}
	}
	return found
}

// rawUserinfo returns the user name and password of a URL exactly as
// written in raw.
func rawUserinfo(raw string) []string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil
	}
	name, password, _ := strings.Cut(rest[:at], ":")
	return []string{name, password}
}

// argSecrets returns the secret-looking values in a command's arguments:
// values of secret-named flags (--token=abc, --api-key abc, -password abc)
// and of the short password flag (-p abc), KEY=value pairs with a secret
// name, also inside a ;-separated connection string (Server=db;Password=abc),
// header values (--header "X-Api-Key: abc", -H "Authorization: Basic
// abc"), the password of -u/--user NAME:PASSWORD, values with a
// credential's shape, and URLs with user info, token parameters or
// token-like path segments.
func argSecrets(args []string) []string {
	var found []string
	for i, arg := range args {
		// URLs first, wherever they sit in the argument (--url=https://...,
		// DSN=postgres://...): the "=" of a URL's query is not a flag's.
		// Most arguments hold no URL: the regexp only runs on one that
		// has the "://" every match needs.
		if strings.Contains(arg, "://") {
			for _, u := range urlInArg().FindAllString(arg, -1) {
				found = append(found, urlSecrets(u)...)
			}
		}
		found = append(found, connStringSecrets(arg)...)
		next := ""
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			next = args[i+1]
		}
		if v, ok := flagValueSecrets(arg, next); ok {
			found = append(found, v...)
			continue
		}
		if hasSecretShape(arg) {
			found = append(found, arg)
		}
	}
	return found
}

// urlInArg finds the URLs inside a command-line argument.
var urlInArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`) })

// SanitizeURL returns raw with user info, token-like query values and
// token-like path segments masked, for the rare place that must show where
// a server is.
func SanitizeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Mask
	}
	// The mask is written in by hand: url.User and url.Values.Encode would
	// escape it to %2A%2A%2A. The query keeps its order and encoding.
	hadUser := u.User != nil
	u.User = nil
	if u.RawQuery != "" {
		params := strings.Split(u.RawQuery, "&")
		for i, p := range params {
			name, _, _ := strings.Cut(p, "=")
			plain, err := url.QueryUnescape(name)
			if isSecretName(name) || err == nil && isSecretName(plain) {
				params[i] = name + "=" + Mask
			}
		}
		u.RawQuery = strings.Join(params, "&")
	}
	maskPathTokens(u)
	s := u.String()
	if hadUser {
		s = strings.Replace(s, "//", "//"+Mask+"@", 1)
	}
	return s
}

// Describe is a short, credential-free label of where a server is: the
// command's base name or the URL's scheme and host. list shows it so a
// person can tell servers apart without seeing their full command or URL.
func (c ServerConfig) Describe() string {
	switch c.Transport {
	case TransportStdio:
		return "stdio: " + filepath.Base(c.Command)
	default:
		u, err := url.Parse(c.URL)
		if err != nil {
			return string(c.Transport)
		}
		return string(c.Transport) + ": " + u.Scheme + "://" + u.Host
	}
}
