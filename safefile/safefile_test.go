//go:build unix

package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tree builds root/{file, dir/inner, in -> file, up -> ../outside/secret,
// abs -> /abs/outside/secret, fifo, sub -> dir} and outside/secret.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "dir")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for path, data := range map[string]string{
		filepath.Join(root, "file"):         "inside",
		filepath.Join(root, "dir", "inner"): "inner",
		filepath.Join(outside, "secret"):    "outside",
	} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"in":       "file",
		"sub":      "dir",
		"up":       "../outside/secret",
		"abs":      filepath.Join(outside, "secret"),
		"updir":    "../outside",
		"magic":    "/proc/self/fd/0",
		"dangling": "nowhere",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

// The rule OpenIn applies, name by name: regular files inside, also through
// symlinks that stay inside, are read; anything leading out is ErrOutside;
// FIFOs and directories are ErrNotRegular, and none of it blocks.
func TestOpenIn(t *testing.T) {
	root, _ := tree(t)
	tests := []struct {
		name string
		want string // content, when the open succeeds
		err  error
	}{
		{"file", "inside", nil},
		{"dir/inner", "inner", nil},
		{"in", "inside", nil},
		{"sub/inner", "inner", nil},
		{"dir/../file", "inside", nil},
		{"up", "", ErrOutside},
		{"abs", "", ErrOutside},
		{"updir/secret", "", ErrOutside},
		{"../outside/secret", "", ErrOutside},
		{"/etc/passwd", "", ErrOutside},
		{"magic", "", ErrOutside},
		{"missing", "", os.ErrNotExist},
		{"dangling", "", os.ErrNotExist},
		{"fifo", "", ErrNotRegular},
		{"dir", "", ErrNotRegular},
	}
	impls := []struct {
		name string
		open func(dir, name string) (*os.File, error)
	}{{"default", openBeneath}, {"walk", openInRoot}}
	for _, impl := range impls {
		for _, tt := range tests {
			t.Run(impl.name+"/"+tt.name, func(t *testing.T) {
				got, err := withinDeadline(t, func() (string, error) {
					f, err := openIn(root, tt.name, impl.open)
					if err != nil {
						return "", err
					}
					defer f.Close()
					if want := filepath.Join(root, tt.name); filepath.Clean(f.Name()) != want {
						t.Errorf("Name() = %q, want %q", f.Name(), want)
					}
					data, err := io.ReadAll(f)
					return string(data), err
				})
				if tt.err != nil {
					if !errors.Is(err, tt.err) {
						t.Fatalf("OpenIn(%q) = %q, %v; want %v", tt.name, got, err, tt.err)
					}
					return
				}
				if err != nil || got != tt.want {
					t.Fatalf("OpenIn(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
				}
			})
		}
	}
}

// Open reads any regular file, following symlinks anywhere, but refuses
// FIFOs, devices and directories without blocking.
func TestOpen(t *testing.T) {
	root, outside := tree(t)
	tests := []struct {
		path string
		want string
		err  error
	}{
		{filepath.Join(root, "file"), "inside", nil},
		{filepath.Join(root, "up"), "outside", nil},
		{filepath.Join(outside, "secret"), "outside", nil},
		{filepath.Join(root, "fifo"), "", ErrNotRegular},
		{"/dev/null", "", ErrNotRegular},
		{root, "", ErrNotRegular},
		{filepath.Join(root, "missing"), "", os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			got, err := withinDeadline(t, func() (string, error) {
				f, err := Open(tt.path)
				if err != nil {
					return "", err
				}
				defer f.Close()
				data, err := io.ReadAll(f)
				return string(data), err
			})
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Open(%q) = %q, %v; want %v", tt.path, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Open(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}
}

// The opened file is left blocking: O_NONBLOCK only covered the open.
func TestOpen_LeavesFileBlocking(t *testing.T) {
	root, _ := tree(t)
	f, err := OpenIn(root, "file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := fcntlFlags(f)
	if err != nil {
		t.Fatal(err)
	}
	if flags&syscall.O_NONBLOCK != 0 {
		t.Errorf("file is still O_NONBLOCK (flags %#x)", flags)
	}
}

// withinDeadline runs fn and fails the test if it hangs: a FIFO opened
// without O_NONBLOCK waits for a writer forever.
func withinDeadline(t *testing.T, fn func() (string, error)) (string, error) {
	t.Helper()
	type result struct {
		s   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := fn()
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-time.After(20 * time.Second):
		t.Fatal("open blocked (hang detector: 20 s)")
		return "", nil
	}
}

func fcntlFlags(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		return 0, err
	}
	return flags, ferr
}
