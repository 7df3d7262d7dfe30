package spill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openTest(t *testing.T, opts Options) *Store {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func create(t *testing.T, s *Store, format Format, content string) *File {
	t.Helper()
	f, err := s.Create(format, func(w io.Writer) error {
		_, err := io.WriteString(w, content)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestOpen(t *testing.T) {
	parent := t.TempDir()
	s := openTest(t, Options{Dir: parent})

	fi, err := os.Lstat(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() {
		t.Errorf("dir mode = %v, want a directory", fi.Mode())
	}
	checkPerm(t, "dir", fi, 0o700)
	wantPrefix := fmt.Sprintf("dispatch-spill-%d-", os.Getpid())
	if !strings.HasPrefix(filepath.Base(s.Dir()), wantPrefix) {
		t.Errorf("dir name %q, want prefix %q", filepath.Base(s.Dir()), wantPrefix)
	}
	data, err := os.ReadFile(filepath.Join(s.Dir(), markerName))
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseMarker(data)
	if err != nil {
		t.Fatal(err)
	}
	me, err := self()
	if err != nil {
		t.Fatal(err)
	}
	if o != me {
		t.Errorf("marker owner = %+v, want %+v", o, me)
	}
	if s.MaxBytes() != DefaultMaxBytes || DefaultMaxBytes != 1<<30 {
		t.Errorf("MaxBytes = %d, want 1 GiB", s.MaxBytes())
	}
}

func TestStore_Create(t *testing.T) {
	s := openTest(t, Options{})
	tests := []struct {
		name      string
		format    Format
		content   string
		ext       string
		wantLines int64
	}{
		{"json", FormatJSON, "{\n  \"a\": 1\n}\n", ".json", 3},
		{"toon", FormatTOON, "a: 1\nb: 2", ".toon", 2},
		{"text", FormatText, "hello\n", ".txt", 1},
		{"empty", FormatText, "", ".txt", 0},
		{"crlf", FormatText, "a\r\nb\r\n", ".txt", 2},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := create(t, s, tt.format, tt.content)
			if filepath.Dir(f.Path) != s.Dir() || filepath.Ext(f.Path) != tt.ext || filepath.Base(f.Path) != f.Name {
				t.Errorf("path %q, want %s/<random>%s", f.Path, s.Dir(), tt.ext)
			}
			if len(strings.TrimSuffix(f.Name, tt.ext)) != 32 || seen[f.Name] {
				t.Errorf("name %q is not a fresh 128-bit random name", f.Name)
			}
			seen[f.Name] = true
			if f.Bytes != int64(len(tt.content)) || f.Lines != tt.wantLines || f.Format != tt.format {
				t.Errorf("got bytes=%d lines=%d format=%s, want %d %d %s", f.Bytes, f.Lines, f.Format, len(tt.content), tt.wantLines, tt.format)
			}
			if f.Tokens != EstimateTokens(f.Bytes) || string(f.Prefix) != tt.content {
				t.Errorf("tokens=%d prefix=%q", f.Tokens, f.Prefix)
			}
			fi, err := os.Stat(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			checkPerm(t, "file", fi, 0o600)
			data, err := os.ReadFile(f.Path)
			if err != nil || string(data) != tt.content {
				t.Errorf("content = %q, %v", data, err)
			}
		})
	}
	t.Run("unknown format", func(t *testing.T) {
		_, err := s.Create("xml", func(io.Writer) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "unknown spill format") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("write error removes the file", func(t *testing.T) {
		before := len(dirEntries(t, s.Dir()))
		boom := errors.New("boom")
		_, err := s.Create(FormatText, func(w io.Writer) error {
			io.WriteString(w, "partial")
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("err = %v, want boom", err)
		}
		if after := len(dirEntries(t, s.Dir())); after != before {
			t.Errorf("%d entries after a failed create, want %d", after, before)
		}
	})
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestStore_Create_maxBytes(t *testing.T) {
	s := openTest(t, Options{MaxBytes: 1000})
	first := create(t, s, FormatText, strings.Repeat("a", 600))
	// A 64 KiB chunked writer, so the cap trips in the middle of the stream.
	_, err := s.Create(FormatText, func(w io.Writer) error {
		for i := 0; i < 10; i++ {
			if _, err := io.WriteString(w, strings.Repeat("b\n", 100)); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, ErrSpillFull) {
		t.Fatalf("err = %v, want ErrSpillFull", err)
	}
	mustContain(t, "error", err.Error(), "1000 B", "--spill-max")
	if names := dirEntries(t, s.Dir()); len(names) != 2 { // .owner and the first file
		t.Errorf("entries = %v, want the marker and %s only", names, first.Name)
	}
	if s.Used() != 600 {
		t.Errorf("Used = %d, want 600 after the failed create", s.Used())
	}
	// A writer that swallows the error still fails, and the file goes.
	_, err = s.Create(FormatText, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("c", 70000))
		return nil
	})
	if !errors.Is(err, ErrSpillFull) {
		t.Errorf("err = %v, want ErrSpillFull", err)
	}
	// What still fits, fits.
	create(t, s, FormatText, strings.Repeat("d", 400))
	if err := s.Remove(first.Path); err != nil {
		t.Fatal(err)
	}
	if s.Used() != 400 {
		t.Errorf("Used = %d after Remove, want 400", s.Used())
	}
}

func TestStore_Close(t *testing.T) {
	s, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f := create(t, s, FormatJSON, "{}")
	var wg sync.WaitGroup
	for range 8 { // Close is idempotent and safe concurrently.
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := os.Lstat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dir still there after Close: %v", err)
	}
	if _, err := s.Create(FormatText, func(io.Writer) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Create after Close: %v, want ErrClosed", err)
	}
	if _, err := s.Resolve(f.Path); !errors.Is(err, ErrClosed) {
		t.Errorf("Resolve after Close: %v, want ErrClosed", err)
	}
}

func TestStore_Close_concurrentCreate(t *testing.T) {
	s, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				_, err := s.Create(FormatText, func(w io.Writer) error {
					_, err := io.WriteString(w, "x\n")
					return err
				})
				if err != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, os.ErrNotExist) {
					t.Error(err)
				}
			}
		}()
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	wg.Wait()
	if _, err := os.Lstat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dir still there after Close: %v", err)
	}
}

func TestOpen_createsMissingParent(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "a", "b")
	s := openTest(t, Options{Dir: parent})
	if filepath.Dir(s.Dir()) != parent {
		t.Errorf("store dir %s is not under %s", s.Dir(), parent)
	}
	if fi, err := os.Stat(parent); err != nil {
		t.Errorf("parent: %v", err)
	} else {
		checkPerm(t, "parent", fi, 0o700)
	}
}

func TestOpenKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s, err := OpenKept(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := create(t, s, FormatTOON, "a: 1\n")
	if filepath.Dir(f.Path) != s.Dir() {
		t.Errorf("file %s not straight in %s", f.Path, s.Dir())
	}
	if names := dirEntries(t, dir); len(names) != 1 || names[0] != f.Name {
		t.Errorf("entries = %v, want only %s (no marker)", names, f.Name)
	}
	if _, err := s.Resolve(f.Name); err != nil {
		t.Errorf("Resolve: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.Path); err != nil {
		t.Errorf("Close removed a kept file: %v", err)
	}
	if _, err := Open(Options{Keep: true}); err == nil {
		t.Error("Keep without Dir: no error")
	}
}

func TestStore_Resolve(t *testing.T) {
	s := openTest(t, Options{})
	other := openTest(t, Options{})
	f := create(t, s, FormatJSON, `{"a":1}`)
	gone := create(t, s, FormatText, "bye")
	theirs := create(t, other, FormatText, "not yours")
	outside := writeTemp(t, "secret.txt", "secret")

	if err := os.Remove(gone.Path); err != nil {
		t.Fatal(err)
	}
	linkOut := filepath.Join(s.Dir(), "evil.txt")
	if err := os.Symlink(outside, linkOut); err != nil {
		t.Fatal(err)
	}
	linkIn := filepath.Join(t.TempDir(), f.Name)
	if err := os.Symlink(f.Path, linkIn); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(t.TempDir(), "spill")
	if err := os.Symlink(s.Dir(), dirLink); err != nil {
		t.Fatal(err)
	}
	// A file swapped for a symlink to the original under a tracked name.
	swapped := create(t, s, FormatText, "swap")
	if err := os.Remove(swapped.Path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, swapped.Path); err != nil {
		t.Fatal(err)
	}

	t.Run("accepted", func(t *testing.T) {
		for _, p := range []string{f.Path, f.Name, "./" + f.Name, s.Dir() + "/x/../" + f.Name} {
			got, err := s.Resolve(p)
			if err != nil || got != f.Path {
				t.Errorf("Resolve(%q) = %q, %v; want %q", p, got, err, f.Path)
			}
			opened, err := s.Open(p)
			if err != nil {
				t.Errorf("Open(%q): %v", p, err)
				continue
			}
			data, err := io.ReadAll(opened)
			if cerr := opened.Close(); err != nil || cerr != nil || string(data) != `{"a":1}` || opened.Name() != f.Path {
				t.Errorf("Open(%q) read %q from %s (%v, %v)", p, data, opened.Name(), err, cerr)
			}
		}
	})
	refused := []struct {
		name, path, why string
	}{
		{"empty", "", "no path given"},
		{"absolute path elsewhere", outside, "not in the spill directory"},
		{"dot dot", "../" + filepath.Base(outside), "not in the spill directory"},
		{"dot dot out and back", s.Dir() + "/../" + filepath.Base(s.Dir()) + "x/" + f.Name, "not in the spill directory"},
		{"symlink in the dir pointing out", linkOut, "not created by this store"},
		{"symlink elsewhere pointing in", linkIn, "not in the spill directory"},
		{"symlinked dir pointing in", filepath.Join(dirLink, f.Name), "not in the spill directory"},
		{"proc self environ", "/proc/self/environ", "not in the spill directory"},
		{"another store's file", theirs.Path, "not in the spill directory"},
		{"another store's file by name", theirs.Name, "not created by this store"},
		{"deleted file", gone.Path, "no longer exists"},
		{"tracked name swapped for a symlink", swapped.Path, "not a regular file"},
		{"the marker", markerName, "not created by this store"},
		{"the dir itself", s.Dir(), "not in the spill directory"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(tt.path)
			if !errors.Is(err, ErrNotSpillFile) {
				t.Fatalf("Resolve(%q) = %q, %v; want ErrNotSpillFile", tt.path, got, err)
			}
			mustContain(t, "error", err.Error(), tt.why, "readable files", f.Name)
			if opened, err := s.Open(tt.path); !errors.Is(err, ErrNotSpillFile) {
				t.Errorf("Open(%q) = %v, %v; want ErrNotSpillFile", tt.path, opened, err)
				if err == nil {
					opened.Close()
				}
			}
		})
	}
}

func TestStore_Files(t *testing.T) {
	s := openTest(t, Options{})
	a := create(t, s, FormatText, "a")
	b := create(t, s, FormatText, "b")
	files := s.Files()
	if len(files) != 2 {
		t.Fatalf("Files = %v", files)
	}
	names := map[string]bool{files[0].Name: true, files[1].Name: true}
	if !names[a.Name] || !names[b.Name] {
		t.Errorf("Files = %v, want %s and %s", files, a.Name, b.Name)
	}
}

// The error for a file that does not fit names a lower bound of its size
// (writing stops at the limit) and what the other files hold, never the
// bytes of the refused file that happened to be written before the limit
// was hit.
func TestStore_Create_fullErrorNumbers(t *testing.T) {
	chunked := func(chunk string, n int) func(io.Writer) error {
		return func(w io.Writer) error {
			for i := 0; i < n; i++ {
				if _, err := io.WriteString(w, chunk); err != nil {
					return err
				}
			}
			return nil
		}
	}
	tests := []struct {
		name  string
		max   int64
		held  []int // sizes of files created first
		write func(io.Writer) error
		wants []string
	}{
		{"empty store, one big write", 100 << 10, nil, chunked(strings.Repeat("x", 150<<10), 1),
			[]string{"would be more than 128 KiB", "limit is 100 KiB", "holds 0 B in 0 file(s)"}},
		{"empty store, many small writes", 100 << 10, nil, chunked(strings.Repeat("y\n", 512), 103),
			[]string{"would be more than 103 KiB", "limit is 100 KiB", "holds 0 B in 0 file(s)"}},
		{"one file held", 1000, []int{600}, chunked("b\n", 500),
			[]string{"would be more than 1000 B", "limit is 1000 B", "holds 600 B in 1 file(s)"}},
		{"two files held", 1000, []int{300, 200}, chunked("c", 501),
			[]string{"would be more than 501 B", "holds 500 B in 2 file(s)"}},
		{"write fails past the limit", 1000, nil, func(w io.Writer) error {
			if _, err := io.WriteString(w, strings.Repeat("d", 70000)); err != nil {
				return err
			}
			return errors.New("encoder broke")
		}, []string{"would be more than 64 KiB", "holds 0 B in 0 file(s)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t, Options{MaxBytes: tt.max})
			for _, n := range tt.held {
				create(t, s, FormatText, strings.Repeat("h", n))
			}
			_, err := s.Create(FormatText, tt.write)
			if !errors.Is(err, ErrSpillFull) {
				t.Fatalf("err = %v, want ErrSpillFull", err)
			}
			mustContain(t, "error", err.Error(), append(tt.wants, "--spill-max")...)
			if len(s.Files()) != len(tt.held) {
				t.Errorf("files = %d, want %d", len(s.Files()), len(tt.held))
			}
		})
	}
}

// Writing stops at the limit: every write past it fails, so a writer that
// would generate far more than the store holds (an indenter over deeply
// nested JSON) is not run to its end. Before, writes past the limit were
// counted and discarded, and the writer ran on.
func TestStore_Create_stopsAtLimit(t *testing.T) {
	s := openTest(t, Options{MaxBytes: 100 << 10})
	var calls, failed int
	_, err := s.Create(FormatText, func(w io.Writer) error {
		for i := 0; i < 1<<20; i++ { // 1 GiB in 1 KiB writes, if never stopped
			calls++
			if _, err := w.Write(make([]byte, 1<<10)); err != nil {
				failed++
				if failed >= 3 {
					return err
				}
			}
		}
		return nil
	})
	if !errors.Is(err, ErrSpillFull) {
		t.Fatalf("err = %v, want ErrSpillFull", err)
	}
	mustContain(t, "error", err.Error(), "would be more than 1", "limit is 100 KiB", "--spill-max")
	if calls > 200 {
		t.Errorf("the writer made %d writes of 1 KiB into a 100 KiB store; writes past the limit must fail", calls)
	}
	if len(s.Files()) != 0 || s.used.Load() != 0 {
		t.Errorf("files = %v, used = %d after a refused file", s.Files(), s.used.Load())
	}
}

// A size given up front that cannot fit fails before anything is written,
// naming the exact size.
func TestStore_CreateContext_sizeKnown(t *testing.T) {
	s := openTest(t, Options{MaxBytes: 1000})
	create(t, s, FormatText, strings.Repeat("h", 600))
	wrote := false
	_, err := s.CreateContext(context.Background(), FormatJSON, 501, func(w io.Writer) error {
		wrote = true
		_, err := io.WriteString(w, strings.Repeat("x", 501))
		return err
	})
	if !errors.Is(err, ErrSpillFull) {
		t.Fatalf("err = %v, want ErrSpillFull", err)
	}
	mustContain(t, "error", err.Error(), "would be 501 B,", "holds 600 B in 1 file(s)")
	if wrote {
		t.Error("the writer ran although the size said the file could not fit")
	}
	f, err := s.CreateContext(context.Background(), FormatJSON, 400, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Repeat("y", 400))
		return err
	})
	if err != nil || f.Bytes != 400 {
		t.Fatalf("a file that fits: %v, %v", f, err)
	}
}

// Cancelling the context stops the writer at its next write and removes
// the partial file at once.
func TestStore_CreateContext_cancel(t *testing.T) {
	s := openTest(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var path string
	writes := 0
	_, err := s.CreateContext(ctx, FormatText, -1, func(w io.Writer) error {
		for i := 0; ; i++ {
			writes++
			if i == 100 {
				cancel()
				entries, _ := os.ReadDir(s.Dir())
				for _, e := range entries {
					if e.Name() != ".owner" {
						path = filepath.Join(s.Dir(), e.Name())
					}
				}
			}
			if _, err := w.Write(make([]byte, 64<<10)); err != nil {
				return err
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if writes > 102 {
		t.Errorf("%d writes after the cancel, want at most 1", writes-101)
	}
	if path == "" {
		t.Fatal("no partial file was seen while writing")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("partial file %s after the cancel: %v", path, err)
	}
	if s.used.Load() != 0 {
		t.Errorf("used = %d after a cancelled file", s.used.Load())
	}
}

// While one file is being written its bytes count against the limit; the
// error for another file says so instead of "holds 1 GiB in 0 file(s)".
func TestStore_fullError_fileBeingWritten(t *testing.T) {
	s := openTest(t, Options{MaxBytes: 1000})
	create(t, s, FormatText, strings.Repeat("h", 100))
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.Create(FormatText, func(w io.Writer) error {
			if _, err := w.Write(make([]byte, 800)); err != nil {
				return err
			}
			if f, ok := w.(interface{ Flush() error }); ok {
				if err := f.Flush(); err != nil {
					return err
				}
			}
			close(started)
			<-release
			return nil
		})
		done <- err
	}()
	<-started
	_, err := s.Create(FormatText, func(w io.Writer) error {
		_, err := w.Write(make([]byte, 300))
		return err
	})
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the first file: %v", err)
	}
	if !errors.Is(err, ErrSpillFull) {
		t.Fatalf("err = %v, want ErrSpillFull", err)
	}
	mustContain(t, "error", err.Error(), "holds 100 B in 1 file(s), and 1 other file(s) being written hold 800 B")
}
