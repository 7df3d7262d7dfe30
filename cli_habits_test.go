//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCLI_CallHabits: call's arguments as NAME=VALUE typed from the tool's
// schema, errors in the command line's terms, and --threshold refused
// where no file can be kept.
func TestCLI_CallHabits(t *testing.T) {
	fx := fixture()
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  string
		errHas  []string
		errNot  []string
		argsDir bool
	}{
		{name: "NAME=VALUE typed as numbers through the schema's $ref", args: []string{"call", "add", "a=2", "b=3"}, stdout: "5\n"},
		{name: "NAME=VALUE for a string stays text", args: []string{"call", "echo", "message=5"}, stdout: "5\n"},
		{name: "a JSON object and a pair", args: []string{"call", "add", `{"a":1}`, "b=3"}, stdout: "4\n"},
		{name: "NAME:=JSON", args: []string{"call", "add", "a:=2.5", "b=3"}, stdout: "5.5\n"},
		{name: "a value of the wrong type", args: []string{"call", "add", "a=2", "b=three"}, code: exitUsage,
			errHas: []string{`"b" is a number in the input schema of add`, "b:=JSON"}},
		{name: "a word that is not an argument", args: []string{"call", "echo", "hello"}, code: exitUsage,
			errHas: []string{`"hello" is neither a JSON object nor NAME=VALUE`}},
		{name: "flag mistakes name flags", args: []string{"call", "echo", "message=x", "--arguments-path", "a"}, code: exitUsage,
			errHas: []string{"--arguments-path", "-f/--arguments-file", "dispatch call --help"}, errNot: []string{`"argumentsFile"`, `{"action"`}},
		{name: "an unknown tool points to dispatch search", args: []string{"call", "zqxjvv"}, code: exitUsage,
			errHas: []string{"dispatch search WORDS"}, errNot: []string{`{"action"`}},
		{name: "an unknown connection points to dispatch list", args: []string{"call", "echo", "message=x", "-C", "c9"}, code: exitUsage,
			errHas: []string{"dispatch list"}, errNot: []string{`{"action"`}},
		{name: "bad JSON arguments", args: []string{"call", "echo", `{"message":`}, code: exitUsage,
			errHas: []string{"not valid JSON"}, errNot: []string{`{"action"`}},
		{name: "--threshold without --spill-dir", args: []string{"--threshold", "1KiB", "call", "echo", "message=x"}, code: exitUsage,
			errHas: []string{"--threshold needs --spill-dir", "deleted when the command ends"}},
		{name: "--threshold with --spill-dir", args: []string{"--threshold", "1KiB", "call", "echo", "message=x"}, argsDir: true, stdout: "x\n"},
		{name: "no --threshold, no --spill-dir", args: []string{"call", "echo", "message=x"}, stdout: "x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--no-cache", "--mcp", fx}, tt.args...)
			if tt.argsDir {
				args = append([]string{"--spill-dir", t.TempDir()}, args...)
			}
			stdout, stderr, code := runCLI(t, "", args...)
			if code != tt.code || (tt.stdout != "" && stdout != tt.stdout) {
				t.Errorf("exit %d, stdout %q; want %d, %q\nstderr: %s", code, stdout, tt.code, tt.stdout, stderr)
			}
			checkText(t, "stderr", stderr, tt.errHas, tt.errNot)
		})
	}
}

// TestCLI_CallHelp: call --help shows its own flags and examples before
// the global flags.
func TestCLI_CallHelp(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "call", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	example := strings.Index(stdout, "call get-sum a=2 b=3")
	own := strings.Index(stdout, "--result-to-file")
	global := strings.Index(stdout, "Global flags:")
	globalFlag := strings.Index(stdout, "--spill-dir")
	if example < 0 || own < 0 || global < 0 || !(example < own && own < global && global < globalFlag) {
		t.Errorf("want examples, then call's flags, then the global flags:\n%s", stdout)
	}
}

// TestCLI_HelpShowsExamples: every command a shell error sends to its
// --help for examples ("See 'dispatch search --help' for examples") has
// some there, and each is one of that command's.
func TestCLI_HelpShowsExamples(t *testing.T) {
	for _, command := range []string{"list", "search", "info", "call", "read", "prompt", "readresult", "run"} {
		t.Run(command, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", command, "--help")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			_, shown, found := strings.Cut(stdout, "Examples:")
			if !found {
				t.Fatalf("%s --help shows no examples:\n%s", command, stdout)
			}
			shown, _, _ = strings.Cut(shown, "Arguments:")
			shown, _, _ = strings.Cut(shown, "Flags:")
			if !strings.Contains(shown, "dispatch ") || !strings.Contains(shown, " "+command+" ") {
				t.Errorf("%s --help's examples are not of %s:\n%s", command, command, shown)
			}
		})
	}
}

// TestCLI_SessionShellFlagsSayWhatIsPrinted: --csh and --sh name the
// commands each of session start and session stop prints.
func TestCLI_SessionShellFlagsSayWhatIsPrinted(t *testing.T) {
	for command, want := range map[string][]string{"start": {"setenv", "export"}, "stop": {"unsetenv", "unset"}} {
		stdout, stderr, code := runCLI(t, "", "session", command, "--help")
		if code != 0 {
			t.Fatalf("session %s --help: exit %d: %s", command, code, stderr)
		}
		flags, _, _ := strings.Cut(stdout, "Global flags:")
		for _, w := range want {
			if !regexp.MustCompile(`\b` + w + `\b`).MatchString(flags) {
				t.Errorf("session %s --help does not say it prints %s:\n%s", command, w, flags)
			}
		}
	}
}

// TestCLI_HelpNamesEveryKind: list, search and info work on resources and
// prompts too (--type), and the command list says so.
func TestCLI_HelpNamesEveryKind(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, command := range []string{"list [flags]", "search <query> ... [flags]", "info <tool> [flags]"} {
		_, summary, _ := strings.Cut(stdout, "\n  "+command+"\n")
		summary, _, _ = strings.Cut(summary, "\n\n")
		if !strings.Contains(summary, "resource") || !strings.Contains(summary, "prompt") {
			t.Errorf("dispatch --help: %s is summed up as %q, which names neither resources nor prompts", command, strings.TrimSpace(summary))
		}
	}
}

// TestCLI_ResultToFileFollowsUmask: a file written with -o is the user's
// and gets the mode their umask gives, not 0600 (spill files stay 0600).
func TestCLI_ResultToFileFollowsUmask(t *testing.T) {
	tests := []struct {
		umask string
		want  os.FileMode
	}{
		{"022", 0o644},
		{"027", 0o640},
		{"077", 0o600},
		{"002", 0o664},
	}
	for _, tt := range tests {
		t.Run(tt.umask, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.txt")
			cmd := exec.Command("sh", "-c", `umask "$1"; shift; exec "$@"`, "sh", tt.umask,
				dispatchBin, "--no-cache", "--mcp", fixture(), "call", "echo", `{"message":"kept"}`, "-o", path)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if m := fileMode(t, path); m != tt.want {
				t.Errorf("umask %s: mode %o, want %o", tt.umask, m, tt.want)
			}
		})
	}
}
