//go:build !unix

package upstream

import (
	"errors"
	"os"
)

// Without unix sockets and flock there are no shell sessions; every
// entry point says so.
var errNoShellSessions = errors.New("shell sessions need a unix system (they listen on a unix socket in a private directory)")

func ShellBaseDir() (string, error)                { return "", errNoShellSessions }
func ShellBasePath() string                        { return "" }
func NewShellDir(string) (string, *os.File, error) { return "", nil, errNoShellSessions }
func SweepShellDirs(string) ([]string, error)      { return nil, errNoShellSessions }
