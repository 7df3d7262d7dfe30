//go:build unix

package upstream

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ShellBaseDir is the private directory that holds every session's own
// directory: $XDG_RUNTIME_DIR/dispatch as gpg-agent does, else
// dispatch-UID in the temporary directory. It must be the user's own and
// closed to others: in a shared /tmp, another user may have made it first.
func ShellBaseDir() (string, error) {
	base := ShellBasePath()
	if err := os.Mkdir(base, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("session directory %s: %w", base, err)
	}
	info, err := os.Lstat(base)
	if err != nil {
		return "", fmt.Errorf("session directory %s: %w", base, err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	switch {
	case !info.IsDir():
		return "", fmt.Errorf("session directory %s is not a directory (a symlink?); remove it", base)
	case !ok || int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("session directory %s belongs to another user; remove it, or set XDG_RUNTIME_DIR to a private directory", base)
	case info.Mode().Perm()&0o077 != 0:
		return "", fmt.Errorf("session directory %s is open to other users (mode %o); chmod 700 it", base, info.Mode().Perm())
	}
	return base, nil
}

// ShellBasePath is where ShellBaseDir is, without making or checking it.
func ShellBasePath() string {
	if runtime := os.Getenv("XDG_RUNTIME_DIR"); runtime != "" && filepath.IsAbs(runtime) {
		return filepath.Join(runtime, "dispatch")
	}
	return filepath.Join(os.TempDir(), "dispatch-"+strconv.Itoa(os.Getuid()))
}

// NewShellDir makes a fresh 0700 directory for one session and locks
// it. The lock passes to the session's process and is held as long as it
// lives, even killed with SIGKILL: the kernel drops it then, and that is
// how the next start's sweep knows the directory is a dead session's.
func NewShellDir(base string) (dir string, lock *os.File, err error) {
	dir, err = os.MkdirTemp(base, shellDirPrefix)
	if err != nil {
		return "", nil, fmt.Errorf("create session directory: %w", err)
	}
	lock, err = os.OpenFile(filepath.Join(dir, shellLockName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("lock session directory: %w", err)
	}
	return dir, lock, nil
}

// SweepShellDirs removes the directories of sessions whose process has
// died (a SIGKILL skips their own cleanup): their lock is free. A
// directory without a lock yet may be a start under way; it is left alone
// until it is older than a start may take.
func SweepShellDirs(base string) (swept []string, err error) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil, fmt.Errorf("sweep sessions: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), shellDirPrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		if !sessionDead(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		swept = append(swept, dir)
	}
	return swept, errors.Join(errs...)
}

func sessionDead(dir string) bool {
	lock, err := os.OpenFile(filepath.Join(dir, shellLockName), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		info, statErr := os.Stat(dir)
		return statErr == nil && time.Since(info.ModTime()) > ShellStartTimeout
	}
	if err != nil {
		return false
	}
	defer lock.Close()
	// Taking the lock proves no process holds it; closing the file drops it.
	return syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
