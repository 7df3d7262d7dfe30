package connections

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// A Windows batch file (.cmd, .bat; npm's npx.cmd is one) is run by
// cmd.exe, which reads its command line by its own rules: & | < > ^ split
// or redirect it and %NAME% expands a variable, even inside the quotes Go
// puts around an argument for programs that parse the command line the
// C runtime's way. So an argument such as https://host/mcp?a=1&b=2 would
// run b=2 as a second command (CVE-2024-24576, "BatBadBut"). Dispatch
// builds the command line itself for such a server, the way Rust's
// std::process does since that CVE: cmd.exe with AutoRun off (/d),
// delayed expansion (!NAME!) off (/v:OFF) and extensions on (/e:ON, which
// the % escape below relies on), every argument that holds anything but
// plain characters quoted, a quote doubled, and each % followed by
// %cd:~,% — a zero-length slice of a variable that always exists, which
// keeps cmd.exe from reading the % as the start of a variable's name.
// What cannot be passed at all — a line break, which ends the command
// there, or a NUL — is refused with an error that says so.

// ErrBatchArgument is the error for an argument a batch file cannot be
// given safely.
var ErrBatchArgument = errors.New("argument cannot be passed to a Windows batch file")

// isBatchFile reports whether path names a file that Windows runs with
// cmd.exe.
func isBatchFile(path string) bool {
	// Windows drops trailing dots and spaces from a file name, so
	// "server.cmd." and "server.bat " run as batch files too (Rust's
	// BatBadBut fix trims them the same way).
	switch strings.ToLower(filepath.Ext(strings.TrimRight(path, ". "))) {
	case ".cmd", ".bat":
		return true
	}
	return false
}

// batchCommandLine is the command line that makes cmd.exe run script with
// args, each arriving at the script (and at what it passes %* to) as it
// is here.
func batchCommandLine(script string, args []string) (string, error) {
	if strings.ContainsAny(script, "\"\x00\r\n") || strings.HasSuffix(script, `\`) {
		return "", fmt.Errorf("%w: the file name %q holds a quote or line break or ends with a backslash", ErrBatchArgument, script)
	}
	var b strings.Builder
	// The outer quotes enclose the whole command: /c keeps them off it.
	b.WriteString(`cmd.exe /e:ON /v:OFF /d /c ""`)
	b.WriteString(script)
	b.WriteByte('"')
	for i, arg := range args {
		if strings.ContainsAny(arg, "\x00\r\n") {
			return "", fmt.Errorf("%w: argument %d holds a line break or NUL, which would end the command there: pass it another way (an environment variable or a file)", ErrBatchArgument, i+1)
		}
		b.WriteByte(' ')
		appendBatchArg(&b, arg)
	}
	b.WriteByte('"')
	return b.String(), nil
}

// batchPlain is what needs no quotes besides letters and digits. A
// backslash is plain while the argument is not quoted.
const batchPlain = `#$*+-./:?@\_`

func appendBatchArg(b *strings.Builder, arg string) {
	// An empty argument must be quoted to be passed at all, and one
	// ending with a backslash so that a script writing "%~1" does not
	// find the backslash escaping its closing quote.
	quote := arg == "" || strings.HasSuffix(arg, `\`)
	for _, r := range arg {
		if r < 0x80 && !isASCIIAlnum(r) && !strings.ContainsRune(batchPlain, r) || r < 0x20 || r == 0x7f {
			quote = true
			break
		}
	}
	if quote {
		b.WriteByte('"')
	}
	backslashes := 0
	for _, r := range arg {
		switch r {
		case '\\':
			backslashes++
			b.WriteRune(r)
			continue
		case '"':
			// Backslashes before a quote are doubled, and the quote
			// itself too (what the C runtime reads as one quote).
			b.WriteString(strings.Repeat(`\`, backslashes))
			b.WriteByte('"')
		case '%':
			b.WriteString("%%cd:~,")
		}
		backslashes = 0
		b.WriteRune(r)
	}
	if quote {
		b.WriteString(strings.Repeat(`\`, backslashes))
		b.WriteByte('"')
	}
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
