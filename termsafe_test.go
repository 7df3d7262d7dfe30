package main

import (
	"encoding/json"
	"strings"
	"testing"

	"dispatch/dispatch"
)

// TestEscapeControls is the rule for text a server wrote reaching a
// terminal: control characters become visible escapes, printable text
// (any script) stays, and newlines and tabs stay only in multi-line text.
func TestEscapeControls(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		keepLines bool
		want      string
	}{
		{"plain", "read_file", false, "read_file"},
		{"unicode letters and symbols", "café — 東京 ✓ ∑", false, "café — 東京 ✓ ∑"},
		{"ESC color", "t\x1b[31mred", false, `t\u001b[31mred`},
		{"BEL", "a\x07", false, `a\u0007`},
		{"OSC title", "\x1b]0;pwned\x07", true, `\u001b]0;pwned\u0007`},
		{"C1 CSI", "a\u009b2J", true, `a\u009b2J`},
		{"DEL", "a\x7fb", true, `a\u007fb`},
		{"carriage return overwrites a line", "ok\rFAKE", true, `ok\u000dFAKE`},
		{"NUL", "a\x00b", false, `a\u0000b`},
		{"invalid UTF-8 byte", "a\x9bb", true, `a\x9bb`},
		{"newline in one line", "a\nb", false, `a\u000ab`},
		{"tab in one line", "a\tb", false, `a\u0009b`},
		{"newline and tab in text", "a\n\tb", true, "a\n\tb"},
		{"CRLF line endings in text (a Windows server)", "row1\r\nrow2\r\n", true, "row1\r\nrow2\r\n"},
		{"CR before CR LF", "a\r\r\nb", true, "a\\u000d\r\nb"},
		{"CRLF in one line", "a\r\nb", false, `a\u000d\u000ab`},
		{"CR at the end", "a\r", true, `a\u000d`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := escapeControls(tt.in, tt.keepLines); got != tt.want {
				t.Errorf("escapeControls(%q, %v) = %q, want %q", tt.in, tt.keepLines, got, tt.want)
			}
		})
	}
}

// A server whose tool names, descriptions and errors hold escape
// sequences cannot drive the user's terminal through the CLI; a tool's
// result piped elsewhere stays byte-exact.
func TestCLI_EscapesServerControls(t *testing.T) {
	const escape = "\x1b[31mred\x1b]0;pwned\x07\u009b2J" // the fixture's EscapeText
	mcp := fixture("--escape-tools")
	raw := func(s string) bool { return strings.ContainsAny(s, "\x1b\x07\u009b") }
	tests := []struct {
		name       string
		args       []string
		wantOut    []string
		wantErr    []string
		rawStdout  bool // the tool's data, piped: byte-exact
		wantFailed bool
	}{
		{name: "list --tools", args: []string{"list", "--tools"}, wantOut: []string{`t\u001b[31mred\u001b]0;pwned\u0007\u009b2J`}},
		{name: "list -C", args: []string{"list", "-C", "c1"}, wantOut: []string{`t\u001b[31mred`}},
		{name: "search", args: []string{"search", "colors terminal"}, wantOut: []string{`Colors \u001b[31mred`}},
		{name: "call error", args: []string{"call", "esc_error"}, wantErr: []string{`failed \u001b[31mred`}, wantFailed: true},
		{name: "unknown tool named with escapes", args: []string{"call", "x" + escape}, wantErr: []string{`no tool named "x\x1b[31mred`, `did you mean c1/t\u001b[31mred`}, wantFailed: true},
		{name: "call result piped stays exact", args: []string{"call", "esc_result"}, wantOut: []string{"data " + escape + " end"}, rawStdout: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--mcp", mcp}, tt.args...)...)
			if (code != 0) != tt.wantFailed {
				t.Fatalf("exit %d, want failure %v\nstdout:\n%q\nstderr:\n%q", code, tt.wantFailed, stdout, stderr)
			}
			if raw(stdout) != tt.rawStdout {
				t.Errorf("stdout holds raw control characters: %v, want %v: %q", raw(stdout), tt.rawStdout, stdout)
			}
			if raw(stderr) {
				t.Errorf("stderr holds raw control characters: %q", stderr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout %q lacks %q", stdout, w)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

// Git Bash's mintty gives programs pipes with these names instead of a
// console: they are terminals, and server text printed there is escaped.
func TestIsCygwinPtyName(t *testing.T) {
	for name, want := range map[string]bool{
		`\msys-dd50a72ab4668b33-pty0-to-master`:     true,
		`\cygwin-e022582115c10879-pty4-from-master`: true,
		`\msys-dd50a72ab4668b33-pty0-to-master-nat`: true,
		`\msys-dd50a72ab4668b3-pty0-to-master`:      false,
		`\msys-dd50a72ab4668b3x-pty0-to-master`:     false,
		`\pipe\dispatch-1234`:                       false,
		`\cygwin-e022582115c10879-tty4-from-master`: false,
	} {
		if got := isCygwinPtyName(name); got != want {
			t.Errorf("isCygwinPtyName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRenderCall_TerminalKeepsNoTrailingCR: a Windows server's text ends
// in CR LF; on a terminal that is its line break, printed as one, where
// the CR used to show as \u000d after the last row.
func TestRenderCall_TerminalKeepsNoTrailingCR(t *testing.T) {
	var b strings.Builder
	resp := &dispatch.CallResponse{Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":"row1\r\nrow2\r\n"}`)}}
	if err := renderCall(&b, resp, func(s string) string { return escapeControls(s, true) }, false); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); strings.Contains(got, `\u000d`) || !strings.HasSuffix(got, "row2\n") {
		t.Errorf("terminal output = %q, want the rows with their line breaks and no \\u000d", got)
	}
}
