package connections

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// TokenLockTimeout bounds the wait for another dispatch process to finish
// with the token file: it holds the lock for one token request at most
// (OAuthHTTPTimeout), so a longer wait means something is stuck.
const TokenLockTimeout = 2 * OAuthHTTPTimeout

// tokenLockPoll is how often a process waiting for the token file's lock
// tries again: the OS calls that wait cannot be cancelled by a context.
const tokenLockPoll = 20 * time.Millisecond

// processLock is the token file's lock between processes: an exclusive
// lock (flock, LockFileEx) on a file next to it, taken once however many
// of this process's callers hold it. Within the process, the TokenFile's
// mutex and its per-entry renewals keep callers apart; this lock keeps
// other processes out meanwhile, so that no two refresh the same
// rotating refresh token and no write of one loses the other's.
type processLock struct {
	path string
	// sem guards holders and file; a channel so that waiting for it
	// follows a context.
	sem     chan struct{}
	holders int
	file    *os.File
}

func newProcessLock(path string) *processLock {
	return &processLock{path: path, sem: make(chan struct{}, 1)}
}

// acquire takes the lock for one more holder of this process; release
// gives it back.
func (l *processLock) acquire(ctx context.Context) (release func(), err error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for the token file's lock: %w", ctx.Err())
	}
	defer func() { <-l.sem }()
	if l.holders == 0 {
		file, err := lockFileWait(ctx, l.path)
		if err != nil {
			return nil, err
		}
		l.file = file
	}
	l.holders++
	return l.release, nil
}

func (l *processLock) release() {
	l.sem <- struct{}{}
	defer func() { <-l.sem }()
	l.holders--
	if l.holders == 0 {
		// Closing the file releases the lock too: an unlock error leaves nothing held.
		_ = unlockFile(l.file)
		_ = l.file.Close()
		l.file = nil
	}
}

// lockFileWait opens (creating it, 0600 in a 0700 directory) and locks the
// file at path, trying again until ctx ends or TokenLockTimeout passes.
func lockFileWait(ctx context.Context, path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create token directory: %w", err)
	}
	if err := checkTokenDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	file, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the token file's lock: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, TokenLockTimeout)
	defer cancel()
	tick := time.NewTicker(tokenLockPoll)
	defer tick.Stop()
	for {
		ok, err := tryLockFile(file)
		if err != nil {
			file.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return file, nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			file.Close()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("another dispatch process has held %s for more than %s (TokenLockTimeout): if none is running, delete the file", path, TokenLockTimeout)
			}
			return nil, fmt.Errorf("wait for the token file's lock: %w", ctx.Err())
		}
	}
}
