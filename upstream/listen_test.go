//go:build unix

package upstream

import (
	"dispatch/internal/testkit"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListen_UnixSocketIsPrivate: the directory is created 0700 and the
// socket is 0600, and the socket answers.
func TestListen_UnixSocketIsPrivate(t *testing.T) {
	dir := filepath.Join(testkit.ShortTempDir(t), "new", "dir")
	sock := filepath.Join(dir, "s")
	l, err := Listen(UnixPrefix + sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for path, want := range map[string]os.FileMode{dir: 0o700, sock: 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s mode %#o, want %#o", path, got, want)
		}
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("dial the socket: %v", err)
	}
	conn.Close()
}

func TestListen_Refusals(t *testing.T) {
	base := testkit.ShortTempDir(t)

	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	notSocket := filepath.Join(base, "file")
	if err := os.WriteFile(notSocket, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(open, link); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(base, "live")
	l, err := Listen(UnixPrefix + live)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	tests := []struct {
		name, addr string
		want       []string
	}{
		{"directory open to others", UnixPrefix + filepath.Join(open, "s"), []string{"mode 0755", "chmod 700"}},
		{"directory is a symlink", UnixPrefix + filepath.Join(link, "s"), []string{"not a directory"}},
		{"path is a regular file", UnixPrefix + notSocket, []string{"not a socket"}},
		{"socket in use", UnixPrefix + live, []string{"in use"}},
		{"empty unix path", UnixPrefix, []string{"empty"}},
		{"empty address", "", []string{"empty"}},
		{"no port", "localhost", []string{"host:port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Listen(tt.addr)
			if err == nil {
				l.Close()
				t.Fatalf("Listen(%q) succeeded", tt.addr)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Listen(%q) = %v, want it to say %q", tt.addr, err, w)
				}
			}
		})
	}
	if data, err := os.ReadFile(notSocket); err != nil || string(data) != "x" {
		t.Errorf("the regular file was touched: %q, %v", data, err)
	}
}

// TestListen_ReplacesStaleSocket: a socket file left by a process that
// died (nothing listening) is replaced.
func TestListen_ReplacesStaleSocket(t *testing.T) {
	sock := filepath.Join(testkit.ShortTempDir(t), "s")
	// A dead process leaves the file: keep it on close.
	first, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	first.SetUnlinkOnClose(false)
	first.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("the stale socket file is gone before the test: %v", err)
	}
	second, err := Listen(UnixPrefix + sock)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	second.Close()
}

func TestListen_TCP(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Addr().Network() != "tcp" {
		t.Errorf("network %s", l.Addr().Network())
	}
}

// TestListen_RefusesDirectoryAtRoot: unix:$XDG_RUNTIME_DIR/dispatch/sock
// with the variable unset names /dispatch/sock; dispatch must not create
// a directory at the root of the file system, and says what is likely
// wrong.
func TestListen_RefusesDirectoryAtRoot(t *testing.T) {
	dir := "/dispatch-listen-test-" + strings.TrimPrefix(filepath.Base(t.TempDir()), "0")
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := Listen(UnixPrefix + dir + "/sock")
	if err == nil {
		l.Close()
		t.Fatal("listened on a socket in a new directory at /")
	}
	if !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Errorf("error %q does not say what is likely wrong", err)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Errorf("%s was created", dir)
	}
}
