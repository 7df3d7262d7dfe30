package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shell's error messages are sentences with commands that run as
// written, not an agent's JSON hints reworded word by word.
func TestCLI_ShellHints(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree.json")
	writeFile(t, tree, `{"a": [1, 2]}`)
	array := filepath.Join(dir, "array.json")
	writeFile(t, array, `[1, 2]`)
	text := filepath.Join(dir, "notes.txt")
	writeFile(t, text, "hello\n")
	fx := fixture()
	tests := []struct {
		name  string
		args  []string
		want  []string
		avoid []string
	}{
		{"path selects nothing", []string{"--mcp", fx, "call", "echo", "-f", tree, "--arguments-path", "99", "--arguments-key", "message"},
			[]string{"--arguments-path \"99\" selects nothing", "dispatch readresult " + tree + " --op stat shows its top-level keys", "dispatch readresult " + tree + " --op query --path PATH tries a path"},
			[]string{"See 'dispatch", `"op"`, "resultFile"}},
		{"array without a key", []string{"--mcp", fx, "call", "add", "-f", array},
			[]string{"-f/--arguments-file " + array + " holds a JSON array", "Add --arguments-key NAME to pass it", "--arguments-path GJSON to select"},
			[]string{`:"NAME"`, "argumentsKey", "argumentsPath"}},
		{"text without a key", []string{"--mcp", fx, "call", "add", "-f", text},
			[]string{"holds text, not a JSON object", "Add --arguments-key NAME to pass the text"},
			[]string{`:"NAME"`, "argumentsKey"}},
		{"text with a path", []string{"--mcp", fx, "call", "add", "-f", text, "--arguments-path", "x"},
			[]string{"Drop --arguments-path and give --arguments-key NAME"},
			[]string{`:"NAME"`, "argumentsKey", "argumentsPath"}},
		{"tool on two connections", []string{"--no-cache", "--mcp", fx, "--mcp", fixture("--instructions", "x"), "call", "echo", "message=hi"},
			[]string{`tool "echo" exists on 2 connections`, "Add -C c1, or write the tool as c1/echo"},
			[]string{`:"c1"`, "-C/--connection", `"c1/echo"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, "", tt.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			checkText(t, "stderr", stderr, tt.want, tt.avoid)
		})
	}
}

// Startup flags name themselves in their errors, say what they accept, and
// exit 2; --threshold 0 (never save) needs no --spill-dir.
func TestCLI_StartupFlags(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	writeFile(t, notDir, "x")
	fx := fixture()
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		want   []string
		avoid  []string
	}{
		{"--spill-dir is a file", []string{"--mcp", fx, "--spill-dir", notDir, "list"}, exitUsage, "",
			[]string{"--spill-dir " + notDir + ":", "not a directory", "give a directory dispatch can create"}, nil},
		{"--threshold abc", []string{"--mcp", fx, "--threshold", "abc", "list"}, exitUsage, "",
			[]string{`--threshold: parse size "abc": want a byte count like 51200, 50KiB`, "(0 never saves results to files)"}, []string{"strconv", `parsing ""`}},
		// A value too large is the error, not the --spill-dir a valid one
		// would need (which said so first, and left the value unmentioned).
		{"--threshold too large in a one-shot call", []string{"--mcp", fx, "--threshold", "99999999999999999999", "call", "echo", "message=hi"}, exitUsage, "",
			[]string{`--threshold: parse size "99999999999999999999": too large (0 never saves results to files)`}, []string{"needs --spill-dir", ", or 0"}},
		// 0 would have meant the default, unsaid; the other bounds refuse it.
		{"--max-message 0", []string{"--mcp", fx, "--max-message", "0", "list"}, exitUsage, "",
			[]string{"--max-message must be more than 0"}, nil},
		{"--threshold 0 in a one-shot call", []string{"--mcp", fx, "--threshold", "0", "call", "echo", "message=hi"}, exitOK, "hi\n", nil, nil},
		{"--threshold 0B in a one-shot call", []string{"--mcp", fx, "--threshold", "0B", "call", "echo", "message=hi"}, exitOK, "hi\n", nil, nil},
		{"--threshold 1KiB still needs --spill-dir", []string{"--mcp", fx, "--threshold", "1KiB", "call", "echo", "message=hi"}, exitUsage, "",
			[]string{"--threshold needs --spill-dir"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if tt.stdout != "" && stdout != tt.stdout {
				t.Errorf("stdout = %q, want %q", stdout, tt.stdout)
			}
			checkText(t, "stderr", stderr, tt.want, tt.avoid)
		})
	}
}

// -o is checked before the tool runs: a tool's side effects must not
// happen when its result has nowhere to go. The crash tool shows whether
// the tool ran (it would exit 3). A call that fails leaves no empty file
// behind, and an existing file as it was.
func TestCLI_ResultFileCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	writeFile(t, existing, "old\n")
	fresh := filepath.Join(dir, "new.json")
	fx := fixture()
	tests := []struct {
		name string
		out  string
		code int
		want string
	}{
		{"directory missing", filepath.Join(dir, "nope", "x.json"), exitUsage, "-o/--result-to-file: open " + filepath.Join(dir, "nope", "x.json") + ": no such file or directory; name a file in a directory that exists"},
		{"a directory", dir, exitUsage, "-o/--result-to-file " + dir + " is a directory, not a regular file"},
		// It said "(a directory?)" of /dev/null too.
		{"a device", os.DevNull, exitUsage, "-o/--result-to-file " + os.DevNull + " is a device, not a regular file"},
		{"fresh file, call fails", fresh, exitServer, "server connection lost"},
		{"existing file, call fails", existing, exitServer, "server connection lost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "call", "crash", "-o", tt.out)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tt.code, tt.want, stderr)
			}
		})
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed call left %s behind (stat: %v)", fresh, err)
	}
	if data, err := os.ReadFile(existing); err != nil || string(data) != "old\n" {
		t.Errorf("a failed call changed %s: %q, %v", existing, data, err)
	}
}

// A tool's isError is a failed call for -o as much as a crash is: the
// error text must not replace the data in an existing file, nor be left
// in a new one passing for a result. It goes to stderr, so stdout stays
// empty, as it does for any other failure of call -o.
func TestCLI_ResultFileToolError(t *testing.T) {
	fx := fixture()
	for _, asJSON := range []bool{false, true} {
		dir := t.TempDir()
		existing := filepath.Join(dir, "old.json")
		writeFile(t, existing, "old\n")
		fresh := filepath.Join(dir, "new.json")
		for _, out := range []string{fresh, existing} {
			args := []string{"--no-cache", "--mcp", fx, "call", "fail", "message=the tool says no", "-o", out}
			if asJSON {
				args = append([]string{"--json"}, args...)
			}
			stdout, stderr, code := runCLI(t, "", args...)
			if code != exitToolError {
				t.Errorf("%v: exit %d, want %d; stderr:\n%s", args, code, exitToolError, stderr)
			}
			if stdout != "" {
				t.Errorf("%v: stdout = %q, want nothing (no result was saved)", args, stdout)
			}
			checkText(t, "stderr", stderr, []string{"the tool says no", "tool fail returned an error", "nothing was saved to " + out}, nil)
		}
		if _, err := os.Stat(fresh); !os.IsNotExist(err) {
			t.Errorf("a tool error left %s behind (stat: %v)", fresh, err)
		}
		if data, err := os.ReadFile(existing); err != nil || string(data) != "old\n" {
			t.Errorf("a tool error changed %s: %q, %v", existing, data, err)
		}
	}
}

// read -o keeps the promise call -o makes: a read that fails leaves an
// existing file as it was. A blob that is not base64 is found before the
// file is opened, not half-way through writing over it.
func TestCLI_ReadResultFileBadBlobKeepsExisting(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.png")
	writeFile(t, existing, "old\n")
	fresh := filepath.Join(dir, "new.png")
	for _, out := range []string{fresh, existing} {
		_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--readables"), "read", "fixture://read/hostile/bad-blob", "-o", out)
		if code == exitOK {
			t.Errorf("-o %s: exit 0 for a blob that is not base64", out)
		}
		checkText(t, "stderr", stderr, []string{"is not base64", "nothing was written to " + out}, nil)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed read left %s behind (stat: %v)", fresh, err)
	}
	if data, err := os.ReadFile(existing); err != nil || string(data) != "old\n" {
		t.Errorf("a failed read changed %s: %q, %v", existing, data, err)
	}
}

// A one-shot call prints the full result: structured content that the
// text only summarizes is printed too, as indented JSON; text that holds
// it already is not followed by a copy.
func TestCLI_CallPrintsStructuredContent(t *testing.T) {
	fx := fixture()
	stdout, stderr, code := runCLI(t, "", "--mcp", fx, "call", "large_structured", "bytes=200")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"3 items, 203 bytes of structuredContent\n{\n  \"items\": [", `"name": "item-3"`, `"total": 3`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, code = runCLI(t, "", "--mcp", fx, "call", "add", "a=2", "b=3")
	if code != exitOK || stdout != "5\n" {
		t.Errorf("add: exit %d, stdout %q; want only the text 5", code, stdout)
	}
}

// Printed to a pipe or a file, a call's text is its bytes: none taken
// from one that ends in several newlines or in "\r\n"; only a text that
// has no final newline gets one, so that shell output stays in lines.
func TestCLI_CallTextIsByteExact(t *testing.T) {
	fx := fixture()
	for message, want := range map[string]string{"hi": "hi\n", "two lines\n\n": "two lines\n\n", "a\r\n": "a\r\n", "tab\tend\n\n\n": "tab\tend\n\n\n"} {
		stdout, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "call", "echo", "message="+message)
		if code != exitOK || stdout != want {
			t.Errorf("echo %q: exit %d, stdout %q, stderr %q; want %q", message, code, stdout, stderr, want)
		}
	}
	stdout, _, code := runCLI(t, "", "--no-cache", "--mcp", fx, "call", "mixed")
	if code != exitOK || !strings.HasPrefix(stdout, "one of each content type follows: <b>text</b> & co\n{\n  \"type\": \"image\"") {
		t.Errorf("mixed: exit %d, stdout %.200q; want the text, a newline, then the image item", code, stdout)
	}
}

// A server that cannot start is the cause a one-shot command leads with,
// said once (not also as a WARN log line), whole, with exit code 3.
func TestCLI_UnreachableServerLeads(t *testing.T) {
	down := "http://127.0.0.1:1/mcp"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"call of a tool it may have", []string{"call", "get-sum", "a=2", "b=3"},
			`dispatch: could not reach c1 to look for tool "get-sum" there, so it may yet exist: c1: initialize: cannot reach ` + down},
		{"call with a JSON object", []string{"call", "get-sum", `{"a":2}`},
			`dispatch: could not reach c1 to look for tool "get-sum" there`},
		{"list", []string{"list"}, "dispatch: could not reach c1: initialize: cannot reach " + down},
		{"search", []string{"search", "sum"}, "dispatch: could not reach c1: initialize: cannot reach " + down},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--mcp", down}, tt.args...)...)
			if code != exitServer {
				t.Errorf("exit code %d, want %d; stderr: %s", code, exitServer, stderr)
			}
			if !strings.HasPrefix(stderr, tt.want) {
				t.Errorf("stderr does not start with %q:\n%s", tt.want, stderr)
			}
			if n := strings.Count(stderr, "connection refused"); n != 1 || strings.Contains(stderr, "level=WARN") {
				t.Errorf("the cause is said %d times (want once, no WARN line):\n%s", n, stderr)
			}
		})
	}
}

// --toon -o NAME with a name that says nothing of the format writes TOON,
// the summary says so, and readresult reads the file as TOON by what it
// holds. A result --toon would make TOON inline (list_files: a uniform
// table) is saved from what the server sent, in the format the name picks.
func TestCLI_TOONUnderAnyName(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		server string
		call   []string
		file   string
		format string
		query  string
		want   string
	}{
		{"an object", fixture(), []string{"large_structured", "bytes=200"}, "tree0.out", "toon", "total", "3\n"},
		{"a root array", fixture(), []string{"large", "bytes=300", "shape=array"}, "tree1.out", "toon", "0.name", "\"item-1\"\n"},
		{"a table made TOON inline", fixture("--demo"), []string{"list_files", "{}"}, "tree2.out", "toon", "#", "2000\n"},
		{"a table made TOON inline, to .json", fixture("--demo"), []string{"list_files", "{}"}, "tree3.json", "json", "1.type", "\"file\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.file)
			args := append(append([]string{"--no-cache", "--mcp", tt.server, "--toon", "call"}, tt.call...), "-o", out)
			stdout, stderr, code := runCLI(t, "", args...)
			if code != exitOK || !strings.Contains(stdout, " lines, "+tt.format+", the result's") {
				t.Fatalf("exit %d; the summary does not say %s:\n%s%s", code, tt.format, stdout, stderr)
			}
			stdout, stderr, code = runCLI(t, "", "readresult", out)
			if code != exitOK || !strings.Contains(stdout, "format: "+tt.format+" (") {
				t.Errorf("stat: exit %d:\n%s%s", code, stdout, stderr)
			}
			stdout, stderr, code = runCLI(t, "", "readresult", out, "--op", "query", "--path", tt.query)
			if code != exitOK || stdout != tt.want {
				t.Errorf("query %s: exit %d, stdout %q, want %q; stderr: %s", tt.query, code, stdout, tt.want, stderr)
			}
		})
	}
}

// JSON that the shell commands cannot parse is named by line and column;
// readresult's help says which ops --from-line serves.
func TestCLI_JSONErrorsSayWhere(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"run, a bad value", "[{\"action\":\"list\"},\n {\"action\": }]", []string{"--mcp", fixture(), "run", "-"},
			"steps: invalid JSON at line 2, column 13: invalid character '}'"},
		{"run, cut short", "{\"action\":\"list\"}\n{\"action\":\"search\",\n", []string{"--mcp", fixture(), "run", "-"},
			"steps: invalid JSON at line 3, column 1: unexpected EOF"},
		{"toon, a bad value", "{\"a\":\n [1,}\n", []string{"toon"}, "line 2, column 5 (offset 10): invalid character '}'"},
		{"toon, cut short", "{\"a\":\n [1,\n", []string{"toon"}, "line 3, column 1 (offset 11): unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tt.stdin, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, exitUsage, tt.want, stderr)
			}
		})
	}
	stdout, _, _ := runCLI(t, "", "readresult", "--help")
	// Help wraps its lines; compare the words.
	if !strings.Contains(strings.Join(strings.Fields(stdout), " "), "grep: line to start searching at") {
		t.Errorf("readresult --help does not say grep uses --from-line:\n%s", stdout)
	}
}

// A server command that cannot start says why in terms of what was given:
// a path that is not executable or not there is not a PATH problem.
func TestCLI_ServerCommandThatCannotStartSaysWhy(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	writeFile(t, notes, "# not a program\n")
	for _, c := range []struct{ command, want, unwanted string }{
		{notes, `command "notes.md" is not executable: make it executable (chmod +x), or give its interpreter as the command`, "PATH"},
		{filepath.Join(dir, "gone"), `command "gone" not found: nothing is at the path given; check the path`, "PATH"},
		{dir, `is a directory, not a program`, "PATH"},
		{"nosuch-server-r7a", `command "nosuch-server-r7a" not found in PATH (or not executable): check its name and PATH`, ""},
	} {
		_, stderr, code := runCLI(t, "", "--no-cache", "-m", c.command, "list")
		if code != exitServer || !strings.Contains(stderr, c.want) || (c.unwanted != "" && strings.Contains(stderr, c.unwanted)) {
			t.Errorf("-m %s: exit %d, stderr %q; want %d and %q", c.command, code, stderr, exitServer, c.want)
		}
	}
}

// A tool written CONNECTION/NAME with a connection that does not exist
// says so, and names the connections there are.
func TestCLI_ToolOfAnUnknownConnectionSaysSo(t *testing.T) {
	_, stderr, code := runCLI(t, "", "--no-cache", "-m", fixture(), "info", "c9/echo")
	if want := `no tool named "c9/echo": there is no connection "c9" (the connections are c1); did you mean c1/echo`; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("info c9/echo: exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, want)
	}
}

// --max-args-file bounds the arguments however they come: from a file or
// on stdin, with the same limit named in the refusal.
func TestCLI_ArgumentsOnStdinHaveTheFilesLimit(t *testing.T) {
	big := `{"message":"` + strings.Repeat("x", 2000) + `"}`
	path := filepath.Join(t.TempDir(), "big.json")
	writeFile(t, path, big)
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{big, []string{"call", "echo", "-"}, "the arguments on stdin are larger than 1.0 KiB (--max-args-file)"},
		{"", []string{"call", "echo", "-f", path}, "is larger than 1.0 KiB (--max-args-file)"},
	} {
		_, stderr, code := runCLI(t, c.stdin, append([]string{"--no-cache", "-m", fixture(), "--max-args-file", "1KiB"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, exitUsage, c.want)
		}
	}
	if out, stderr, code := runCLI(t, big, "--no-cache", "-m", fixture(), "call", "echo", "-"); code != exitOK || len(out) != 2001 { // the text and the newline a pipe gets after it
		t.Errorf("under the default limit: exit %d, %d bytes out, stderr %q", code, len(out), stderr)
	}
}

// The text forms say what --json's "runsAsTask": true says: list --tools,
// search and info of a tool its server runs only as a task.
func TestCLI_TaskOnlyToolSaysSoInText(t *testing.T) {
	fx := fixture("--task-tools")
	for _, args := range [][]string{{"list", "--tools"}, {"search", "research", "a", "topic"}, {"info", "research"}} {
		out, stderr, code := runCLI(t, "", append([]string{"--no-cache", "-m", fx}, args...)...)
		if code != exitOK || !strings.Contains(out, "runs as a task: its server requires it") {
			t.Errorf("%v: exit %d, stdout %.300q, stderr %q; want the runs-as-a-task line", args, code, out, stderr)
		}
	}
}
