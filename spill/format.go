package spill

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Format is the content format of a spill file; it decides the extension.
type Format string

// The formats dispatch spills.
const (
	FormatJSON Format = "json" // ".json"
	FormatTOON Format = "toon" // ".toon"
	FormatText Format = "text" // ".txt"
	// FormatBinary is decoded bytes (a resource's blob); its extension
	// comes from the MIME type (see Store.CreateBinary).
	FormatBinary Format = "binary"
)

// safeExt is an extension CreateBinary accepts.
var safeExt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.[a-z0-9-]{1,16}$`) })

// Ext returns the file extension of f, with the dot.
func (f Format) Ext() (string, error) {
	switch f {
	case FormatJSON:
		return ".json", nil
	case FormatTOON:
		return ".toon", nil
	case FormatText:
		return ".txt", nil
	}
	return "", fmt.Errorf("unknown spill format %q (want %q, %q or %q)", string(f), FormatJSON, FormatTOON, FormatText)
}

// formatFromExt returns the format implied by the extension of path.
func formatFromExt(path string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return FormatJSON, true
	case ".toon":
		return FormatTOON, true
	case ".txt", ".log", ".text":
		return FormatText, true
	}
	return "", false
}

// sniffFormat guesses the format from the start of a file, t, which
// begins with its first non-space byte: TOON when its first line is a
// TOON header or key line, JSON when it starts with '{' or '[', else text.
func sniffFormat(t []byte) Format {
	switch {
	case SniffTOON(t):
		return FormatTOON
	case t[0] == '{' || t[0] == '[':
		return FormatJSON
	}
	return FormatText
}

// toonFirstLine matches the first line of a TOON document that JSON and
// most prose cannot start with: a root array header ("[6]:", "[2]{id,name}:",
// "[3]: a,b,c"), or a key line ("name: x", "items[2]{id}:", "\"a b\": 1",
// "meta:"). A bare key is a word of letters, digits, _ and dots, as TOON
// writes keys unquoted.
var toonFirstLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\[\d+[,\t|]?\](\{[^}\n]*\})?:|("(?:[^"\\\n]|\\.)*"|[A-Za-z_][\w.]*)(\[\d+[,\t|]?\](\{[^}\n]*\})?)?:)( |\r?\n|$)`)
})

// SniffTOON reports whether data, the start of a file from its first
// non-space byte, looks like TOON. A file whose name says nothing of its
// format (out/tree.out) is read by what it holds.
func SniffTOON(data []byte) bool {
	return toonFirstLine().Match(data)
}
