package spill

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Format is the content format of a spill file; it decides the extension.
type Format string

// The formats dispatch spills.
const (
	FormatJSON Format = "json" // ".json"
	FormatTOON Format = "toon" // ".toon"
	FormatText Format = "text" // ".txt"
)

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

// sniffFormat guesses the format from the first non-space byte.
func sniffFormat(first byte) Format {
	if first == '{' || first == '[' {
		return FormatJSON
	}
	return FormatText
}
