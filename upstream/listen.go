package upstream

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// UnixPrefix marks a listen address as a unix socket path: "unix:PATH".
const UnixPrefix = "unix:"

// staleProbeTimeout bounds the dial that tells a live socket from a stale
// file left by a process that died.
const staleProbeTimeout = time.Second

// Listen listens on addr: "host:port" for TCP, or "unix:PATH" for a unix
// socket. A socket's directory is created with mode 0700 when missing and
// must otherwise be the user's own and closed to others (0700), so that
// nobody else can reach the socket or swap it; the socket itself is 0600.
// A socket file nobody listens on (left by a process that died) is
// replaced; one something still listens on is an error, never stolen.
// Connections from other users than this one (or root) are closed at
// once where the system says who connects (see onlyOwnUser).
func Listen(addr string) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, UnixPrefix); ok {
		return listenUnix(path)
	}
	if addr == "" {
		return nil, errors.New("listen address is empty: give host:port (e.g. 127.0.0.1:8931) or unix:PATH")
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("listen address %q is neither host:port (e.g. 127.0.0.1:8931) nor unix:PATH: %w", addr, err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return l, nil
}

func listenUnix(path string) (net.Listener, error) {
	if path == "" {
		return nil, errors.New("unix socket path is empty: give unix:PATH, e.g. unix:$XDG_RUNTIME_DIR/dispatch/sock")
	}
	path = filepath.Clean(path)
	if err := checkSocketPathLength(path); err != nil {
		return nil, err
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	err := removeStaleSocket(path)
	if err != nil {
		return nil, err
	}
	// The socket is created under umask 0177 so that it is never, even
	// for a moment, open to others; the chmod after is for file systems
	// that ignore the umask for sockets.
	var l net.Listener
	withUmask(0o177, func() { l, err = net.Listen("unix", path) })
	if err != nil {
		return nil, fmt.Errorf("listen on unix socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("make unix socket %s private (0600): %w", path, err)
	}
	// Should the mode be loosened, other users are still refused where
	// the system says who connects (linux, darwin).
	return onlyOwnUser(l), nil
}

// privateDir makes sure dir exists, is a directory owned by this user and
// closed to others (mode 0700; on Windows an ACL for the user alone),
// creating it so when missing.
func privateDir(dir string) error {
	info, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if top := topMissing(dir); filepath.Dir(top) == filepath.VolumeName(top)+string(filepath.Separator) {
			return fmt.Errorf("the socket's directory %s would be created at the root of the file system (%s): is a variable in the path unset, such as $XDG_RUNTIME_DIR? Give a path under a directory of your own", dir, top)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create the socket's directory %s: %w", dir, err)
		}
		if err := makeDirPrivate(dir); err != nil {
			return err
		}
		info, err = os.Lstat(dir)
	}
	if err != nil {
		return fmt.Errorf("socket directory %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory (a symlink or a file): put the socket in a private directory of your own", dir)
	}
	if owner, mine := ownedByMe(info); !mine {
		return fmt.Errorf("socket directory %s belongs to user %d, not to you (%d): put the socket in a directory of your own", dir, owner, os.Getuid())
	}
	return checkDirPrivate(dir, info)
}

// topMissing is the outermost directory of dir that does not exist: the
// first one MkdirAll would create.
func topMissing(dir string) string {
	top := filepath.Clean(dir)
	for {
		parent := filepath.Dir(top)
		if parent == top {
			return top
		}
		if _, err := os.Lstat(parent); !errors.Is(err, fs.ErrNotExist) {
			return top
		}
		top = parent
	}
}

// removeStaleSocket removes a socket file at path that nothing listens on.
// A live one, or a file that is not a socket, is an error.
func removeStaleSocket(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("unix socket %s: %w", path, err)
	}
	if info.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket: remove it or choose another path", path)
	}
	conn, err := net.DialTimeout("unix", path, staleProbeTimeout)
	if err == nil {
		conn.Close()
		return fmt.Errorf("unix socket %s is in use by a running process: stop it first, or choose another path", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale unix socket %s: %w", path, err)
	}
	return nil
}
