package spill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	// dirPrefix starts the name of every store directory:
	// dispatch-spill-<pid>-<random>.
	dirPrefix = "dispatch-spill-"

	// markerName is the owner marker inside a store directory.
	markerName = ".owner"

	// markerMagic is the first line of a valid marker.
	markerMagic = "dispatch-spill-owner v1"

	// maxMarkerBytes bounds how much of a marker is read.
	maxMarkerBytes = 4 << 10
)

// owner identifies a process across PID reuse: its pid and its start time,
// in whatever unit the platform's processStart gives (clock ticks since
// boot on Linux, microseconds since the epoch on macOS, 100 ns intervals
// since 1601 on Windows). A marker is only ever compared on the machine
// that wrote it.
type owner struct {
	PID   int
	Start uint64
}

func (o owner) marker() []byte {
	return fmt.Appendf(nil, "%s\npid=%d\nstart=%d\n", markerMagic, o.PID, o.Start)
}

func parseMarker(data []byte) (owner, error) {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) != 3 || lines[0] != markerMagic {
		return owner{}, errors.New("not a dispatch owner marker")
	}
	pidStr, ok1 := strings.CutPrefix(lines[1], "pid=")
	startStr, ok2 := strings.CutPrefix(lines[2], "start=")
	if !ok1 || !ok2 {
		return owner{}, errors.New("malformed owner marker")
	}
	pid, err := strconv.Atoi(pidStr)
	if err != nil || pid <= 0 {
		return owner{}, fmt.Errorf("malformed pid in owner marker: %q", pidStr)
	}
	start, err := strconv.ParseUint(startStr, 10, 64)
	if err != nil {
		return owner{}, fmt.Errorf("malformed start time in owner marker: %q", startStr)
	}
	return owner{PID: pid, Start: start}, nil
}

// self returns the owner identity of the current process.
func self() (owner, error) {
	pid := os.Getpid()
	start, err := processStart(pid)
	if err != nil {
		return owner{}, err
	}
	return owner{PID: pid, Start: start}, nil
}

// alive reports whether o still runs: a process with o's pid exists and
// started at o's start time. It errs on the side of "alive" when unsure.
func (o owner) alive() bool {
	start, err := processStart(o.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	return start == o.Start
}

// Sweep removes the store directories under parent that were left behind by
// dead dispatch processes: directories named dispatch-spill-<pid>-*, owned by
// the current user, holding a valid owner marker for the same pid, whose
// process is gone or whose start time differs (the pid was reused). Anything
// without a valid marker, owned by someone else, or a symlink is never
// touched. It returns the directories removed; err joins the failures, and
// the sweep goes on past them.
func Sweep(parent string) (removed []string, err error) {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("sweep spill directories: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		o, ok := staleOwner(dir, e.Name())
		if !ok || o.alive() {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("sweep spill directory %s: %w", dir, err))
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// staleOwner reads the owner of a store directory candidate. ok is false
// unless dir is a real directory owned by the current user whose name and
// marker agree.
func staleOwner(dir, name string) (o owner, ok bool) {
	namePID, ok := storeDirPID(name)
	if !ok {
		return owner{}, false
	}
	if !ownedDir(dir) {
		return owner{}, false
	}
	data, err := readMarker(filepath.Join(dir, markerName))
	if err != nil {
		return owner{}, false
	}
	o, err = parseMarker(data)
	if err != nil || o.PID != namePID {
		return owner{}, false
	}
	return o, true
}

// storeDirPID returns the pid in a store directory's name,
// dispatch-spill-<pid>-<random>, exactly as Open writes it: the prefix in
// its case, a pid of decimal digits without sign or leading zero, and a
// non-empty rest without separators. Any other spelling ("+12", "012",
// "DISPATCH-SPILL-", a name with a stream or separator in it) is not a
// store directory, and a sweep leaves it alone.
func storeDirPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, dirPrefix)
	if !ok {
		return 0, false
	}
	pidStr, random, found := strings.Cut(rest, "-")
	if !found || random == "" || strings.ContainsAny(random, `/\:`) {
		return 0, false
	}
	if pidStr == "" || pidStr[0] == '0' || strings.Trim(pidStr, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(pidStr)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// InStoreDir reports whether path lies inside a store directory that Open
// made, this process's or any other's (named dispatch-spill-<pid>-<random>,
// owned by this user, holding a matching owner marker). A dispatch serving
// many sessions gives each its own store, often side by side under one
// directory that is also an argument root (the working directory, or
// --spill-dir beside --args-dir): a path check alone would let one session
// read another's results by naming them.
func InStoreDir(path string) bool {
	dir := filepath.Dir(filepath.Clean(path))
	for {
		if _, ok := staleOwner(dir, filepath.Base(dir)); ok {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}
