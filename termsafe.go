package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// escapeControls returns s with the C0 and C1 control characters, DEL and
// bytes that are not UTF-8 written as visible escapes (\u001b, \xff), so
// that text from a server (a tool name, a description, an error) cannot
// move the cursor, recolor or retitle the user's terminal. keepLines
// keeps newlines (LF and CR LF) and tabs, for text of several lines.
func escapeControls(s string, keepLines bool) string {
	if !needsEscape(s, keepLines) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case keepLines && isLineEndCR(s):
			b.WriteByte('\r')
		case isControl(r, keepLines):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

func needsEscape(s string, keepLines bool) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for i, r := range s {
		if isControl(r, keepLines) && !(keepLines && isLineEndCR(s[i:])) {
			return true
		}
	}
	return false
}

// isLineEndCR reports whether s starts with CR LF: a Windows line ending,
// which a terminal shows as the line break it is. A CR anywhere else
// returns the cursor to overwrite the line, and is escaped.
func isLineEndCR(s string) bool { return strings.HasPrefix(s, "\r\n") }

func isControl(r rune, keepLines bool) bool {
	if keepLines && (r == '\n' || r == '\t') {
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// isTerminal says whether w is a terminal (a Cygwin or MSYS2 pty
// included, on Windows). A tool's result printed
// elsewhere (a pipe, a file) is data and stays byte-exact; on a terminal
// it is escaped like everything else a server wrote.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && (info.Mode()&os.ModeCharDevice != 0 || isCygwinPty(f))
}

// isCygwinPtyName reports whether name, the name of a named pipe, is one
// of the pipes Cygwin and MSYS2 (Git Bash's mintty) make a terminal of:
// \cygwin-HEX16-ptyN-from-master or \msys-HEX16-ptyN-to-master. Their
// programs' stdio are such pipes, not consoles, so a server's escape
// sequences printed there would drive the terminal like any other.
func isCygwinPtyName(name string) bool {
	parts := strings.Split(name, "-")
	if len(parts) < 5 || (parts[0] != `\msys` && parts[0] != `\cygwin`) || len(parts[1]) != 16 ||
		!strings.HasPrefix(parts[2], "pty") || (parts[3] != "from" && parts[3] != "to") || parts[4] != "master" {
		return false
	}
	for _, c := range parts[1] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
