//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentsFile_BroadWorkingDir: started in a filesystem root or the
// home directory (Claude Desktop starts servers in /), dispatch must not
// hand an agent the host's files through argumentsFile's default root.
func TestArgumentsFile_BroadWorkingDir(t *testing.T) {
	parent := t.TempDir()
	home := filepath.Join(parent, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "secret.json"), `{"message":"s3cret-home"}`)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.json"), `{"message":"s3cret-outside"}`)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=", "XDG_CACHE_HOME="}

	refused := func(t *testing.T, tc *testClient, file, secret string) {
		t.Helper()
		text := tc.mustError(map[string]any{"action": "call", "tool": "echo", "argumentsFile": file},
			"--args-dir", "filesystem root or home directory", "reads only this dispatch's result files")
		if strings.Contains(text, secret) {
			t.Errorf("refusal shows the file's content: %s", text)
		}
	}
	for _, tt := range []struct{ name, cwd, file, secret string }{
		{"home", home, "secret.json", "s3cret-home"},
		{"above home", parent, filepath.Join(home, "secret.json"), "s3cret-home"},
		{"filesystem root", string(filepath.Separator), filepath.Join(outside, "secret.json"), "s3cret-outside"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc, _ := startDispatchProc(t, tt.cwd, env, "--no-cache", "--mcp", fixture())
			refused(t, tc, tt.file, tt.secret)
			// A missing file gets the same answer: no existence oracle.
			refused(t, tc, filepath.Join(filepath.Dir(tt.file), "missing.json"), tt.secret)
			// The result files of this dispatch still feed calls.
			file := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "echo",
				"arguments": map[string]any{"message": "mine"}, "resultToFile": true})).Spill.ResultFile
			r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": file, "argumentsKey": "message"})
			if !strings.Contains(r.text(), "mine") {
				t.Errorf("echo fed this dispatch's result file = %q", r.text())
			}
		})
	}
	t.Run("--args-dir names the home", func(t *testing.T) {
		tc, _ := startDispatchProc(t, home, env, "--no-cache", "--args-dir", home, "--mcp", fixture())
		r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": "secret.json"})
		if r.text() != "s3cret-home" {
			t.Errorf("echo fed a file under --args-dir = %q", r.text())
		}
	})
}

// TestArgumentsFile_PrivateDirs: dispatch's own token, cache and session
// directories are never read as arguments, even under --args-dir.
func TestArgumentsFile_PrivateDirs(t *testing.T) {
	home := t.TempDir()
	cache := filepath.Join(home, "mycache")
	runtimeDir := filepath.Join(home, "run")
	tokens := filepath.Join(home, ".local", "state", "dispatch", "oauth-tokens.json")
	for _, f := range []string{tokens, filepath.Join(cache, "catalogs", "x.json"), filepath.Join(runtimeDir, "dispatch", "x.json"),
		filepath.Join(home, ".cache", "dispatch", "x.json")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, f, `{"accessToken":"tok-s3cret"}`)
	}
	if err := os.Symlink(tokens, filepath.Join(home, "link.json")); err != nil {
		t.Fatal(err)
	}
	// The test run's DISPATCH_STATE_DIR (helpers_test.go) is cleared: the
	// token file here is the one a user without it has.
	env := []string{"HOME=" + home, "XDG_STATE_HOME=", "XDG_CACHE_HOME=", "XDG_RUNTIME_DIR=" + runtimeDir, "DISPATCH_STATE_DIR="}
	tc, _ := startDispatchProc(t, home, env, "--cache-dir", cache, "--args-dir", home, "--mcp", fixture())
	for _, file := range []string{tokens, "link.json", filepath.Join(cache, "catalogs", "x.json"),
		filepath.Join(runtimeDir, "dispatch", "x.json"), filepath.Join(home, ".cache", "dispatch", "x.json"),
		filepath.Join(home, ".local", "state", "dispatch", "missing.json")} {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			text := tc.mustError(map[string]any{"action": "call", "tool": "echo", "argumentsFile": file,
				"argumentsPath": "accessToken", "argumentsKey": "message"}, "which argumentsFile never reads")
			if strings.Contains(text, "tok-s3cret") {
				t.Errorf("refusal shows the token: %s", text)
			}
		})
	}
}

// TestArgumentsFile_ConfigFilesRefused: dispatch's config file sits in the
// project directory dispatch starts in, with the servers' credentials in
// it. An agent naming it as argumentsFile would hand them to a tool in
// clear (the answer back is masked, hiding the leak); it is refused by
// identity, so a hard link or another spelling is refused too.
func TestArgumentsFile_ConfigFilesRefused(t *testing.T) {
	work := t.TempDir()
	config := filepath.Join(work, "servers.toml")
	writeFile(t, config, fmt.Sprintf("[servers.c1]\ncommand = %q\nenv = { FIXTURE_API_KEY = \"sk-config-s3cret\" }\n", fixtureBin))
	if err := os.Link(config, filepath.Join(work, "copy.toml")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "mine.txt"), "my own words")
	env := []string{"DISPATCH_STATE_DIR="}
	tc, _ := startDispatchProc(t, work, env, "--no-cache", "--config", config)
	for _, file := range []string{"servers.toml", config, "copy.toml", "./sub/../servers.toml"} {
		t.Run(file, func(t *testing.T) {
			text := tc.mustError(map[string]any{"action": "call", "tool": "echo", "argumentsFile": file, "argumentsKey": "message"},
				"dispatch's own servers.toml", "never read as arguments")
			if strings.Contains(text, "s3cret") {
				t.Errorf("refusal shows the config: %s", text)
			}
		})
	}
	r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": "mine.txt", "argumentsKey": "message"})
	if r.text() != "my own words" {
		t.Errorf("echo fed a file of the working directory = %q, want its words", r.text())
	}
}
