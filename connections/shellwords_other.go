//go:build !windows

package connections

// backslashIsLiteral: elsewhere a backslash escapes, as in a shell (see
// SplitCommandLine).
const backslashIsLiteral = false
