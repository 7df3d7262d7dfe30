//go:build darwin

package upstream

import "golang.org/x/sys/unix"

// peerUID is the user of the process at the other end of unix socket fd
// (LOCAL_PEERCRED, what getpeereid reads).
func peerUID(fd uintptr) (int, error) {
	cred, err := unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
