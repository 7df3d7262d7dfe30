//go:build unix

package main

// End-to-end tests of arguments nested too deep for the request that
// carries them to the server: the request adds two levels (the message
// and its params) around them, and a request may nest 10,000 levels
// (MaxRequestNesting), what the mcp-go fixture's encoding/json reads.
// Before, an argumentsFile of 9,999 or 10,000 levels was sent, the server
// answered a parse error to id null, and the call waited out --timeout;
// one past 10,000 levels was "not valid JSON". The --timeout of these
// tests is what a refusal that did not come at once would run into.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// argsObject is {"message":message,"a":…} nesting depth levels, its own
// object counted.
func argsObject(message string, depth int) string {
	return `{"message":"` + message + `","a":` + brackets(depth-1) + `}`
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// tooDeepFile is what the refusal of argumentsFile name, nesting depth
// levels, says.
func tooDeepFile(name string, depth int) []string {
	return []string{"argumentsFile " + name + " nests arrays and objects " + strconv.Itoa(depth) + " levels deep",
		"more than the 9998 a call's arguments may have", "adds 2 levels", "at most 10000", "MaxRequestNesting", "Flatten the data"}
}

func TestServe_ArgumentsFileNestedPastTheRequest(t *testing.T) {
	work := t.TempDir()
	writeFiles(t, work, map[string]string{
		"d9998.json":  argsObject("fits", 9998),
		"d9999.json":  argsObject("x", 9999),
		"d10000.json": argsObject("x", 10000),
		"d10001.json": argsObject("x", 10001),
		"d20000.json": argsObject("x", 20000),
		"deep":        argsObject("x", 20000), // no extension: JSON or text, as it holds
		"a9997.json":  brackets(9997),
		"a9998.json":  brackets(9998),
		"w.json":      `{"message":"x","w":{"a":` + brackets(9998) + `}}`,
		// Text, brackets and all: passed whole under argumentsKey.
		"brackets.md": strings.Repeat("[", 20000) + " notes\n",
	})
	tc, _ := startDispatchProc(t, work, nil, "--no-cache", "--timeout", "10s", "--mcp", fixture())
	call := func(extra map[string]any) map[string]any {
		req := map[string]any{"action": "call", "tool": "echo"}
		for k, v := range extra {
			req[k] = v
		}
		return req
	}
	if got := tc.mustOK(call(map[string]any{"argumentsFile": "d9998.json"})).text(); got != "fits" {
		t.Errorf("9,998 levels: echo answered %.80q, want fits", got)
	}
	for _, tt := range []struct {
		file  string
		depth int
	}{{"d9999.json", 9999}, {"d10000.json", 10000}, {"d10001.json", 10001}, {"d20000.json", 20000}, {"deep", 20000}} {
		text := tc.mustError(call(map[string]any{"argumentsFile": tt.file}), tooDeepFile(tt.file, tt.depth)...)
		if strings.Contains(text, "not valid JSON") || strings.Contains(text, "timed out") {
			t.Errorf("%s: %q", tt.file, text)
		}
	}
	// argumentsKey's object is one level more.
	if got := tc.mustOK(call(map[string]any{"argumentsFile": "a9997.json", "argumentsKey": "a", "arguments": map[string]any{"message": "keyed"}})).text(); got != "keyed" {
		t.Errorf("9,997 levels under argumentsKey: echo answered %.80q, want keyed", got)
	}
	tc.mustError(call(map[string]any{"argumentsFile": "a9998.json", "argumentsKey": "a", "arguments": map[string]any{"message": "keyed"}}),
		append(tooDeepFile("a9998.json", 9998), `(9999 under argumentsKey "a")`)...)
	tc.mustError(call(map[string]any{"argumentsFile": "w.json", "argumentsPath": "w"}),
		`the part of argumentsFile w.json that argumentsPath "w" selects nests arrays and objects 9999 levels deep`, "MaxRequestNesting")
	if got := tc.mustOK(call(map[string]any{"argumentsFile": "brackets.md", "argumentsKey": "message"})).text(); !strings.HasSuffix(got, " notes\n") {
		t.Errorf("a text file of brackets: echo answered %.80q, want the text", got)
	}
	if got := tc.mustOK(call(map[string]any{"arguments": map[string]any{"message": "still here"}})).text(); got != "still here" {
		t.Errorf("after the refusals: echo answered %q", got)
	}
}

// The command line's inline arguments and --meta are not bounded by an
// agent's message: they are held to the request's depth all the same,
// and a run step's references too.
func TestCLI_ArgumentsNestedPastTheRequest(t *testing.T) {
	work := t.TempDir()
	writeFiles(t, work, map[string]string{"d9999.json": argsObject("x", 9999)})
	base := []string{"--no-cache", "--timeout", "10s", "--mcp", fixture()}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"argumentsFile", []string{"call", "echo", "-f", filepath.Join(work, "d9999.json")},
			tooDeepFile(filepath.Join(work, "d9999.json"), 9999)},
		{"inline", []string{"call", "echo", argsObject("x", 9999)},
			[]string{"the request's arguments nest arrays and objects more than 9998 levels deep", "MaxRequestNesting"}},
		{"--meta", []string{"call", "echo", "message=x", "--meta", `{"a":` + brackets(9998) + `}`},
			[]string{"the request's _meta nests arrays and objects more than 9998 levels deep", "MaxRequestNesting"}},
	} {
		_, stderr, code := runCLI(t, "", append(base, tt.args...)...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (a usage error); stderr: %.400s", tt.name, code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %.600q lacks %q", tt.name, stderr, w)
			}
		}
	}
	// A reference's value nests 9,998 levels: under "x" the step's
	// arguments nest 9,999; one more and the step itself is past 10,000.
	for depth, want := range map[int]string{
		9998: "the request's arguments nest arrays and objects more than 9998 levels deep",
		9999: "the values this step's references put in it nest arrays and objects more than 10000 levels deep",
	} {
		steps := `[{"id":"a","action":"call","tool":"echo","arguments":{"message":"` + brackets(depth) + `"}},` +
			`{"action":"call","tool":"echo","arguments":{"message":"y","x":"$a.value"}}]`
		writeFiles(t, work, map[string]string{"steps.json": steps})
		stdout, stderr, code := runCLI(t, "", append(base, "run", filepath.Join(work, "steps.json"))...)
		if code != 2 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "MaxRequestNesting") {
			t.Errorf("run, a reference of %d levels: exit %d, want 2 and an error saying %q; stdout: %.600q\nstderr: %.300q", depth, code, want, stdout, stderr)
		}
	}
}
