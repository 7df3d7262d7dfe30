package main

import (
	"bytes"
	"dispatch/internal/testkit"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// otherUID is a user id no account on a test machine has.
const otherUID = 4243

// TestServeHTTP_UnixSocketRefusesOtherUsers: with the socket's modes
// loosened (0666, in directories others may pass), another user's
// initialize is refused: the peer's uid is checked (SO_PEERCRED), as for
// shell sessions. Needs root, to be the other user.
func TestServeHTTP_UnixSocketRefusesOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to connect as another user")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl, to connect as another user")
	}
	root := testkit.ShortTempDir(t)
	sock := filepath.Join(root, "run", "s")
	startHTTPDispatch(t, nil, "--listen", "unix:"+sock)
	for _, dir := range []string{root, filepath.Dir(sock)} {
		if err := os.Chmod(dir, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	initialize := func(cred *syscall.Credential) (string, error) {
		cmd := exec.Command(curl, "--silent", "--show-error", "--max-time", "20", "--unix-socket", sock,
			"-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream",
			"--data", initializeBody, "http://localhost/mcp")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	// The check sees the user, not the mode: this user still gets in.
	if out, err := initialize(nil); err != nil || !strings.Contains(out, "serverInfo") {
		t.Fatalf("this user's initialize over the loosened socket: %v %.300q", err, out)
	}
	out, err := initialize(&syscall.Credential{Uid: otherUID, Gid: otherUID})
	if err == nil || strings.Contains(out, "serverInfo") {
		t.Errorf("user %d's initialize over the loosened socket was served: %.300q", otherUID, out)
	}
}
