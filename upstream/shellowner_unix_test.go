//go:build unix

package upstream

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dispatch/dispatch"
	"dispatch/internal/testkit"
)

// A session socket another user could have planted gets nothing: the
// client refuses it before it connects, saying why, and the listener
// never sees a connection.
func TestShellClient_RefusesForeignSocket(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, socket string)
		want  string
	}{
		{"socket of another user", func(t *testing.T, dir, socket string) {
			if os.Getuid() != 0 {
				t.Skip("only root can give a socket to another user")
			}
			if err := os.Lchown(socket, 4243, 4243); err != nil {
				t.Fatal(err)
			}
		}, "the socket belongs to user 4243"},
		{"directory of another user", func(t *testing.T, dir, socket string) {
			if os.Getuid() != 0 {
				t.Skip("only root can give a directory to another user")
			}
			if err := os.Chown(dir, 4243, 4243); err != nil {
				t.Fatal(err)
			}
		}, "belongs to user 4243"},
		{"directory writable by others", func(t *testing.T, dir, socket string) {
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}, "is writable by others (mode 0777)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(testkit.ShortTempDir(t), "s")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			socket := filepath.Join(dir, ShellSocketName)
			ln, err := net.Listen("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			tt.setup(t, dir, socket)

			c := NewShellClient(socket)
			defer c.Close()
			// Without the check the call waits on a listener that never
			// answers: the deadline ends it.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = c.Do(ctx, dispatch.Request{Action: "call", Tool: "echo", Arguments: []byte(`{"message":"MY-SECRET-ARG"}`)})
			var link *ShellLinkError
			if !errors.As(err, &link) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was sent") {
				t.Fatalf("call to a foreign socket: %v (%T), want a refusal saying %q", err, err, tt.want)
			}
			if strings.Contains(err.Error(), "MY-SECRET-ARG") {
				t.Errorf("refusal shows the arguments: %v", err)
			}
			// Nothing connected: the listener has no connection waiting.
			ln.(*net.UnixListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
			if conn, err := ln.Accept(); err == nil {
				conn.Close()
				t.Fatal("the client connected to the foreign socket")
			}
		})
	}
}

// The owner check passes the user's own socket in a private directory,
// read from a real file's stat.
func TestCheckSessionSocket_OwnSocketPasses(t *testing.T) {
	dir := filepath.Join(testkit.ShortTempDir(t), "s")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, ShellSocketName)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := checkSessionSocket(socket); err != nil {
		t.Fatalf("own socket refused: %v", err)
	}
	if err := checkSessionSocket(socket + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing socket: %v, want not-exist (an ended session)", err)
	}
}
