//go:build linux

package upstream

import "syscall"

// peerUID is the user of the process at the other end of unix socket fd
// (SO_PEERCRED).
func peerUID(fd uintptr) (int, error) {
	cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
