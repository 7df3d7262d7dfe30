package spill

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// fakeStoreDir makes a store directory under parent as process o would.
func fakeStoreDir(t *testing.T, parent string, o owner, withMarker bool) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, dirPrefix+itoa(int64(o.PID))+"-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "abc.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if withMarker {
		if err := writeMarker(filepath.Join(dir, markerName), o); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSweep(t *testing.T) {
	me, err := self()
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	dead := fakeStoreDir(t, parent, owner{PID: deadPID(t), Start: 1}, true)
	reused := fakeStoreDir(t, parent, owner{PID: me.PID, Start: me.Start + 1}, true) // our pid, another start: pid reuse
	live := fakeStoreDir(t, parent, me, true)
	noMarker := fakeStoreDir(t, parent, owner{PID: deadPID(t)}, false)
	mismatch := fakeStoreDir(t, parent, owner{PID: deadPID(t), Start: 1}, false)
	// A marker naming another pid than the directory name: not trusted.
	if err := writeMarker(filepath.Join(mismatch, markerName), owner{PID: me.PID + 1000000, Start: 1}); err != nil {
		t.Fatal(err)
	}
	garbage := fakeStoreDir(t, parent, owner{PID: deadPID(t)}, false)
	if err := os.WriteFile(filepath.Join(garbage, markerName), []byte("pid=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unrelated := filepath.Join(parent, "other-dir")
	if err := os.Mkdir(unrelated, 0o700); err != nil {
		t.Fatal(err)
	}
	// A symlink named like a store pointing at a dead store: never followed.
	target := fakeStoreDir(t, t.TempDir(), owner{PID: deadPID(t), Start: 1}, true)
	link := filepath.Join(parent, dirPrefix+"1-link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}

	removed, err := Sweep(parent)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{dead, reused}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed = %v, want %v", removed, want)
	}
	for _, tt := range []struct {
		name, path string
		exists     bool
	}{
		{"dead process's dir", dead, false},
		{"reused pid's dir", reused, false},
		{"live process's dir", live, true},
		{"dir without marker", noMarker, true},
		{"marker for another pid", mismatch, true},
		{"malformed marker", garbage, true},
		{"unrelated dir", unrelated, true},
		{"symlink", link, true},
		{"symlink target", target, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := os.Lstat(tt.path)
			if exists := err == nil; exists != tt.exists {
				t.Errorf("%s exists = %v, want %v", tt.path, exists, tt.exists)
			}
		})
	}
}

func TestOpen_sweeps(t *testing.T) {
	parent := t.TempDir()
	dead := fakeStoreDir(t, parent, owner{PID: deadPID(t), Start: 1}, true)
	s := openTest(t, Options{Dir: parent})
	removed, err := s.Swept()
	if err != nil || !slices.Equal(removed, []string{dead}) {
		t.Errorf("Swept = %v, %v; want [%s]", removed, err, dead)
	}
}

// Which names a sweep may treat as store directories: only the spelling
// Open writes, whatever the platform's file names allow.
func TestStoreDirPID(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		ok   bool
	}{
		{"dispatch-spill-1234-123456789", 1234, true},
		{"dispatch-spill-7-a-b", 7, true},
		{"dispatch-spill-+12-abc", 0, false},
		{"dispatch-spill--12-abc", 0, false},
		{"dispatch-spill-012-abc", 0, false},
		{"dispatch-spill-0-abc", 0, false},
		{"dispatch-spill-12", 0, false},
		{"dispatch-spill-12-", 0, false},
		{"dispatch-spill-1e3-abc", 0, false},
		{"dispatch-spill-99999999999999999999-abc", 0, false},
		{"DISPATCH-SPILL-12-abc", 0, false}, // Windows names ignore case; the sweep does not
		{"Dispatch-Spill-12-abc", 0, false},
		{"dispatch-spill-12-abc:stream", 0, false},
		{`dispatch-spill-12-abc\..\x`, 0, false},
		{"dispatch-spill-12-abc/../x", 0, false},
		{"other-12-abc", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid, ok := storeDirPID(tt.name)
			if pid != tt.pid || ok != tt.ok {
				t.Errorf("storeDirPID(%q) = %d, %v; want %d, %v", tt.name, pid, ok, tt.pid, tt.ok)
			}
		})
	}
}

func TestInStoreDir(t *testing.T) {
	parent := t.TempDir()
	store, err := Open(Options{Dir: parent})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	other := fakeStoreDir(t, parent, owner{PID: deadPID(t), Start: 1}, true)
	unmarked := fakeStoreDir(t, parent, owner{PID: deadPID(t), Start: 1}, false)
	for _, tc := range []struct {
		path string
		want bool
	}{
		{filepath.Join(store.Dir(), "a.json"), true},
		{filepath.Join(other, "abc.json"), true},
		{filepath.Join(other, "sub", "..", "abc.json"), true},
		{filepath.Join(unmarked, "abc.json"), false}, // a name alone is not a store
		{filepath.Join(parent, "abc.json"), false},
		{"relative.json", false},
	} {
		if got := InStoreDir(tc.path); got != tc.want {
			t.Errorf("InStoreDir(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
