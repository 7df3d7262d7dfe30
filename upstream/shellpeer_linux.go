//go:build linux

package upstream

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// peerListener accepts only connections from this user's processes (or
// root's), as ssh-agent checks its peers: the socket's 0600 mode is the
// first guard, this the second, should the mode ever be loosened.
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

func checkPeer(conn net.Conn) error {
	unix, ok := conn.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := unix.SyscallConn()
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return fmt.Errorf("peer credentials: %w", credErr)
	}
	if uid := int(cred.Uid); uid != os.Getuid() && uid != 0 {
		return fmt.Errorf("peer is user %d, not the session's", uid)
	}
	return nil
}
