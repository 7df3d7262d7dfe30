//go:build unix

package connections

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// procGroup is a server and everything it spawned: on Unix, the process
// group the server leads.
type procGroup struct{ pgid int }

// startInOwnGroup makes cmd the leader of a new process group, so that
// stopping the server also stops whatever it spawned (npx, uvx and their
// children).
func startInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// joinGroup returns the group of the process just started by cmd.Start:
// Setpgid already made it.
func joinGroup(p *os.Process) (*procGroup, error) { return &procGroup{pgid: p.Pid}, nil }

// releaseGroup has nothing to release on Unix.
func releaseGroup(*procGroup) {}

// termGroup asks every process of the group to stop (SIGTERM).
func termGroup(g *procGroup) error {
	return signalGroup(g, syscall.SIGTERM)
}

// killGroup stops every process of the group at once (SIGKILL).
func killGroup(g *procGroup) error {
	return signalGroup(g, syscall.SIGKILL)
}

func signalGroup(g *procGroup, sig syscall.Signal) error {
	if g == nil || g.pgid <= 0 {
		return nil
	}
	if err := syscall.Kill(-g.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("send %v to server process group: %w", sig, err)
	}
	return nil
}

// groupAlive reports whether any process of the group still exists.
func groupAlive(g *procGroup) bool {
	return g != nil && g.pgid > 0 && syscall.Kill(-g.pgid, 0) == nil
}
