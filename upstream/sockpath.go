package upstream

import "fmt"

// checkSocketPathLength refuses a unix socket path too long for the
// system's sockaddr_un (sun_path: MaxSocketPathBytes, ending NUL
// included), before bind would fail with a bare "invalid argument".
func checkSocketPathLength(path string) error {
	if len(path) < MaxSocketPathBytes {
		return nil
	}
	return fmt.Errorf("unix socket path %s is %d bytes; this system allows at most %d (sun_path): use a shorter path, e.g. under /tmp or a shorter $XDG_RUNTIME_DIR or $TMPDIR",
		path, len(path), MaxSocketPathBytes-1)
}
