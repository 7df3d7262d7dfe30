//go:build linux || darwin

package upstream

import (
	"fmt"
	"net"
	"os"
)

// peerListener accepts only connections from this user's processes (or
// root's), as ssh-agent checks its peers: the socket's 0600 mode is the
// first guard, this the second, should the mode ever be loosened. Shell
// sessions and serve --listen unix:PATH both use it.
type peerListener struct{ net.Listener }

func onlyOwnUser(ln net.Listener) net.Listener { return peerListener{ln} }

func (l peerListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if err := checkPeer(conn); err != nil {
			conn.Close()
			continue
		}
		return conn, nil
	}
}

// checkPeer refuses a unix socket peer that is neither this user nor
// root; any other connection passes.
func checkPeer(conn net.Conn) error {
	unix, ok := conn.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := unix.SyscallConn()
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	var uid int
	var uidErr error
	if err := raw.Control(func(fd uintptr) { uid, uidErr = peerUID(fd) }); err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if uidErr != nil {
		return fmt.Errorf("peer credentials: %w", uidErr)
	}
	if uid != os.Getuid() && uid != 0 {
		return fmt.Errorf("peer is user %d, not dispatch's", uid)
	}
	return nil
}
