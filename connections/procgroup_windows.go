//go:build windows

package connections

import (
	"fmt"
	"os"
	"os/exec"
)

// Windows has no process groups that a signal reaches as a whole; until
// dispatch puts servers in job objects, stopping a server stops the server
// process only.

func startInOwnGroup(*exec.Cmd) {}

// termGroup does nothing: Windows has no SIGTERM. Closing stdin was the
// polite request; killGroup follows.
func termGroup(int) error { return nil }

func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil // already gone
	}
	if err := p.Kill(); err != nil {
		return fmt.Errorf("kill server process: %w", err)
	}
	return nil
}

// groupAlive cannot see a group on Windows; once the server is reaped,
// nothing is left that dispatch knows of.
func groupAlive(int) bool { return false }
