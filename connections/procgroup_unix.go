//go:build unix

package connections

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// startInOwnGroup makes cmd the leader of a new process group, so that
// stopping the server also stops whatever it spawned (npx, uvx and their
// children).
func startInOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// termGroup asks every process of group pgid to stop (SIGTERM).
func termGroup(pgid int) error {
	return signalGroup(pgid, syscall.SIGTERM)
}

// killGroup stops every process of group pgid at once (SIGKILL).
func killGroup(pgid int) error {
	return signalGroup(pgid, syscall.SIGKILL)
}

func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return nil
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("send %v to server process group: %w", sig, err)
	}
	return nil
}

// groupAlive reports whether any process of group pgid still exists.
func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
}
