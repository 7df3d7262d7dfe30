//go:build !windows

package connections

// dotCommandAdvice ends the error for a program found in the current
// directory (dotCommandErr).
const dotCommandAdvice = "to use one elsewhere in PATH, take . (or the empty entry) out of PATH"

// notExecutableAdvice ends the error for a file that is not executable.
const notExecutableAdvice = "make it executable (chmod +x), or give its interpreter as the command (python3 FILE, node FILE)"
