//go:build !linux && !windows

package upstream

// MaxSocketPathBytes is the size of sun_path in sockaddr_un on macOS and
// the BSDs: a socket path may be one byte shorter (the ending NUL).
const MaxSocketPathBytes = 104
