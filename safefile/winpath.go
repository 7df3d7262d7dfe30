package safefile

import (
	"errors"
	"fmt"
	"strings"
)

// The rules in this file are what OpenIn holds to on Windows. They are
// plain string rules, independent of the host's path/filepath, so that
// the tests hold them to Windows-shaped names on every platform.

// windowsLocalName refuses a name (relative to a directory) that Windows
// could resolve outside the directory, or to something else than the file
// it seems to name:
//   - absolute, rooted (\x), drive ("C:x", "C:\x"), UNC (\\srv\share) and
//     device (\\?\, \\.\) forms;
//   - ".." components, with either separator;
//   - any ':' — a drive letter, or an alternate data stream (file:stream,
//     file::$DATA), which is another file's content under the same name;
//   - reserved device names (CON, NUL, COM1, LPT1, ... with any extension
//     or case), which open a device wherever they appear;
//   - components ending in '.' or ' ', which Windows strips ("secret." is
//     "secret"), and the wildcards '?' and '*', which no file name has;
//   - control characters and NUL.
func windowsLocalName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if name[0] == '\\' || name[0] == '/' {
		return errors.New("rooted or UNC path")
	}
	if strings.ContainsRune(name, ':') {
		return errors.New("':' (a drive letter or an alternate data stream)")
	}
	for _, c := range name {
		switch {
		case c < 0x20:
			return errors.New("control character")
		case c == '?' || c == '*' || c == '<' || c == '>' || c == '|' || c == '"':
			return fmt.Errorf("%q is not allowed in a Windows file name", c)
		}
	}
	for part := range strings.FieldsFuncSeq(name, isWindowsSeparator) {
		if part == ".." {
			return errors.New("'..' component")
		}
		if part != "." && (strings.HasSuffix(part, ".") || strings.HasSuffix(part, " ")) {
			return fmt.Errorf("component %q ends in a dot or space, which Windows strips", part)
		}
		if isReservedWindowsName(part) {
			return fmt.Errorf("%q is a reserved device name", part)
		}
	}
	return nil
}

func isWindowsSeparator(c rune) bool { return c == '\\' || c == '/' }

// isReservedWindowsName reports whether a path component names a device:
// the base before the first '.', trailing spaces ignored, in any case.
func isReservedWindowsName(part string) bool {
	base, _, _ := strings.Cut(part, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		d := base[3]
		// COM1-9, LPT1-9, and the superscript digits Windows also accepts.
		return d >= '1' && d <= '9'
	}
	if len(base) > 3 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		switch base[3:] {
		case "¹", "²", "³":
			return true
		}
	}
	return false
}

// finalPathWithin reports whether file, the final path of an opened file
// (GetFinalPathNameByHandle: \\?\C:\dir\file, \\?\UNC\srv\share\file),
// lies strictly below dir, the final path of the directory. NTFS names
// compare without case, as Windows resolved them; the separator after
// dir is required, so C:\root does not contain C:\rootx\file.
func finalPathWithin(dir, file string) bool {
	dir = strings.TrimRight(dir, `\`)
	if dir == "" || len(file) <= len(dir)+1 {
		return false
	}
	return strings.EqualFold(file[:len(dir)], dir) && file[len(dir)] == '\\'
}
