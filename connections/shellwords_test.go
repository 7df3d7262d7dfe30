package connections

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitCommandLine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    []string
		wantErr string
	}{
		{name: "one word", line: "srv", want: []string{"srv"}},
		{name: "several words", line: "npx -y pkg", want: []string{"npx", "-y", "pkg"}},
		{name: "runs of blanks", line: "  a \t\t b\n\nc  ", want: []string{"a", "b", "c"}},
		{name: "tabs and newlines separate", line: "a\tb\nc", want: []string{"a", "b", "c"}},
		{name: "single quotes keep spaces", line: "echo 'a  b'", want: []string{"echo", "a  b"}},
		{name: "single quotes keep backslashes and dollars", line: `echo 'a\nb $X \'`, want: []string{"echo", `a\nb $X \`}},
		{name: "single quotes keep double quotes", line: `echo '"x"'`, want: []string{"echo", `"x"`}},
		{name: "double quotes keep spaces", line: `echo "a  b"`, want: []string{"echo", "a  b"}},
		{name: "double quotes keep single quotes", line: `echo "it's"`, want: []string{"echo", "it's"}},
		{name: "escaped quote in double quotes", line: `echo "say \"hi\""`, want: []string{"echo", `say "hi"`}},
		{name: "escaped backslash in double quotes", line: `echo "a\\b"`, want: []string{"echo", `a\b`}},
		{name: "escaped dollar and backtick in double quotes", line: "echo \"\\$X \\`y\\`\"", want: []string{"echo", "$X `y`"}},
		{name: "other backslashes kept in double quotes", line: `echo "a\nb\tc"`, want: []string{"echo", `a\nb\tc`}},
		{name: "no expansion in double quotes", line: `echo "${HOME}"`, want: []string{"echo", "${HOME}"}},
		{name: "backslash escapes a space", line: `cat my\ file`, want: []string{"cat", "my file"}},
		{name: "backslash escapes a quote", line: `echo \"x\'`, want: []string{"echo", `"x'`}},
		{name: "backslash escapes a backslash", line: `echo a\\b`, want: []string{"echo", `a\b`}},
		{name: "adjacent quoted parts join", line: `echo a'b c'"d e"f`, want: []string{"echo", "ab cd ef"}},
		{name: "empty single quotes are a word", line: "echo '' x", want: []string{"echo", "", "x"}},
		{name: "empty double quotes are a word", line: `echo "" x`, want: []string{"echo", "", "x"}},
		{name: "flag with quoted value", line: `srv --name="a b"`, want: []string{"srv", "--name=a b"}},
		{name: "quoted newline kept", line: "echo 'a\nb'", want: []string{"echo", "a\nb"}},
		{name: "unicode", line: "echo 'héllo wörld' 日本", want: []string{"echo", "héllo wörld", "日本"}},
		{name: "empty", line: "", wantErr: "empty"},
		{name: "blanks only", line: " \t\n ", wantErr: "empty"},
		{name: "unterminated single quote", line: "echo 'abc", wantErr: "unterminated single quote"},
		{name: "unterminated double quote", line: `echo "abc`, wantErr: "unterminated double quote"},
		{name: "double quote closed only by an escaped quote", line: `echo "abc\"`, wantErr: "unterminated double quote"},
		{name: "double quote ending in a backslash", line: `echo "abc\`, wantErr: "unterminated double quote"},
		{name: "lone trailing backslash", line: `echo abc\`, wantErr: "lone backslash"},
		{name: "only a backslash", line: `\`, wantErr: "lone backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splitCommandLine(tt.line, false) // the POSIX rules; Windows's: TestSplitCommandLine_Windows
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SplitCommandLine(%q) = %q, %v; want error containing %q", tt.line, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("SplitCommandLine(%q): %v", tt.line, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitCommandLine(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

// On Windows a backslash is a path separator: C:\Tools\server.exe must
// reach the system as written (POSIX splitting made it C:Toolsserver.exe,
// reported as not found in PATH); only \" is a quote.
func TestSplitCommandLine_Windows(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`C:\Tools\fixture.exe --demo`, []string{`C:\Tools\fixture.exe`, "--demo"}},
		{`"C:\Program Files\srv\srv.exe" --dir C:\data\`, []string{`C:\Program Files\srv\srv.exe`, "--dir", `C:\data\`}},
		{`\\server\share\srv.exe`, []string{`\\server\share\srv.exe`}},
		{`srv --msg "say \"hi\""`, []string{"srv", "--msg", `say "hi"`}},
		{`srv \"x\"`, []string{"srv", `"x"`}},
		{`srv 'C:\a b\'`, []string{"srv", `C:\a b\`}},
		{`srv "$HOME\x"`, []string{"srv", `$HOME\x`}},
	}
	for _, tt := range tests {
		got, err := splitCommandLine(tt.line, true)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitCommandLine(%q, windows) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

// A Windows path in --mcp on a system splitting by the POSIX rules loses
// its backslashes; the error says so and how to write it, instead of
// "command "C:Toolsfixture.exe" not found in PATH".
func TestParseSpec_WindowsPathWithoutQuotes(t *testing.T) {
	if backslashIsLiteral {
		t.Skip("on Windows the backslashes are kept")
	}
	_, err := ParseSpec(`C:\Tools\fixture.exe --demo`)
	if err == nil || !strings.Contains(err.Error(), "lost its backslashes") || !strings.Contains(err.Error(), "single quotes") {
		t.Errorf("ParseSpec of an unquoted Windows path: %v; want the lost backslashes explained", err)
	}
	for _, ok := range []string{`'C:\Tools\fixture.exe' --demo`, `C:/Tools/fixture.exe`, `srv --path a\ b`} {
		if _, err := ParseSpec(ok); err != nil {
			t.Errorf("ParseSpec(%q): %v", ok, err)
		}
	}
}
