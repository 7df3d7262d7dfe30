package connections

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestBatchCommandLine_ExactLines pins the command line for a few
// arguments, as Rust's std::process builds it for the same ones.
func TestBatchCommandLine_ExactLines(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-y", "pkg@1.2"}, `cmd.exe /e:ON /v:OFF /d /c ""C:\npm\npx.cmd" -y pkg@1.2"`},
		{[]string{"https://h/mcp?a=1&b=2"}, `cmd.exe /e:ON /v:OFF /d /c ""C:\npm\npx.cmd" "https://h/mcp?a=1&b=2""`},
		{[]string{"%APPDATA%"}, `cmd.exe /e:ON /v:OFF /d /c ""C:\npm\npx.cmd" "%%cd:~,%APPDATA%%cd:~,%""`},
		{[]string{`say "hi"`}, `cmd.exe /e:ON /v:OFF /d /c ""C:\npm\npx.cmd" "say ""hi""""`},
		{[]string{""}, `cmd.exe /e:ON /v:OFF /d /c ""C:\npm\npx.cmd" """`},
		{[]string{`C:\dir\`}, `cmd.exe /e:ON /v:OFF /d /c ""C:\npm\npx.cmd" "C:\dir\\""`},
	}
	for _, c := range cases {
		got, err := batchCommandLine(`C:\npm\npx.cmd`, c.args)
		if err != nil || got != c.want {
			t.Errorf("batchCommandLine(%q) = %s, %v\nwant %s", c.args, got, err, c.want)
		}
	}
}

// TestBatchCommandLine_RoundTrip reads each command line the way cmd.exe
// does (percent expansion, then & | < > ^ ( ) acting only outside quotes)
// and then the way the C runtime splits what the script passes on (%*),
// and checks that no argument ran or redirected anything, that no
// variable was expanded, and that every argument arrived as it was.
func TestBatchCommandLine_RoundTrip(t *testing.T) {
	hostile := []string{
		"https://host/mcp?team=a&env=prod", "a|b", "a>b", "<in", "^x", "(x)", "%APPDATA%", "%%", "100%",
		"!PATH!", `say "hi" & calc`, `"`, `""`, `\"&calc`, `a\\"b`, `trail\`, `trail\\`, " ", "", "tab\there",
		"x=y;z", "unicode é ✓", `%cd:~,%`, `"%PATH%"`, "a^&b", `\\server\share\`, "'single'", "`back`",
	}
	for _, arg := range hostile {
		line, err := batchCommandLine(`C:\Program Files\nodejs\npx.cmd`, []string{"-y", arg, "last"})
		if err != nil {
			t.Errorf("%q: %v", arg, err)
			continue
		}
		body, ok := strings.CutPrefix(line, `cmd.exe /e:ON /v:OFF /d /c "`)
		if !ok || !strings.HasSuffix(body, `"`) {
			t.Fatalf("%q: %s does not have cmd.exe /c's outer quotes", arg, line)
		}
		// /c with more than two quotes drops the first and the last.
		body = body[:len(body)-1]
		expanded := expandLikeCmd(body, map[string]string{"APPDATA": "SECRET", "PATH": "SECRET", "cd": `C:\work`})
		if strings.Contains(expanded, "SECRET") || strings.Contains(expanded, `C:\work`) {
			t.Errorf("%q: a variable was expanded: %s", arg, expanded)
		}
		if c, at := specialOutsideQuotes(expanded); c != 0 {
			t.Errorf("%q: cmd.exe acts on %q at %d of %s", arg, c, at, expanded)
		}
		got := splitLikeCRT(expanded)
		want := []string{`C:\Program Files\nodejs\npx.cmd`, "-y", arg, "last"}
		if !slices.Equal(got, want) {
			t.Errorf("%q: the script gets %q, want %q (line %s)", arg, got, want, line)
		}
	}
}

func TestBatchCommandLine_RefusesWhatCannotBePassed(t *testing.T) {
	for _, arg := range []string{"two\nlines", "cr\r", "nul\x00"} {
		if _, err := batchCommandLine(`C:\npm\npx.cmd`, []string{arg}); !errors.Is(err, ErrBatchArgument) || !strings.Contains(err.Error(), "argument 1") {
			t.Errorf("%q: %v; want ErrBatchArgument naming argument 1", arg, err)
		}
	}
	for _, script := range []string{`C:\a"b.cmd`, `C:\dir\`} {
		if _, err := batchCommandLine(script, nil); !errors.Is(err, ErrBatchArgument) {
			t.Errorf("script %q: %v; want ErrBatchArgument", script, err)
		}
	}
}

func TestIsBatchFile(t *testing.T) {
	for path, want := range map[string]bool{`C:\npm\npx.cmd`: true, `x.BAT`: true, `node.exe`: false, `npx`: false, `a.cmd.exe`: false, `server.cmd.`: true, `server.bat `: true, `server.cmd. . `: true, `server.exe.`: false} {
		if got := isBatchFile(path); got != want {
			t.Errorf("isBatchFile(%q) = %v", path, got)
		}
	}
}

// expandLikeCmd is cmd.exe's percent expansion of a command line (not a
// batch file): %NAME% becomes NAME's value, %NAME:~a,b% a slice of it
// (here only the empty slice), and a % that starts no defined variable
// stays as it is, the scan going on from the character after it.
func expandLikeCmd(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := strings.IndexByte(s[i+1:], '%')
		if end < 0 {
			b.WriteString(s[i:])
			break
		}
		name := s[i+1 : i+1+end]
		if base, ok := strings.CutSuffix(name, ":~,"); ok {
			if _, defined := env[base]; defined {
				i += end + 2 // a zero-length slice
				continue
			}
		}
		if v, ok := env[name]; ok && name != "" {
			b.WriteString(v)
			i += end + 2
			continue
		}
		b.WriteByte('%')
		i++
	}
	return b.String()
}

// specialOutsideQuotes is the first character cmd.exe would act on: one
// of & | < > ^ ( ) outside double quotes.
func specialOutsideQuotes(s string) (byte, int) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case !quoted && strings.IndexByte("&|<>^()", c) >= 0:
			return c, i
		}
	}
	return 0, -1
}

// splitLikeCRT splits a command line as the Microsoft C runtime (2008 and
// later) does for a program's argv: 2n backslashes and a quote are n
// backslashes and a quote read as any other; 2n+1 are n and a literal
// quote; "" inside quotes is a literal quote, a lone one opens or closes.
func splitLikeCRT(s string) []string {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					i-- // the quote is read as any other quote
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inArg = true
		case c == '"':
			if quoted && i+1 < len(s) && s[i+1] == '"' {
				cur.WriteByte('"')
				i++
			} else {
				quoted = !quoted
			}
			inArg = true
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}
