//go:build unix

package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretsSetup is a dispatch configuration with a distinct secret planted
// in every place a credential can hide, and servers that work and fail.
type secretsSetup struct {
	secrets  map[string]string // what → value; none may ever be shown
	args     []string          // dispatch's global flags for this setup
	cacheDir string
	// missingDir is the cwd of secNoDir, under $PWD: errors must show it
	// whole, since a working directory is not a credential.
	missingDir string
}

// Connection names of the setup, in file order (after any --mcp server,
// which is c1).
const (
	secGood     = "good"      // stdio, works, env secret
	secBroken   = "broken"    // stdio, exits at startup echoing its FIXTURE_* env
	secBadArgs  = "badargs"   // stdio, exits at startup echoing its arguments
	secHTTPGood = "http_good" // http, works: right bearer header, user info and tokens in the URL
	secHTTPBad  = "http_bad"  // http, 401: wrong bearer header
	secHTTPDown = "http_down" // http, nothing listening: user info and tokens in the URL
	secSSEDown  = "sse_down"  // sse, nothing listening, from an mcpServers JSON file
	secNoDir    = "nodir"     // stdio, its cwd ${PWD}/missing-dir does not exist
)

func plantSecrets(t *testing.T) secretsSetup {
	t.Helper()
	s := secretsSetup{secrets: map[string]string{
		"good server env":                "envgood-7f3a91c2",
		"broken server env token":        "envfail-0b8e44d1",
		"broken server env password":     "dbpass-5c9e27aa",
		"inherited env (dispatch's own)": "inherited-91d0c3e5",
		"inherited env *_PWD":            "inheritedpwd-2c7a5e90",
		"arg --token=":                   "argtok-4f1a9c02",
		"arg --api-key VALUE":            "argkey-b3e8d715",
		"arg with a token's shape":       "ghp_ArgShape0123456789abcdef",
		"arg --password=${VAR}":          "argpw-ref-5d2e8a61",
		"right bearer header":            "hdrgood-3e71b0c4",
		"wrong bearer header":            "hdrwrong-a4c8d215",
		"URL user name":                  "uname-2d4f6b80",
		"URL password":                   "upass-8b1c6e03",
		"URL token= query":               "qtoken-6a2f90d7",
		"URL api_key= query":             "qkey-1e5b7c39",
		"down URL user name":             "down user-77a1c0e2",
		"down URL password":              "downpass-90bd4e16",
		"down URL token= query":          "qdown/3c8d 1f5a",
		"down URL sig= query":            "qsig-6e02b9d4",
		"sse header":                     "ssehdr-5b7e1d93",
		"sse URL key= query":             "ssekey-c41a08f7",
		"--mcp URL password":             "mcppass-e8d2a5b1",
		"--mcp URL secret= query":        "mcpsecret-0f6c3d72",
		"unparsable URL's password":      "pwslash-4b7c",
		"arg --header X-Api-Key":         "arghdr-6d1f3b8e",
		"arg -H Basic password":          "argbasic-9a4e2c71",
		"arg -p PASSWORD":                "argshortpw-3b8d",
		"down URL path key":              "k9Xv2LqP7mR3tY8wB1nC5zD0sE4hJ6fA",
	}}
	sec := s.secrets
	// Secrets that reach a server through dispatch's own environment.
	t.Setenv("FIXTURE_API_KEY", sec["inherited env (dispatch's own)"])
	t.Setenv("FIXTURE_DB_PWD", sec["inherited env *_PWD"])
	t.Setenv("DISPATCH_TEST_ARG_PW", sec["arg --password=${VAR}"])

	dir := t.TempDir()
	// $PWD names a directory, not a password: it must not be masked.
	t.Setenv("PWD", dir)
	s.missingDir = filepath.Join(dir, "missing-dir")
	s.cacheDir = filepath.Join(dir, "cache")
	fixtureURL := startFixtureHTTP(t, "http", "--require-header", "Authorization=Bearer "+sec["right bearer header"])
	good, err := url.Parse(fixtureURL)
	if err != nil {
		t.Fatal(err)
	}
	good.User = url.UserPassword(sec["URL user name"], sec["URL password"])
	good.RawQuery = "token=" + sec["URL token= query"] + "&api_key=" + sec["URL api_key= query"]
	closed := freePort(t)
	// Values with characters a URL must escape, written escaped as a
	// person would: they show in errors in that form.
	down := (&url.URL{Scheme: "http", User: url.UserPassword(sec["down URL user name"], sec["down URL password"]),
		Host: fmt.Sprintf("127.0.0.1:%d", closed), Path: "/v1/" + sec["down URL path key"] + "/mcp",
		RawQuery: "token=" + url.PathEscape(sec["down URL token= query"]) + "&sig=" + sec["down URL sig= query"]}).String()

	// mcp-remote's documented form: -H "Authorization: Basic BASE64".
	basicAuth := base64.StdEncoding.EncodeToString([]byte("argbasicuser:" + sec["arg -H Basic password"]))
	sec["arg -H Basic, encoded"] = basicAuth
	toml := fmt.Sprintf(`[servers.%s]
command = %q
args = ["--name", "good-server"]
env = { FIXTURE_TOKEN = %q }

[servers.%s]
command = %q
args = ["--fail-at-start"]
env = { FIXTURE_TOKEN = %q, FIXTURE_DB_PASSWORD = %q }
inheritEnv = true # so that dispatch's own FIXTURE_* reach it and must be masked

[servers.%s]
command = %q
args = ["--", "--token=%s", "--api-key", %q, %q, "--password=${DISPATCH_TEST_ARG_PW}",
	"--header", "X-Api-Key: %s", "-H", "Authorization: Basic %s", "-p", %q]

[servers.%s]
url = %q
headers = { Authorization = "Bearer %s" }

[servers.%s]
url = %q
headers = { Authorization = "Bearer %s" }

[servers.%s]
url = %q

[servers.%s]
command = %q
cwd = "${PWD}/missing-dir"
`, secGood, fixtureBin, sec["good server env"],
		secBroken, fixtureBin, sec["broken server env token"], sec["broken server env password"],
		secBadArgs, fixtureBin, sec["arg --token="], sec["arg --api-key VALUE"], sec["arg with a token's shape"],
		sec["arg --header X-Api-Key"], basicAuth, sec["arg -p PASSWORD"],
		secHTTPGood, good.String(), sec["right bearer header"],
		secHTTPBad, fixtureURL, sec["wrong bearer header"],
		secHTTPDown, down,
		secNoDir, fixtureBin)
	tomlPath := filepath.Join(dir, "servers.toml")
	writeFile(t, tomlPath, toml)

	sseDown := fmt.Sprintf("http://127.0.0.1:%d/sse?key=%s", closed, sec["sse URL key= query"])
	mcpJSON, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		secSSEDown: map[string]any{"type": "sse", "url": sseDown, "headers": map[string]string{"X-Api-Key": sec["sse header"]}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(dir, "mcp.json")
	writeFile(t, jsonPath, string(mcpJSON))

	s.args = []string{"--cache-dir", s.cacheDir, "--log-level", "debug", "--connect-timeout", "20s",
		"--config", tomlPath, "--config", jsonPath}
	return s
}

// mcpSpec is an --mcp value with secrets in its URL, pointing nowhere.
func (s secretsSetup) mcpSpec(t *testing.T) string {
	return fmt.Sprintf("http://mcpuser:%s@127.0.0.1:%d/mcp?client_secret=%s", s.secrets["--mcp URL password"], freePort(t),
		s.secrets["--mcp URL secret= query"])
}

// noSecrets fails the test if text shows any planted secret, raw or in
// one of the encodings a URL or JSON would give it.
func (s secretsSetup) noSecrets(t *testing.T, where, text string) {
	t.Helper()
	for what, v := range s.secrets {
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			if i := strings.Index(text, form); i >= 0 {
				t.Errorf("%s shows the %s secret %q: …%s…", where, what, form, text[max(0, i-300):min(len(text), i+len(form)+100)])
			}
		}
	}
}

// TestSecrets_NeverShownOverMCP drives every action and error path of
// proxy-dispatch against servers configured with secrets, and checks that
// no answer and no log line shows one, while masked values show as ***.
func TestSecrets_NeverShownOverMCP(t *testing.T) {
	s := plantSecrets(t)
	tc := startDispatch(t, nil, append(s.args, "--mcp", s.mcpSpec(t))...)

	answers := map[string]toolResult{}
	ask := func(name string, args map[string]any) toolResult {
		t.Helper()
		r := tc.mustCall(args)
		answers[name] = r
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		s.noSecrets(t, name, string(raw))
		return r
	}
	wantOK := func(name string, args map[string]any) toolResult {
		t.Helper()
		r := ask(name, args)
		if r.IsError {
			t.Errorf("%s: isError: %s", name, r.text())
		}
		return r
	}
	wantErr := func(name string, args map[string]any, want ...string) string {
		t.Helper()
		r := ask(name, args)
		if !r.IsError {
			t.Errorf("%s: want an error, got %.300s", name, r.text())
		}
		for _, w := range want {
			if !strings.Contains(r.text(), w) {
				t.Errorf("%s: %q lacks %q", name, r.text(), w)
			}
		}
		return r.text()
	}

	// list, in every form, with working and failing servers.
	var list listResponse
	decodeText(t, wantOK("list", map[string]any{"action": "list"}), &list)
	status := map[string]string{}
	for _, c := range list.Connections {
		status[c.Name] = c.Status
	}
	for name, want := range map[string]string{secGood: "ready", secHTTPGood: "ready", secBroken: "failed",
		secBadArgs: "failed", secHTTPBad: "failed", secHTTPDown: "failed", secSSEDown: "failed", secNoDir: "failed"} {
		if status[name] != want {
			t.Errorf("%s is %q, want %s (list: %+v)", name, status[name], want, list.Connections)
		}
	}
	wantOK("list includeTools", map[string]any{"action": "list", "includeTools": true})
	wantOK("list detail with schemas", map[string]any{"action": "list", "includeTools": true, "includeInputSchema": true,
		"includeAnnotations": true, "format": "detail", "limit": 500})
	wantOK("list refresh", map[string]any{"action": "list", "refresh": true, "format": "detail"})
	for _, name := range []string{secGood, secBroken, secBadArgs, secHTTPGood, secHTTPBad, secHTTPDown, secSSEDown, secNoDir, "c1"} {
		ask("list connection "+name, map[string]any{"action": "list", "connection": name, "format": "detail"})
	}

	// search and info.
	wantOK("search", map[string]any{"action": "search", "query": "echo a message", "format": "detail", "includeInputSchema": true})
	ask("search on a failing server", map[string]any{"action": "search", "query": "echo", "connection": secBroken})
	wantOK("info", map[string]any{"action": "info", "tool": "echo", "connection": secGood})
	wantErr("info on a failing server", map[string]any{"action": "info", "tool": "echo", "connection": secBroken})
	wantErr("info of an unknown tool", map[string]any{"action": "info", "tool": "no_such_tool"})

	// call: working servers, the tool's own error, every failing server.
	echo := func(conn string) map[string]any {
		return map[string]any{"action": "call", "tool": "echo", "connection": conn, "arguments": map[string]any{"message": "hi"}}
	}
	if r := wantOK("call over stdio", echo(secGood)); r.text() != "hi" {
		t.Errorf("echo over stdio = %q", r.text())
	}
	if r := wantOK("call over http with the right header", echo(secHTTPGood)); r.text() != "hi" {
		t.Errorf("echo over http = %q", r.text())
	}
	wantErr("call returning isError", map[string]any{"action": "call", "tool": "fail", "connection": secGood,
		"arguments": map[string]any{"message": "it failed"}}, "it failed")
	wantErr("call timing out", map[string]any{"action": "call", "tool": "slow", "connection": secGood,
		"arguments": map[string]any{"seconds": 10}, "timeout": 0.3}, "timed out")
	wantErr("call with bad arguments", map[string]any{"action": "call", "tool": "echo", "connection": secGood, "arguments": "[1]"})
	wantErr("call on the server that echoes its env", echo(secBroken), "FIXTURE_TOKEN=***", "FIXTURE_DB_PASSWORD=***", "FIXTURE_API_KEY=***", "FIXTURE_DB_PWD=***")
	wantErr("call on the server whose cwd is missing", echo(secNoDir), `working directory "`+s.missingDir+`"`)
	wantErr("call on the server that echoes its args", echo(secBadArgs), "--token=***", "--password=***",
		"X-Api-Key: ***", "Authorization: ***", `"-p" "***"`)
	wantErr("call with the wrong header", echo(secHTTPBad))
	// The URL is named without its user info at all, not even masked.
	wantErr("call to a URL with user info", echo(secHTTPDown), "cannot reach http://127.0.0.1:", "connection refused")
	wantErr("call to an SSE URL", echo(secSSEDown))
	wantErr("call to the --mcp URL", echo("c1"))
	wantErr("call of an unknown tool", map[string]any{"action": "call", "tool": "no_such_tool"}, "could not reach", "to look for tool \"no_such_tool\" there")
	wantErr("call of an ambiguous tool", map[string]any{"action": "call", "tool": "echo"})
	wantErr("call on an unknown connection", map[string]any{"action": "call", "tool": "echo", "connection": "nope"})
	// Failing servers are retried on use; the second failure is reported too.
	wantErr("call on the failing server again", echo(secBroken))

	// readresult errors.
	wantErr("readresult of a missing file", map[string]any{"action": "readresult", "resultFile": "/nonexistent/r1.json"})
	wantErr("readresult of a file outside", map[string]any{"action": "readresult", "resultFile": "/etc/hostname", "op": "head"})
	wantErr("readresult bad op", map[string]any{"action": "readresult", "resultFile": "r1.json", "op": "explode"})
	wantErr("readresult without a file", map[string]any{"action": "readresult"})

	// The failing servers' answers show where values were masked.
	if len(answers) < 30 {
		t.Errorf("only %d answers checked", len(answers))
	}
	stderr := tc.Stderr()
	s.noSecrets(t, "dispatch's stderr (logs at debug)", stderr)
	if !strings.Contains(stderr, "level=DEBUG") && !strings.Contains(stderr, "level=INFO") {
		t.Errorf("no log lines were emitted at --log-level debug:\n%.2000s", stderr)
	}
	s.noSecretsInDir(t, s.cacheDir)
}

// noSecretsInDir checks every file under dir.
func (s secretsSetup) noSecretsInDir(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s.noSecrets(t, "cache file "+filepath.Base(path), string(data))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestSecrets_NeverShownByTheCLI runs one-shot commands, with logs at
// debug, against the same servers: stdout and stderr never show a secret.
func TestSecrets_NeverShownByTheCLI(t *testing.T) {
	s := plantSecrets(t)
	spec := s.mcpSpec(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string // in stdout or stderr
	}{
		// list exits 3 because some of these servers fail to start.
		{"list", []string{"list"}, 3, nil},
		{"json list", []string{"--json", "list", "--format", "detail"}, 3, nil},
		{"list tools with schemas", []string{"list", "--tools", "--schema", "--annotations", "--format", "detail", "--limit", "500"}, 3, nil},
		{"list the failing server", []string{"--json", "list", "-C", secBroken}, 3, []string{"FIXTURE_TOKEN=***"}},
		{"search", []string{"search", "echo", "a", "message"}, 0, nil},
		{"info", []string{"info", "echo", "-C", secGood}, 0, nil},
		{"call", []string{"call", "echo", `{"message":"hi"}`, "-C", secHTTPGood}, 0, []string{"hi"}},
		{"call returning isError", []string{"call", "fail", `{"message":"it failed"}`, "-C", secGood}, 1, nil},
		// The per-call log line, in both formats, with a server error in it.
		{"call with JSON logs", []string{"--log-format", "json", "call", "echo", `{"message":"hi"}`, "-C", secHTTPGood}, 0, []string{`"msg":"call"`, `"tool":"echo"`}},
		{"failed call with JSON logs", []string{"--log-format", "json", "call", "echo", `{}`, "-C", secBroken}, 3, []string{`"msg":"call"`, "FIXTURE_TOKEN=***"}},
		{"failed call with text logs", []string{"call", "echo", `{}`, "-C", secBroken}, 3, []string{`level=INFO msg=call`, "FIXTURE_TOKEN=***"}},
		{"call on the server that echoes its env", []string{"call", "echo", `{}`, "-C", secBroken}, 3,
			[]string{"FIXTURE_TOKEN=***", "FIXTURE_DB_PASSWORD=***", "FIXTURE_API_KEY=***", "FIXTURE_DB_PWD=***"}},
		{"call on the server whose cwd is missing", []string{"call", "echo", `{}`, "-C", secNoDir}, 3, []string{`working directory "` + s.missingDir + `"`}},
		{"call on the server that echoes its args", []string{"call", "echo", `{}`, "-C", secBadArgs}, 3, []string{"--token=***"}},
		{"call with the wrong header", []string{"call", "echo", `{}`, "-C", secHTTPBad}, 3, nil},
		{"call to a URL with user info", []string{"call", "echo", `{}`, "-C", secHTTPDown}, 3, []string{"cannot reach http://127.0.0.1:", "connection refused"}},
		{"call to an SSE URL", []string{"call", "echo", `{}`, "-C", secSSEDown}, 3, nil},
		{"call of an unknown tool", []string{"call", "no_such_tool", `{}`}, 3, []string{`to look for tool "no_such_tool" there, so it may yet exist`}},
		// One-shot commands report a failed start in their answer, not as
		// a WARN line; a crash mid-call is still logged at WARN.
		{"call that crashes its server", []string{"call", "crash", `{}`, "-C", secGood}, 3, []string{"server connection lost"}},
		{"list with an --mcp URL", []string{"--mcp", spec, "--json", "list"}, 3, nil},
		{"call the --mcp URL", []string{"--mcp", spec, "call", "echo", `{}`, "-C", "c1"}, 3, nil},
		{"a run pipeline", []string{"run", "-"}, 3, nil},
		// An unescaped "/" in a password ends the host early: the URL does
		// not parse, and the error must not quote what it read as a port.
		{"an --mcp URL that does not parse", []string{"--mcp", "http://admin:" + s.secrets["unparsable URL's password"] + "/e91d@127.0.0.1:1/mcp", "list"},
			2, []string{"invalid url"}},
	}
	pipeline := `{"action":"list"}
{"action":"call","tool":"echo","connection":"http_good","arguments":{"message":"hi"}}
{"action":"call","tool":"echo","connection":"broken","arguments":{}}
`
	var allStderr strings.Builder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin := ""
			if tt.name == "a run pipeline" {
				stdin = pipeline
			}
			stdout, stderr, code := runCLI(t, stdin, append(s.args, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			s.noSecrets(t, "stdout", stdout)
			s.noSecrets(t, "stderr", stderr)
			allStderr.WriteString(stderr)
			for _, w := range tt.contains {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", w, stdout, stderr)
				}
			}
		})
	}
	// The logs checked above include every level.
	for _, level := range []string{"level=DEBUG", "level=INFO", "level=WARN"} {
		if !strings.Contains(allStderr.String(), level) {
			t.Errorf("no %s log line in any command's stderr", level)
		}
	}
	s.noSecretsInDir(t, s.cacheDir)
}
