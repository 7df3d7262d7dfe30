package connections

import (
	"fmt"
	"path/filepath"
)

// dotCommandErr explains exec.ErrDot: the command, a bare name, was found
// relative to the current directory — through a "." in PATH, or, on
// Windows, because the current directory is searched before PATH — and
// Go refuses to run it, so that a file dropped in the current directory
// cannot stand in for a program. It was found: "not found in PATH" would
// be wrong.
func dotCommandErr(command string) error {
	name := filepath.Base(command)
	return fmt.Errorf("command %q was found in the current directory, where a bare name is not run (Go refuses it, exec.ErrDot: a file there could stand in for a program): to run that one give its path, %s; %s",
		name, "."+string(filepath.Separator)+name, dotCommandAdvice)
}
