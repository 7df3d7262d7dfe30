//go:build !linux && !darwin

package upstream

import "net"

// onlyOwnUser relies on the socket's 0600 mode in a 0700 directory where
// peer credentials are not read (Windows, the BSDs).
func onlyOwnUser(ln net.Listener) net.Listener { return ln }

// checkPeer cannot read the peer's user here; the socket's owner and
// directory were checked before the dial.
func checkPeer(net.Conn) error { return nil }
