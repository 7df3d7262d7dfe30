package upstream

import "time"

// A shell session lives in its own private directory: its socket, its
// lock (held by the session's process for its whole life), and whatever
// the command line keeps there (its log, its result files).
const (
	// ShellSocketName is the session's socket in its directory.
	ShellSocketName = "socket"
	// ShellStartTimeout bounds the wait for a new session to answer; a
	// session directory without a lock older than this is a start that
	// died, which the next start's sweep removes.
	ShellStartTimeout = 30 * time.Second
	// shellDirPrefix starts the name of every session's directory.
	shellDirPrefix = "session-"
	// shellLockName is the lock file in a session's directory.
	shellLockName = "lock"
)
