//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// The secrets a server's answers quote back (its env tool, a resource, a
// prompt): the user configured them, so they are masked as *** wherever
// the answer goes.
const (
	answerSecret = "plain-key-7d1f0a9c3b"
	// JSON writes the quote and backslash escaped and, in Go's encoder,
	// <, > and & as \u003c...; / may come as \/.
	answerOddSecret = `od"d\sec<ret>&/9k`
)

// answerSecretsConfig writes a config with one stdio fixture server,
// "vault", that was given both secrets in its env and quotes API_KEY in
// a resource and a prompt (--leak-env), and returns dispatch's flags.
func answerSecretsConfig(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.toml")
	writeFile(t, cfg, fmt.Sprintf(`[servers.vault]
command = %q
args = ["--resources", "--leak-env", "API_KEY"]
env = { API_KEY = %q, ODD_SECRET = %q }
`, fixtureBin, answerSecret, answerOddSecret))
	return []string{"--no-cache", "--config", cfg, "--spill-dir", filepath.Join(dir, "spill")}
}

// noAnswerSecret fails if text holds either secret as is or in any form
// a JSON encoder writes it in, and unless it holds the mask.
func noAnswerSecret(t *testing.T, where string, text []byte) {
	t.Helper()
	for _, secret := range []string{answerSecret, answerOddSecret} {
		forms := []string{secret}
		for _, escapeHTML := range []bool{true, false} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(escapeHTML)
			if err := enc.Encode(secret); err != nil {
				t.Fatal(err)
			}
			form := strings.Trim(strings.TrimSpace(buf.String()), `"`)
			forms = append(forms, form, strings.ReplaceAll(form, "/", `\/`))
		}
		seen := map[string]bool{}
		for _, f := range forms {
			if !seen[f] && bytes.Contains(text, []byte(f)) {
				seen[f] = true
				t.Errorf("%s shows the secret as %q:\n%s", where, f, text)
			}
		}
	}
	if !bytes.Contains(text, []byte("***")) {
		t.Errorf("%s holds no mask; the test did not see the secret's place:\n%s", where, text)
	}
}

// TestSecrets_AnswersMaskedOverMCP: the fixture's env tool returns its
// environment's secret, on the hot path, the general path (with _meta and
// progress), as an exposed tool and into a result file; a resource and a
// prompt quote it. The agent never gets the value.
func TestSecrets_AnswersMaskedOverMCP(t *testing.T) {
	tc := startDispatch(t, nil, append(answerSecretsConfig(t), "--expose", "env")...)
	for _, name := range []string{"API_KEY", "ODD_SECRET"} {
		args := map[string]any{"action": "call", "tool": "env", "arguments": map[string]any{"name": name}}
		hot := callRaw(t, tc, mcp.NewRequestId(int64(7)), map[string]any{"name": "proxy-dispatch", "arguments": args})
		noAnswerSecret(t, "hot path call of env "+name, hot)
		general := callRaw(t, tc, mcp.NewRequestId("general-"+name), map[string]any{"name": "proxy-dispatch", "arguments": args,
			"_meta": map[string]any{"progressToken": "p-" + name}})
		noAnswerSecret(t, "general call of env "+name+" with _meta", general)
		noAnswerSecret(t, "progress of env "+name, progressMessages(t, tc, "p-"+name))
		exposed, errMsg := tc.request("tools/call", map[string]any{"name": "env", "arguments": map[string]any{"name": name}})
		if errMsg != "" {
			t.Fatalf("exposed env: %s", errMsg)
		}
		noAnswerSecret(t, "exposed env "+name, exposed)
		exposedMeta, errMsg := tc.request("tools/call", map[string]any{"name": "env", "arguments": map[string]any{"name": name},
			"_meta": map[string]any{"progressToken": "e-" + name}})
		if errMsg != "" {
			t.Fatalf("exposed env with _meta: %s", errMsg)
		}
		noAnswerSecret(t, "exposed env "+name+" with _meta", exposedMeta)

		toFile := map[string]any{"action": "call", "tool": "env", "arguments": map[string]any{"name": name}, "resultToFile": true}
		file := spilled(t, tc.mustOK(toFile)).Spill.ResultFile
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		noAnswerSecret(t, "result file of env "+name, data)
		read := tc.mustOK(map[string]any{"action": "readresult", "resultFile": file, "op": "read"})
		raw, err := json.Marshal(read)
		if err != nil {
			t.Fatal(err)
		}
		noAnswerSecret(t, "readresult of env "+name, raw)
	}
	for what, args := range map[string]map[string]any{
		"resource read": {"action": "call", "type": "resource", "uri": "fixture://leaky"},
		"prompt get":    {"action": "call", "type": "prompt", "prompt": "leaky"},
	} {
		r := tc.mustOK(args)
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		noAnswerSecret(t, what, raw)
	}
}

// TestSecrets_AnswersMaskedByTheCLI: call in text and --json, and read.
func TestSecrets_AnswersMaskedByTheCLI(t *testing.T) {
	flags := answerSecretsConfig(t)
	for _, name := range []string{"API_KEY", "ODD_SECRET"} {
		for _, json := range []bool{false, true} {
			args := append([]string(nil), flags...)
			if json {
				args = append(args, "--json")
			}
			args = append(args, "call", "vault/env", fmt.Sprintf(`{"name":%q}`, name))
			stdout, stderr, code := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, stderr)
			}
			noAnswerSecret(t, fmt.Sprintf("call env %s (--json %v)", name, json), []byte(stdout))
		}
	}
	stdout, stderr, code := runCLI(t, "", append(flags, "read", "fixture://leaky")...)
	if code != 0 {
		t.Fatalf("read: exit %d\n%s", code, stderr)
	}
	noAnswerSecret(t, "read fixture://leaky", []byte(stdout))
}

// progressMessages is the messages of the progress notifications the
// agent got for token, which must exist.
func progressMessages(t *testing.T, tc *testClient, token string) []byte {
	t.Helper()
	tc.mu.Lock()
	defer tc.mu.Unlock()
	var messages []string
	for _, n := range tc.notifications {
		fields := n.Params.AdditionalFields
		if n.Method == string(mcp.MethodNotificationProgress) && fmt.Sprint(fields["progressToken"]) == token {
			message, _ := fields["message"].(string)
			messages = append(messages, message)
		}
	}
	if len(messages) == 0 {
		t.Fatalf("no progress notification for %s", token)
	}
	return []byte(strings.Join(messages, "\n"))
}

// TestSecrets_ServerRequestsMasked: a server that puts a configured
// secret into a sampling or elicitation request does not show it to the
// agent's model or user.
func TestSecrets_ServerRequestsMasked(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "servers.toml")
	writeFile(t, cfg, fmt.Sprintf(`[servers.asker]
command = %q
args = ["--client-requests"]
env = { API_KEY = %q }
`, fixtureBin, answerSecret))
	agent := &testAgent{}
	tc := startDispatchAs(t, nil, agent.options(), "--no-cache", "--config", cfg)
	for tool, args := range map[string]map[string]any{
		"request-sampling":    {"prompt": "use key " + answerSecret},
		"request-elicitation": {"message": "confirm key " + answerSecret},
	} {
		tc.mustOK(map[string]any{"action": "call", "tool": tool, "arguments": args})
	}
	asked := strings.Join(agent.questions(), "\n")
	checkText(t, "what the agent was asked", asked, []string{"sampling: use key ***", "elicitation: confirm key ***"}, []string{answerSecret})
}
