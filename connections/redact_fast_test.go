package connections

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// secretNameSamples are names around every alternative of secretName: the
// word alone, in other cases, inside other words, beside - and _, and
// near misses.
func secretNameSamples() []string {
	// Every alternative of the regexp, written out here rather than taken
	// from the lists isSecretName uses, so that a word missing there fails.
	words := []string{"token", "secret", "passwd", "password", "pass", "passphrase", "pw", "pwd",
		"api-key", "api_key", "apikey", "accesskey", "access-key", "access_key", "privatekey",
		"private-key", "private_key", "clientsecret", "client_secret", "auth", "credential",
		"session", "cookie", "signature", "sig", "key", "code", "bearer", "jwt", "cred", "creds", "pat"}
	words = append(words, "clientsecret", "client-secret", "passw", "passwor", "api--key", "apiKEY", "PAT", "pats", "xpat", "-pat", "_pat", "a-pat", "pat-", "creed", "cre", "keys", "sigs", "cod", "p", "")
	var out []string
	for _, w := range words {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:min(1, len(w))]) + w[min(1, len(w)):]} {
			out = append(out, v, "x"+v, v+"x", "-"+v, v+"_", "my_"+v+"_name", "--"+v)
		}
	}
	// Non-ASCII names, which the regexp folds on its own: the Kelvin sign
	// folds to k, long s to s.
	return append(out, "\u212aey", "to\u212aen", "\u017fecret", "pa\u017f\u017f", "tökén", "ключ", "token\xff")
}

func TestSecretNameAndShapeMatchTheirRegexps(t *testing.T) {
	names := secretNameSamples()
	rng := rand.New(rand.NewPCG(1, 2))
	names = append(names, randomStrings(rng, "tokenscrapswdihjlbuvgfPATKEY-_\u212a\u017f", 12, 20000)...)
	for _, name := range names {
		if got, want := isSecretName(name), secretName().MatchString(name); got != want {
			t.Errorf("isSecretName(%q) = %v, the regexp says %v", name, got, want)
		}
	}

	envNames := []string{"HOME", "PATH", "GITHUB_TOKEN", "api_key", "MyPassword", "DB_PWD", "X_AUTH", "CREDENTIALS", "COOKIE_JAR",
		"SESSION_ID", "PRIVATE", "monkey", "KEYS", "pass", "passw", "\u212aEY", "\u017fECRET", "tökén"}
	envNames = append(envNames, randomStrings(rng, "KEYTOKENSCRTPAWDUHILVkeytokenscrtpawduhilv_\u212a\u017f", 12, 20000)...)
	for _, name := range envNames {
		if got, want := isSecretEnvName(name), secretEnvName().MatchString(name); got != want {
			t.Errorf("isSecretEnvName(%q) = %v, the regexp says %v", name, got, want)
		}
	}

	values := []string{"", "s", "sk", "sk-", "sk-abcdefgh", "sk-abcdefg", "sk_live_abcdefgh", "sk_test_abc", "ghp_0123456789abcdef",
		"gho_0123456789abcde", "github_pat_0123456789abcdef", "glpat-0123456789abcdef", "xoxb-12345678", "xoxz-12345678",
		"AKIA0123456789AB", "AKIA01234567890a", "AIza01234567890123456789", "eyJabcdefgh.abcdefgh.sig", "eyJabcdefgh.abcdefg.",
		"Bearer abc", "hello", "ssk-abcdefgh", " sk-abcdefgh", "SK-abcdefgh", "ghp_0123456789abcdef\n"}
	values = append(values, randomStrings(rng, "skghiplatxobAKIzeyJ_-.0123456789", 30, 20000)...)
	for _, v := range values {
		if got, want := hasSecretShape(v), secretShape().MatchString(v); got != want {
			t.Errorf("hasSecretShape(%q) = %v, the regexp says %v", v, got, want)
		}
	}
}

// randomStrings makes n strings of up to maxLen runes drawn from alphabet.
func randomStrings(rng *rand.Rand, alphabet string, maxLen, n int) []string {
	runes := []rune(alphabet)
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range rng.IntN(maxLen) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		out[i] = b.String()
	}
	return out
}

func FuzzSecretName(f *testing.F) {
	for _, s := range secretNameSamples() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := isSecretName(name), secretName().MatchString(name); got != want {
			t.Fatalf("isSecretName(%q) = %v, the regexp says %v", name, got, want)
		}
		if got, want := hasSecretShape(name), secretShape().MatchString(name); got != want {
			t.Fatalf("hasSecretShape(%q) = %v, the regexp says %v", name, got, want)
		}
	})
}
