package connections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedactor_String(t *testing.T) {
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	tests := []struct {
		name    string
		configs []ServerConfig
		in      string
		secrets []string // must not appear in the output
		keep    []string // must still appear in the output
	}{
		{
			name:    "env value",
			configs: []ServerConfig{{Env: map[string]string{"DB_URL": "postgres-pass-123"}}},
			in:      "connect failed: postgres-pass-123 refused",
			secrets: []string{"postgres-pass-123"},
			keep:    []string{"connect failed: *** refused"},
		},
		{
			name:    "env value with surrounding space",
			configs: []ServerConfig{{Env: map[string]string{"K": "  padded-secret  "}}},
			in:      "got padded-secret",
			secrets: []string{"padded-secret"},
		},
		{
			name:    "header value and bearer token",
			configs: []ServerConfig{{Headers: map[string]string{"Authorization": "Bearer tok-abcdef"}}},
			in:      "sent Bearer tok-abcdef; server said token tok-abcdef is expired",
			secrets: []string{"tok-abcdef"},
		},
		{
			name:    "plain header value",
			configs: []ServerConfig{{Headers: map[string]string{"X-Api-Key": "hdr-secret-1"}}},
			in:      "key=hdr-secret-1",
			secrets: []string{"hdr-secret-1"},
		},
		{
			name:    "plain headers describe the request, not who sends it",
			configs: []ServerConfig{{Headers: map[string]string{"Content-Type": "application/json", "Accept": "text/event-stream", "X-Team": "team-secret-2"}}},
			in:      "wanted application/json or text/event-stream for team-secret-2",
			secrets: []string{"team-secret-2"},
			keep:    []string{"application/json", "text/event-stream"},
		},
		{
			name:    "url user info",
			configs: []ServerConfig{{URL: "https://alice:pa55word@h.example.com/mcp"}},
			in:      "GET https://alice:pa55word@h.example.com/mcp: 401 (password pa55word)",
			secrets: []string{"pa55word", "alice:pa55word"},
			keep:    []string{"h.example.com/mcp"},
		},
		{
			name: "url query params",
			configs: []ServerConfig{{URL: "https://h.example.com/mcp?token=qtok1&api_key=qkey2&secret=qsec3" +
				"&password=qpw44&sig=qsig5&key=qkey6&access_token=qat77&page=2&region=eu-west"}},
			in:      "qtok1 qkey2 qsec3 qpw44 qsig5 qkey6 qat77 region eu-west",
			secrets: []string{"qtok1", "qkey2", "qsec3", "qpw44", "qsig5", "qkey6", "qat77"},
			keep:    []string{"region eu-west"},
		},
		{
			name:    "url path key",
			configs: []ServerConfig{{URL: "https://mcp.example.com/v1/a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h/mcp"}},
			in:      `Post "https://mcp.example.com/v1/a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h/mcp": dial tcp: refused`,
			secrets: []string{"a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h"},
			keep:    []string{`"https://mcp.example.com/v1/***/mcp"`},
		},
		{
			name:    "url-encoded form",
			configs: []ServerConfig{{Env: map[string]string{"K": "a b/c+d=e&f"}}},
			in:      "raw a b/c+d=e&f encoded " + url.QueryEscape("a b/c+d=e&f"),
			secrets: []string{"a b/c+d=e&f", url.QueryEscape("a b/c+d=e&f")},
		},
		{
			name:    "longest secret masked whole",
			configs: []ServerConfig{{Env: map[string]string{"A": "abcd", "B": "abcdefgh"}}},
			in:      "x abcdefgh y abcd z",
			secrets: []string{"abcd", "efgh"},
			keep:    []string{"x *** y *** z"},
		},
		{
			name:    "short values not masked in free text",
			configs: []ServerConfig{{Env: map[string]string{"DEBUG": "1", "MODE": "on", "N": "abc"}}},
			in:      "retry 1 of 3 is on: abc",
			keep:    []string{"retry 1 of 3 is on: abc"},
		},
		{
			name:    "four characters are masked",
			configs: []ServerConfig{{Env: map[string]string{"PIN": "4321"}}},
			in:      "pin 4321",
			secrets: []string{"4321"},
		},
		{
			name:    "flag with equals",
			configs: []ServerConfig{{Args: []string{"--token=flag-tok-1", "--verbose"}}},
			in:      "bad token flag-tok-1",
			secrets: []string{"flag-tok-1"},
		},
		{
			name:    "flag then value",
			configs: []ServerConfig{{Args: []string{"--api-key", "flag-key-2", "--port", "8080"}}},
			in:      "key flag-key-2 on port 8080",
			secrets: []string{"flag-key-2"},
			keep:    []string{"port 8080"},
		},
		{
			name:    "flag followed by another flag",
			configs: []ServerConfig{{Args: []string{"--token", "--verbose"}}},
			in:      "--token --verbose",
			keep:    []string{"--token --verbose"},
		},
		{
			name:    "env style arg",
			configs: []ServerConfig{{Args: []string{"-e", "API_KEY=env-arg-3", "-e", "LOG_LEVEL=debug"}}},
			in:      "API_KEY=env-arg-3 LOG_LEVEL=debug",
			secrets: []string{"env-arg-3"},
			keep:    []string{"LOG_LEVEL=debug"},
		},
		{
			name: "values shaped like credentials",
			configs: []ServerConfig{{Args: []string{
				"ghp_0123456789abcdefABCDEF", "sk-proj0123456789", "xoxb-1234-5678-abcdefgh", "AKIAIOSFODNN7EXAMPLE", jwt,
			}}},
			in:      "ghp_0123456789abcdefABCDEF sk-proj0123456789 xoxb-1234-5678-abcdefgh AKIAIOSFODNN7EXAMPLE " + jwt,
			secrets: []string{"ghp_0123456789abcdefABCDEF", "sk-proj0123456789", "xoxb-1234-5678-abcdefgh", "AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9"},
		},
		{
			name:    "url arg with token query",
			configs: []ServerConfig{{Args: []string{"https://h.example.com/sse?token=url-arg-tok&mode=x"}}},
			in:      "token url-arg-tok",
			secrets: []string{"url-arg-tok"},
		},
		{
			name:    "url arg with a later token query",
			configs: []ServerConfig{{Args: []string{"https://h.example.com/sse?mode=x&token=url-arg-tok2"}}},
			in:      "token url-arg-tok2",
			secrets: []string{"url-arg-tok2"},
		},
		{
			name:    "url arg with user info",
			configs: []ServerConfig{{Args: []string{"postgres://dbuser:db-pass-4@db:5432/app"}}},
			in:      "auth failed for dbuser:db-pass-4 (db-pass-4)",
			secrets: []string{"db-pass-4"},
		},
		{
			name:    "url arg on an auth host",
			configs: []ServerConfig{{Args: []string{"https://auth.example.com/cb?a=1&client_secret=cs-secret-5"}}},
			in:      "client_secret cs-secret-5",
			secrets: []string{"cs-secret-5"},
		},
		{
			name:    "url inside a flag",
			configs: []ServerConfig{{Args: []string{"--url=https://user:flag-url-pw@h.example.com/"}}},
			in:      "login flag-url-pw",
			secrets: []string{"flag-url-pw"},
		},
		{
			name:    "url inside an env style arg",
			configs: []ServerConfig{{Args: []string{"DATABASE_URL=postgres://u:env-url-pw@db/app"}}},
			in:      "password env-url-pw",
			secrets: []string{"env-url-pw"},
		},
		{
			name:    "unlearned shapes masked anyway",
			configs: nil,
			in:      "token ghp_0123456789abcdefABCDEF and Authorization: Bearer abcdefgh12345 and " + jwt,
			secrets: []string{"ghp_0123456789abcdefABCDEF", "abcdefgh12345", jwt},
			keep:    []string{"Bearer ***"},
		},
		{
			name:    "bearer keeps its case",
			in:      "authorization: bearer abcdefgh12345",
			secrets: []string{"abcdefgh12345"},
			keep:    []string{"bearer ***"},
		},
		{
			name:    "ordinary text untouched",
			configs: []ServerConfig{{Env: map[string]string{"TOKEN": "zzzz-secret"}}},
			in:      "tool read_file not found; try search",
			keep:    []string{"tool read_file not found; try search"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRedactor(tt.configs...)
			got := r.String(tt.in)
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("String(%q) = %q, still contains %q", tt.in, got, s)
				}
			}
			if len(tt.secrets) > 0 && !strings.Contains(got, Mask) {
				t.Errorf("String(%q) = %q, want %q in it", tt.in, got, Mask)
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Errorf("String(%q) = %q, want it to contain %q", tt.in, got, k)
				}
			}
		})
	}
}

func TestRedactor_Learn(t *testing.T) {
	r := NewRedactor()
	if got := r.String("later-secret"); got != "later-secret" {
		t.Fatalf("before Learn: %q", got)
	}
	r.Learn(ServerConfig{Env: map[string]string{"K": "later-secret"}})
	r.Learn(ServerConfig{Env: map[string]string{"K": "later-secret", "L": "other-secret"}})
	if got := r.String("later-secret other-secret"); got != "*** ***" {
		t.Errorf("after Learn: %q", got)
	}
	var nilRedactor *Redactor
	if got := nilRedactor.String("x ghp_0123456789abcdefABCDEF"); got != "x ***" {
		t.Errorf("nil Redactor: %q", got)
	}
}

func TestRedactor_LearnEnviron(t *testing.T) {
	r := NewRedactor()
	r.LearnEnviron([]string{
		"GITHUB_TOKEN=gh-env-tok", "DB_PASSWORD=db-env-pw", "OPENAI_API_KEY=oa-env-key",
		"HOME=/home/user", "PATH=/usr/bin:/bin", "NOEQUALS", "SESSION_ID=",
		// Working directories are not passwords; *_PWD variables are.
		"PWD=/home/user/project", "OLDPWD=/srv/previous", "MYSQL_PWD=my-env-pwd", "DB_PWD=db-env-pwd",
		// A desktop session's words and sockets are not credentials either.
		"XDG_SESSION_CLASS=user", "XDG_SESSION_DESKTOP=ubuntu-wayland", "SSH_AUTH_SOCK=/tmp/ssh-XYZ/agent.42",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "AUTH_MODE=standard-mode",
	})
	got := r.String("gh-env-tok db-env-pw oa-env-key /home/user /usr/bin:/bin /home/user/project/missing-dir /srv/previous my-env-pwd db-env-pwd" +
		" user ubuntu-wayland /tmp/ssh-XYZ/agent.42 unix:path=/run/user/1000/bus standard-mode")
	if want := "*** *** *** /home/user /usr/bin:/bin /home/user/project/missing-dir /srv/previous *** ***" +
		" user ubuntu-wayland /tmp/ssh-XYZ/agent.42 unix:path=/run/user/1000/bus standard-mode"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestRedactor_URLUserInfoInText(t *testing.T) {
	r := NewRedactor(ServerConfig{URL: "https://al:pw@host.example/mcp?pass=PASS7777&passphrase=PHRASE999&page=2"})
	// Go's URL errors print the password as *** themselves, leaving the
	// user name, which is too short to be masked by its value.
	got := r.String(`Post "https://al:***@host.example/mcp?pass=PASS7777&passphrase=PHRASE999&page=2": refused; see sse+http://bob@other/sse`)
	want := `Post "https://***@host.example/mcp?pass=***&passphrase=***&page=2": refused; see sse+http://***@other/sse`
	if got != want {
		t.Errorf("String =\n%s\nwant\n%s", got, want)
	}
}

func TestSanitizeURL(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		secrets []string
	}{
		{in: "https://h.example.com/mcp", want: "https://h.example.com/mcp"},
		{in: "https://h.example.com/mcp?page=2", want: "https://h.example.com/mcp?page=2"},
		{in: "https://alice:pw1234@h.example.com/mcp", want: "https://***@h.example.com/mcp", secrets: []string{"alice", "pw1234"}},
		{in: "https://tokenonly@h.example.com/", want: "https://***@h.example.com/", secrets: []string{"tokenonly"}},
		{in: "https://h.example.com/mcp?token=t0k3n&page=2", want: "https://h.example.com/mcp?token=***&page=2", secrets: []string{"t0k3n"}},
		{in: "https://h.example.com/mcp?q=a%20b&access%5Ftoken=t0k3n#frag", want: "https://h.example.com/mcp?q=a%20b&access%5Ftoken=***#frag", secrets: []string{"t0k3n"}},
		{in: "https://h.example.com/mcp?token", want: "https://h.example.com/mcp?token=***"},
		{in: "https://u:p4ss@h.example.com:8443/mcp?key=k3y", want: "https://***@h.example.com:8443/mcp?key=***", secrets: []string{"p4ss", "k3y"}},
		{in: "//u:p4ss@h.example.com/x", want: "//***@h.example.com/x", secrets: []string{"p4ss"}},
		{in: "https://h.example.com/?api_key=k3y&sig=s1g&x=1", want: "https://h.example.com/?api_key=***&sig=***&x=1", secrets: []string{"k3y", "s1g"}},
		{in: "http://h/%zz", want: Mask},
		{in: "https://mcp.example.com/v1/a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h/mcp?page=2", want: "https://mcp.example.com/v1/***/mcp?page=2",
			secrets: []string{"a8F3kQ9zL2mX7pR4tY6wB1nC5vD0sE8h"}},
		{in: "https://h.example.com/s/123e4567-e89b-42d3-a456-426614174000", want: "https://h.example.com/s/***"},
		{in: "https://h.example.com/a%2Fb/0123456789abcdef0123456789abcdef/sse", want: "https://h.example.com/a%2Fb/***/sse"},
		{in: "https://h.example.com/api/v2/projects/12345/server-everything/mcp", want: "https://h.example.com/api/v2/projects/12345/server-everything/mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := SanitizeURL(tt.in)
			if got != tt.want {
				t.Errorf("SanitizeURL(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("SanitizeURL(%q) = %q, contains %q", tt.in, got, s)
				}
			}
		})
	}
}

func TestServerConfig_Describe(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ServerConfig
		want    string
		secrets []string
	}{
		{
			name: "stdio",
			cfg: ServerConfig{Transport: TransportStdio, Command: "/usr/local/bin/gh-mcp",
				Args: []string{"--token", "ghp_0123456789abcdefABCDEF"}, Env: map[string]string{"TOKEN": "env-secret"}},
			want:    "stdio: gh-mcp",
			secrets: []string{"ghp_", "env-secret"},
		},
		{
			name: "http with secrets",
			cfg: ServerConfig{Transport: TransportHTTP, URL: "https://user:pw-secret@mcp.example.com:8443/mcp?token=q-secret",
				Headers: map[string]string{"Authorization": "Bearer h-secret"}},
			want:    "http: https://mcp.example.com:8443",
			secrets: []string{"user", "pw-secret", "q-secret", "h-secret"},
		},
		{
			name: "sse",
			cfg:  ServerConfig{Transport: TransportSSE, URL: "http://localhost:3001/sse?key=k-secret"},
			want: "sse: http://localhost:3001", secrets: []string{"k-secret"},
		},
		{name: "bad url", cfg: ServerConfig{Transport: TransportHTTP, URL: "http://h/%zz?token=x-secret"}, want: "http", secrets: []string{"x-secret"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.cfg.Describe()
			if got != tt.want {
				t.Errorf("Describe() = %q, want %q", got, tt.want)
			}
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("Describe() = %q, contains %q", got, s)
				}
			}
		})
	}
}

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

type secretValuer struct{}

func (secretValuer) LogValue() slog.Value { return slog.StringValue("valuer-secret-1") }

func TestNewRedactingHandler(t *testing.T) {
	const secret = "log-secret-value"
	r := NewRedactor(ServerConfig{Env: map[string]string{"TOKEN": secret}, Args: []string{"--api-key", "valuer-secret-1"}})
	tests := []struct {
		name string
		log  func(*slog.Logger)
	}{
		{name: "message", log: func(l *slog.Logger) { l.Info("token is " + secret) }},
		{name: "string attr", log: func(l *slog.Logger) { l.Info("msg", "token", secret) }},
		{name: "group attr", log: func(l *slog.Logger) {
			l.Info("msg", slog.Group("server", slog.String("env", "TOKEN="+secret), slog.Int("n", 1)))
		}},
		{name: "nested group", log: func(l *slog.Logger) {
			l.Info("msg", slog.Group("a", slog.Group("b", slog.String("c", secret))))
		}},
		{name: "error attr", log: func(l *slog.Logger) { l.Warn("failed", "error", errors.New("bad token "+secret)) }},
		{name: "stringer attr", log: func(l *slog.Logger) { l.Info("msg", "v", stringer{"x " + secret}) }},
		{name: "any attr", log: func(l *slog.Logger) { l.Info("msg", "args", []string{"--token", secret}) }},
		{name: "log valuer", log: func(l *slog.Logger) { l.Info("msg", "v", secretValuer{}) }},
		{name: "with attrs", log: func(l *slog.Logger) { l.With("token", secret).Info("msg") }},
		{name: "with group", log: func(l *slog.Logger) { l.WithGroup("g").Info("msg", "token", secret) }},
		{name: "with group and attrs", log: func(l *slog.Logger) {
			l.WithGroup("g").With(slog.Group("h", "t", secret)).Info("msg " + secret)
		}},
		{name: "unlearned shape", log: func(l *slog.Logger) { l.Info("msg", "auth", "Bearer abcdefgh12345") }},
		{name: "formatted", log: func(l *slog.Logger) { l.Info(fmt.Sprintf("env %v", map[string]string{"TOKEN": secret})) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(NewRedactingHandler(slog.NewTextHandler(&buf, nil), r))
			tt.log(logger)
			out := buf.String()
			for _, s := range []string{secret, "valuer-secret-1", "abcdefgh12345"} {
				if strings.Contains(out, s) {
					t.Errorf("log output contains %q:\n%s", s, out)
				}
			}
			if !strings.Contains(out, Mask) {
				t.Errorf("log output has no %q:\n%s", Mask, out)
			}
		})
	}
}

func TestNewRedactingHandler_KeepsOtherAttrs(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(NewRedactingHandler(slog.NewTextHandler(&buf, nil), NewRedactor()))
	logger.Debug("hidden")
	logger.Info("shown", "n", 42, "ok", true, slog.Group("g", "s", "plain"))
	out := buf.String()
	if strings.Contains(out, "hidden") {
		t.Errorf("debug record passed the Info level:\n%s", out)
	}
	for _, want := range []string{"msg=shown", "n=42", "ok=true", "g.s=plain"} {
		if !strings.Contains(out, want) {
			t.Errorf("log output lacks %q:\n%s", want, out)
		}
	}
}

// A key's shape inside a word is part of a name: tool names such as
// ask-sampling or task-0123456789 were shown as a***.
func TestMaskShapes_OnlyAtAWordStart(t *testing.T) {
	for in, want := range map[string]string{
		"ask-sampling-request":                 "ask-sampling-request",
		"run task-0123456789 now":              "run task-0123456789 now",
		"key sk-proj0123456789 leaked":         "key *** leaked",
		"key=sk-proj0123456789":                "key=***",
		`"token":"ghp_0123456789abcdefABCDEF"`: `"token":"***"`,
	} {
		if got := maskShapes(in); got != want {
			t.Errorf("maskShapes(%q) = %q, want %q", in, got, want)
		}
	}
}

// maskShapesByExpression is maskShapes without its literal prefilter: the
// answer the prefilter must never change.
func maskShapesByExpression(s string) string {
	s = userinfoInText().ReplaceAllString(s, "${1}"+Mask+"@")
	return shapeInText().ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:len("bearer")] + " " + Mask
		}
		return Mask
	})
}

// The prefilter skips the expressions only for text they cannot match:
// every credential shape, in any case the expression allows, is still
// masked.
func FuzzMaskShapes_SameAsExpressions(f *testing.F) {
	for _, seed := range []string{
		"", "plain text with no credential", "ask-sampling task-0123456789",
		"key sk-proj0123456789 leaked", "sk_live_0123456789", "sk_test_abcdefgh12",
		"ghp_0123456789abcdefABCDEF", "gho_0123456789abcdefABCDEF", "ghu_0123456789abcdefABCDEF",
		"ghs_0123456789abcdefABCDEF", "ghr_0123456789abcdefABCDEF", "github_pat_0123456789abcdefAB",
		"glpat-0123456789abcdefAB", "xoxb-12345678-abc", "xoxp-12345678", "AKIA0123456789ABCDEF",
		"eyJhbGciOiJI.eyJzdWIiOiIx.sig", "Authorization: Bearer abcdefgh12345",
		"BEARER abcdefgh12345", "bEaReR\tabcdefgh12345", "b", "bearer", "Bearer abc",
		"see https://user:pass@example.com/x", "https://example.com/@x", "a@b://c",
		`{"description":"token ghp_0123456789abcdefABCDEF, url ftp://u@h"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := maskShapes(s), maskShapesByExpression(s); got != want {
			t.Errorf("maskShapes(%q) = %q, the expressions give %q", s, got, want)
		}
	})
}

// BenchmarkMaskShapes_Catalog masks a real server's tools one by one (as
// loading its cached catalog does) with and without the literal
// prefilter; the ratio is what the prefilter saves.
func BenchmarkMaskShapes_Catalog(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "catalogs", "github.json"))
	if err != nil {
		b.Fatal(err)
	}
	var cat struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &cat); err != nil {
		b.Fatal(err)
	}
	for _, mask := range []struct {
		name string
		fn   func(string) string
	}{{"prefilter", maskShapes}, {"expressions", maskShapesByExpression}} {
		b.Run(mask.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				for _, tool := range cat.Tools {
					mask.fn(string(tool))
				}
			}
		})
	}
}
