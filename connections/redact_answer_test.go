package connections

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestRedactor_MaskAnswer(t *testing.T) {
	cases := []struct {
		name    string
		secrets []string
		in, out string
	}{
		{"plain", []string{"s3cret-value"}, `{"text":"key=s3cret-value;"}`, `{"text":"key=***;"}`},
		{"every occurrence", []string{"s3cret-v"}, `{"a":"s3cret-v","b":["x s3cret-v s3cret-v"]}`, `{"a":"***","b":["x *** ***"]}`},
		{"quote and backslash", []string{`a"b\c-key`}, `{"t":"A=a\"b\\c-key"}`, `{"t":"A=***"}`},
		{"html escaped", []string{"p<w>&1234"}, `{"t":"p\u003cw\u003e\u00261234"}`, `{"t":"***"}`},
		{"html unescaped", []string{"p<w>&1234"}, `{"t":"p<w>&1234"}`, `{"t":"***"}`},
		{"slash escaped", []string{"ab/cd/ef"}, `{"t":"ab\/cd\/ef"}`, `{"t":"***"}`},
		{"control character", []string{"line1\nline2"}, `{"t":"line1\nline2"}`, `{"t":"***"}`},
		{"longer secret whole", []string{"abcdefgh", "abcdefghijkl"}, `{"t":"abcdefghijkl abcdefgh"}`, `{"t":"*** ***"}`},
		// Not inside a string: masking would break the JSON.
		{"a number is no string", []string{"12345678"}, `{"n":12345678,"t":"12345678"}`, `{"n":12345678,"t":"***"}`},
		{"a key is a string", []string{"s3cret-v"}, `{"s3cret-v":1}`, `{"***":1}`},
		// "nabcdefg" right after a backslash is the escape \n, not the secret.
		{"inside an escape", []string{"nabcdefg"}, `{"t":"x\nabcdefg nabcdefg"}`, `{"t":"x\nabcdefg ***"}`},
		{"after an escaped backslash", []string{"nabcdefg"}, `{"t":"x\\nabcdefg"}`, `{"t":"x\\***"}`},
		{"no secret", []string{"s3cret-v"}, `{"t":"nothing here"}`, `{"t":"nothing here"}`},
		{"too short to mask in answers", []string{"abcdefg"}, `{"t":"abcdefg"}`, `{"t":"abcdefg"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRedactor()
			r.LearnSecrets(tc.secrets...)
			got := string(r.MaskAnswer([]byte(tc.in)))
			if got != tc.out {
				t.Errorf("MaskAnswer(%s) = %s, want %s", tc.in, got, tc.out)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("MaskAnswer(%s) = %s is not JSON", tc.in, got)
			}
		})
	}
}

// The common case, an answer with no secret, allocates nothing and
// returns data itself; one with a secret is masked in data's own bytes.
func TestRedactor_MaskAnswerInPlace(t *testing.T) {
	r := NewRedactor(ServerConfig{Env: map[string]string{"API_KEY": "sk-live-0123456789", "DB_PASSWORD": `pa"ss\word`}})
	clean := []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("a harmless line\n", 64) + `"}]}`)
	if n := testing.AllocsPerRun(100, func() { r.MaskAnswer(clean) }); n != 0 {
		t.Errorf("MaskAnswer of an answer with no secret allocates %v times", n)
	}
	if got := r.MaskAnswer(clean); &got[0] != &clean[0] || len(got) != len(clean) {
		t.Error("MaskAnswer of an answer with no secret did not return it as it was")
	}
	dirty := []byte(`{"content":[{"type":"text","text":"API_KEY=sk-live-0123456789"}]}`)
	got := r.MaskAnswer(dirty)
	if &got[0] != &dirty[0] {
		t.Error("MaskAnswer copied the answer instead of masking it in place")
	}
	if want := `{"content":[{"type":"text","text":"API_KEY=***"}]}`; string(got) != want {
		t.Errorf("MaskAnswer = %s, want %s", got, want)
	}
}

// A token shape that is not a configured value passes: a result may
// legitimately carry a new key.
func TestRedactor_MaskAnswerLeavesShapes(t *testing.T) {
	r := NewRedactor(ServerConfig{Env: map[string]string{"API_KEY": "configured-key-1"}})
	in := `{"t":"new key sk-abcdefghijklmnop, jwt eyJhbGciOiJI.eyJzdWIiOiIx.sig"}`
	if got := string(r.MaskAnswer([]byte(in))); got != in {
		t.Errorf("MaskAnswer changed an answer holding no configured secret: %s", got)
	}
}

func FuzzRedactor_MaskAnswer(f *testing.F) {
	f.Add("plain s3cret-v text", "s3cret-v", 12345)
	f.Add(`q"uo\te <b> & /x`, `"uo\te <b`, 7)
	f.Add("\nabcdefg", "nabcdefg", 0)
	f.Add("12345678", "12345678", 12345678)
	f.Add("\x00", "00000000", 1284)
	f.Fuzz(func(t *testing.T, text, secret string, n int) {
		r := NewRedactor()
		r.LearnSecrets(secret)
		for _, escapeHTML := range []bool{true, false} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(escapeHTML)
			if err := enc.Encode(map[string]any{"text": text, secret: []any{n, text + secret}, "n": n}); err != nil {
				t.Fatal(err)
			}
			in := append([]byte(nil), buf.Bytes()...)
			out := r.MaskAnswer(buf.Bytes())
			if !json.Valid(out) {
				t.Fatalf("masking %q in %s made %s, which is not JSON", secret, in, out)
			}
			if len(out) > len(in) {
				t.Fatalf("masking grew %s to %s", in, out)
			}
			trimmed := strings.TrimSpace(secret)
			if len(trimmed) < minAnswerSecretLen || strings.Contains(trimmed, "*") || !utf8Valid(trimmed) {
				continue
			}
			var decoded map[string]any
			if err := json.Unmarshal(out, &decoded); err != nil {
				t.Fatal(err)
			}
			back, err := json.Marshal(decoded)
			if err != nil {
				t.Fatal(err)
			}
			var plain bytes.Buffer
			penc := json.NewEncoder(&plain)
			penc.SetEscapeHTML(false)
			if err := penc.Encode(decoded); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{string(back), plain.String()} {
				if strings.Contains(jsonStrings(t, s), trimmed) {
					t.Fatalf("the secret %q is still in %s (from %s)", trimmed, out, in)
				}
			}
		}
	})
}

// jsonStrings is every string (keys and values) of the JSON document s,
// joined by a NUL: where a secret would be readable.
func jsonStrings(t *testing.T, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	var out []string
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if str, ok := tok.(string); ok {
			out = append(out, str)
		}
	}
	return strings.Join(out, "\x00")
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// BenchmarkRedactor_MaskAnswer measures what masking adds to an answer of
// 1 KiB and 1 MiB: "none configured" is dispatch with no secrets (as good
// as no masking), "absent" the common case with five configured secrets
// (eight forms to look for) none of which the answer holds, and
// "present/copy" an answer holding one, copied afresh each time (compare
// with "copy only").
func BenchmarkRedactor_MaskAnswer(b *testing.B) {
	configured := NewRedactor(ServerConfig{Env: map[string]string{
		"API_KEY": "sk-live-0123456789abcdef", "DB_PASSWORD": `pa"ss\word<1>`, "GITHUB_TOKEN": "ghp_0123456789abcdefABCDEF",
		"URL_PATH": "some/secret/path-1", "PLAIN": "plain-secret-value",
	}})
	for _, size := range []int{1 << 10, 1 << 20} {
		line := `{"id":17,"name":"item","text":"a harmless line of text, \"quoted\" \\ with escapes"},`
		body := strings.Repeat(line, size/len(line)+1)[:size-len(`{"content":[]}`)]
		clean := []byte(`{"content":[` + strings.TrimSuffix(body[:strings.LastIndex(body, "},")+1], ",") + `]}`)
		dirty := bytes.Replace(clean, []byte("harmless"), []byte("plain-secret-value"), 1)
		name := fmt.Sprintf("%dKiB", size>>10)
		b.Run(name+"/none-configured", func(b *testing.B) {
			r := NewRedactor()
			b.SetBytes(int64(len(clean)))
			b.ReportAllocs()
			for range b.N {
				r.MaskAnswer(clean)
			}
		})
		b.Run(name+"/absent", func(b *testing.B) {
			b.SetBytes(int64(len(clean)))
			b.ReportAllocs()
			for range b.N {
				configured.MaskAnswer(clean)
			}
		})
		buf := make([]byte, len(dirty))
		b.Run(name+"/copy-only", func(b *testing.B) {
			b.SetBytes(int64(len(dirty)))
			for range b.N {
				copy(buf, dirty)
			}
		})
		b.Run(name+"/present-copy", func(b *testing.B) {
			b.SetBytes(int64(len(dirty)))
			b.ReportAllocs()
			for range b.N {
				copy(buf, dirty)
				configured.MaskAnswer(buf)
			}
		})
	}
}

// Only credentials are masked in answers: an env value that configures a
// server (a root directory, a mode) and a URL's user name are data the
// agent asked for, while dispatch's own text still masks them.
func TestRedactor_MaskAnswerOnlyCredentials(t *testing.T) {
	r := NewRedactor(ServerConfig{
		Env: map[string]string{"ROOT": "/home/me/project", "MODE": "production-eu", "API_KEY": "sk-live-0123456789", "GH": "ghp_abcdefghijklmnop1234"},
		URL: "https://postgres:pa55word-long@db.example/mcp",
	})
	in := `{"t":"/home/me/project/a.txt production-eu postgres sk-live-0123456789 pa55word-long ghp_abcdefghijklmnop1234"}`
	want := `{"t":"/home/me/project/a.txt production-eu postgres *** *** ***"}`
	if got := string(r.MaskAnswer([]byte(in))); got != want {
		t.Errorf("MaskAnswer = %s, want %s", got, want)
	}
	if got := r.String("root /home/me/project, mode production-eu"); strings.Contains(got, "/home/me/project") || strings.Contains(got, "production-eu") {
		t.Errorf("String = %q: dispatch's own text must still mask every configured env value", got)
	}
}

// A URL or connection string in an env value whose name says nothing of
// a credential still carries one: its password is masked in answers, the
// rest of it (host, user, database) passes.
func TestRedactor_MaskAnswerPasswordsInsideEnvValues(t *testing.T) {
	r := NewRedactor(ServerConfig{Env: map[string]string{
		"DATABASE_URL": "postgres://app:pw12345678@db.internal:5432/shop",
		"REDIS_URL":    "redis://:s3cr3tRedisPass@cache:6379/0",
		"CONN":         "Server=db;User ID=sa;Password=SqlPassw0rd!;",
	}})
	in := `{"t":"postgres://app:pw12345678@db.internal:5432/shop redis://:s3cr3tRedisPass@cache:6379/0 Server=db;User ID=sa;Password=SqlPassw0rd!;"}`
	got := string(r.MaskAnswer([]byte(in)))
	for _, secret := range []string{"pw12345678", "s3cr3tRedisPass", "SqlPassw0rd!"} {
		if strings.Contains(got, secret) {
			t.Errorf("MaskAnswer left %q in %s", secret, got)
		}
	}
	for _, data := range []string{"db.internal:5432/shop", "app:", "cache:6379/0", "Server=db;User ID=sa;"} {
		if !strings.Contains(got, data) {
			t.Errorf("MaskAnswer lost %q: %s", data, got)
		}
	}
}

// Only whole credential words make a name a credential's in answers:
// AUTHOR, GOPRIVATE, SESSION_MANAGER and TOKENIZERS_PARALLELISM name
// data, while dispatch's own text still masks them as before.
func TestRedactor_MaskAnswerCredentialWords(t *testing.T) {
	r := NewRedactor(ServerConfig{Headers: map[string]string{
		"X-Workspace": "engineering", "X-Api-Key": "apikey-0123456789", "Authorization": "Bearer bearer-0123456789",
	}})
	r.LearnEnviron([]string{
		"GIT_AUTHOR_NAME=Jane Developer", "GOPRIVATE=github.com/acme-corp", "SESSION_MANAGER=local/buildhost01",
		"TOKENIZERS_PARALLELISM=disabled-x", "OPENAI_API_KEY=openai-0123456789", "NGROK_AUTHTOKEN=ngrok-0123456789",
		"GH_PAT=patvalue-0123456789",
	})
	in := `{"t":"Jane Developer github.com/acme-corp local/buildhost01 disabled-x engineering | openai-0123456789 ngrok-0123456789 patvalue-0123456789 apikey-0123456789 bearer-0123456789"}`
	want := `{"t":"Jane Developer github.com/acme-corp local/buildhost01 disabled-x engineering | *** *** *** *** ***"}`
	if got := string(r.MaskAnswer([]byte(in))); got != want {
		t.Errorf("MaskAnswer = %s, want %s", got, want)
	}
	if got := r.MaskAnswerText("by Jane Developer, key openai-0123456789"); got != "by Jane Developer, key ***" {
		t.Errorf("MaskAnswerText = %q", got)
	}
	if got := r.String("author Jane Developer"); strings.Contains(got, "Jane Developer") {
		t.Errorf("String = %q: dispatch's own text still masks every credential-like variable", got)
	}
}

// A progress notification is masked in every field, not only message.
func TestRedactor_MaskProgressEveryField(t *testing.T) {
	r := NewRedactor(ServerConfig{Env: map[string]string{"API_KEY": "sk-abcdefgh12345678XYZ", "ROOT": "/home/me/project"}})
	fields := map[string]any{
		"message": "msg sk-abcdefgh12345678XYZ", "extra": "ex sk-abcdefgh12345678XYZ",
		"_meta": map[string]any{"nested": []any{"in sk-abcdefgh12345678XYZ", 1.0}}, "root": "/home/me/project",
	}
	out := r.maskProgress(fields)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-abcdefgh12345678XYZ") || !strings.Contains(string(b), "/home/me/project") {
		t.Errorf("maskProgress = %s; want the key masked everywhere and ROOT kept", b)
	}
}
