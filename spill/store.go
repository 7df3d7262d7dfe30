package spill

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dispatch/safefile"
)

// Options configures Open.
type Options struct {
	// Dir is the parent directory of the store's private directory; "" means
	// os.TempDir(). With Keep, Dir is the directory the files go into.
	Dir string

	// MaxBytes is the total number of bytes the store may hold; 0 means
	// DefaultMaxBytes (1 GiB). Create fails with ErrSpillFull past it.
	MaxBytes int64

	// Keep makes the store write straight into Dir, which the user named:
	// no private subdirectory, no owner marker, no sweeping, and Close
	// leaves the files in place. Dir must be set. See OpenKept.
	Keep bool

	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Store is a set of spill files in one directory, normally a private
// directory per dispatch process. All methods are safe for concurrent use,
// and Close may be called from a signal handler's goroutine at any time.
type Store struct {
	dir       string // directory the files go into (absolute, symlinks resolved)
	openedDir string // the same directory as spelled at Open (absolute, cleaned)
	keep      bool
	maxBytes  int64
	now       func() time.Time

	used    atomic.Int64 // bytes held, including files being written
	writing atomic.Int64 // files being written

	mu     sync.Mutex
	closed bool
	files  map[string]*tracked // by base name

	swept    []string
	sweepErr error
}

// tracked is a file the store created, with the identity it had then.
type tracked struct {
	file File
	info os.FileInfo
}

// File describes a spill file written by Create.
type File struct {
	Path    string    // absolute path
	Name    string    // base name, unguessable
	Format  Format    // content format, also the extension
	Bytes   int64     // size in bytes
	Lines   int64     // number of lines (a last line without '\n' counts)
	Tokens  int64     // EstimateTokens(Bytes)
	Created time.Time // when Create finished
	Prefix  []byte    // the first PrefixBytes of the content, for Preview
}

// PrefixBytes is how many leading bytes of a spill File are kept in
// File.Prefix.
const PrefixBytes = 1 << 10

// Open creates the store's private directory right away (so a bad parent
// fails at startup, not in the middle of a tool call):
// <Dir>/dispatch-spill-<pid>-<random>, mode 0700, holding an owner marker
// (.owner: pid and process start time) that lets a later process tell it
// was left by a dead process. Before that it sweeps such leftovers from Dir
// (see Sweep; the outcome is available from Swept).
//
// With opts.Keep it behaves like OpenKept.
func Open(opts Options) (*Store, error) {
	s := &Store{
		maxBytes: opts.MaxBytes,
		now:      opts.Now,
		keep:     opts.Keep,
		files:    make(map[string]*tracked),
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	if opts.Keep {
		if opts.Dir == "" {
			return nil, errors.New("open spill store: keeping files needs a directory")
		}
		_, statErr := os.Stat(opts.Dir)
		if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("open spill store: %w", err)
		}
		// A directory of the user's keeps its permissions; one dispatch
		// created is private as the store's own (its files are in any
		// case: createSpillFile).
		if errors.Is(statErr, os.ErrNotExist) {
			if err := makePrivate(opts.Dir); err != nil {
				return nil, fmt.Errorf("open spill store: %w", err)
			}
		}
		dir, err := realDir(opts.Dir)
		if err != nil {
			return nil, fmt.Errorf("open spill store: %w", err)
		}
		s.dir = dir
		s.openedDir, err = filepath.Abs(opts.Dir)
		if err != nil {
			return nil, fmt.Errorf("open spill store: %w", err)
		}
		return s, nil
	}

	parent := opts.Dir
	if parent == "" {
		parent = os.TempDir()
	} else if err := os.MkdirAll(parent, 0o700); err != nil {
		// Created as in Keep mode, so --spill-dir means the same everywhere.
		return nil, fmt.Errorf("open spill store: %w", err)
	}
	me, err := self()
	if err != nil {
		return nil, fmt.Errorf("open spill store: identify this process: %w", err)
	}
	s.swept, s.sweepErr = Sweep(parent)

	dir, err := os.MkdirTemp(parent, fmt.Sprintf("%s%d-*", dirPrefix, me.PID))
	if err != nil {
		return nil, fmt.Errorf("open spill store: %w", err)
	}
	if err := makePrivate(dir); err != nil {
		return nil, errors.Join(fmt.Errorf("open spill store: %w", err), os.RemoveAll(dir))
	}
	if err := writeMarker(filepath.Join(dir, markerName), me); err != nil {
		return nil, errors.Join(fmt.Errorf("open spill store: %w", err), os.RemoveAll(dir))
	}
	real, err := realDir(dir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open spill store: %w", err), os.RemoveAll(dir))
	}
	s.dir = real
	s.openedDir, err = filepath.Abs(dir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open spill store: %w", err), os.RemoveAll(dir))
	}
	return s, nil
}

// OpenKept opens a store that writes straight into dir (created 0700 if
// missing) and whose Close leaves the files: for a directory the user named
// on the command line. It has no owner marker and never sweeps.
func OpenKept(dir string) (*Store, error) {
	return Open(Options{Dir: dir, Keep: true})
}

func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

func writeMarker(path string, o owner) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write owner marker: %w", err)
	}
	if _, err := f.Write(o.marker()); err != nil {
		return errors.Join(fmt.Errorf("write owner marker: %w", err), f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write owner marker: %w", err)
	}
	return nil
}

// Dir returns the directory the store's files are in.
func (s *Store) Dir() string { return s.dir }

// MaxBytes returns the total size the store may hold.
func (s *Store) MaxBytes() int64 { return s.maxBytes }

// Used returns the bytes the store holds now, including files being written.
func (s *Store) Used() int64 { return s.used.Load() }

// Swept returns what Open's sweep of leftover directories removed, and its
// error (nil when all went well). The caller decides whether to log it.
func (s *Store) Swept() ([]string, error) { return s.swept, s.sweepErr }

// Files returns the live files of the store, oldest first.
func (s *Store) Files() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]File, 0, len(s.files))
	for _, t := range s.files {
		out = append(out, t.file)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Create writes a new spill file of the given format by streaming write's
// output into it: nothing is buffered beyond a small write buffer. It counts
// bytes and lines as they go and stops as soon as the store would exceed
// MaxBytes: from then on every write fails with ErrSpillFull, so write ends
// without generating the rest. Then, and whenever write fails, the partial
// file is removed. The error can only say the file "would be more than" what
// was counted; CreateContext, given the size up front, names it exactly.
// The file is 0600 with an unguessable name and the format's extension.
func (s *Store) Create(format Format, write func(w io.Writer) error) (*File, error) {
	ext, err := format.Ext()
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	return s.create(context.Background(), format, ext, -1, write)
}

// CreateContext is Create bounded by ctx: once ctx ends, every write fails
// with its error, so write stops, and the partial file is removed at once.
// size is the file's size when the caller knows it before writing (-1 when
// not): a file that cannot fit then fails before any byte is written, with
// its exact size in the error.
func (s *Store) CreateContext(ctx context.Context, format Format, size int64, write func(w io.Writer) error) (*File, error) {
	ext, err := format.Ext()
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	return s.create(ctx, format, ext, size, write)
}

// CreateBinary is Create for bytes that are no text format (a resource's
// blob), with the extension ext (".png") that says what they are; ext must
// be a dot and 1 to 16 lowercase letters, digits or dashes, so that a
// hostile server's MIME type cannot name a path.
func (s *Store) CreateBinary(ext string, write func(w io.Writer) error) (*File, error) {
	if !safeExt().MatchString(ext) {
		return nil, fmt.Errorf("create spill file: invalid extension %q", ext)
	}
	return s.create(context.Background(), FormatBinary, ext, -1, write)
}

func (s *Store) create(ctx context.Context, format Format, ext string, size int64, write func(w io.Writer) error) (*File, error) {
	if s.isClosed() {
		return nil, fmt.Errorf("create spill file: %w", ErrClosed)
	}
	s.writing.Add(1)
	defer s.writing.Add(-1)
	if size > s.maxBytes-s.used.Load() {
		return nil, fmt.Errorf("create spill file: %w", s.fullError(size, true))
	}
	name, err := randomName(ext)
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	path := filepath.Join(s.dir, name)
	f, err := createSpillFile(path, s.keep)
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	cw := &countingWriter{ctx: ctx, store: s, w: f}
	bw := bufio.NewWriterSize(cw, 64<<10)
	// fail gives back the file's reservation before it builds the error, so
	// the error sees what the other files hold.
	fail := func(mkErr func() error) (*File, error) {
		s.used.Add(-cw.bytes)
		return nil, errors.Join(fmt.Errorf("create spill file: %w", mkErr()), f.Close(), removeIfExists(path))
	}
	failWith := func(err error) (*File, error) { return fail(func() error { return err }) }
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if cw.full {
		// The limit failed, whatever write made of it; write stopped
		// there, so the size is only a lower bound.
		return fail(func() error { return s.fullError(cw.bytes+cw.over, false) })
	}
	if cw.err != nil {
		// The disk failed or ctx ended, whatever write made of it.
		return failWith(cw.err)
	}
	if werr != nil {
		return failWith(werr)
	}
	info, err := f.Stat()
	if err != nil {
		return failWith(err)
	}
	if err := f.Close(); err != nil {
		s.used.Add(-cw.bytes)
		return nil, errors.Join(fmt.Errorf("create spill file: %w", err), removeIfExists(path))
	}
	file := File{
		Path:    path,
		Name:    name,
		Format:  format,
		Bytes:   cw.bytes,
		Lines:   cw.lines,
		Tokens:  EstimateTokens(cw.bytes),
		Created: s.now(),
		Prefix:  cw.prefix,
	}
	if cw.bytes > 0 && cw.last != '\n' {
		file.Lines++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.used.Add(-cw.bytes)
		return nil, errors.Join(fmt.Errorf("create spill file: %w", ErrClosed), removeIfExists(path))
	}
	s.files[name] = &tracked{file: file, info: info}
	out := file
	return &out, nil
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove partial spill file: %w", err)
	}
	return nil
}

func randomName(ext string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random file name: %w", err)
	}
	return hex.EncodeToString(b[:]) + ext, nil
}

// fullError is Create's error for a file of size bytes that does not fit:
// it names the file's size, the limit, and what the other files hold (the
// failed file's own bytes are already given back): the finished files, and
// apart from them the files still being written, whose bytes count against
// the limit as they are written.
// When the file was stopped at the limit, size is only a lower bound.
func (s *Store) fullError(size int64, complete bool) error {
	s.mu.Lock()
	files := len(s.files)
	var held int64
	for _, t := range s.files {
		held += t.file.Bytes
	}
	s.mu.Unlock()
	would := "would be " + humanBytes(size)
	if !complete {
		would = "would be more than " + humanBytes(size)
	}
	writing := ""
	// The failing file is still counted in writing, not in used.
	if others := s.writing.Load() - 1; others > 0 {
		writing = fmt.Sprintf(", and %d other file(s) being written hold %s", others, humanBytes(max(s.used.Load()-held, 0)))
	}
	return fmt.Errorf("%w: the result file %s, the limit is %s and the store already holds %s in %d file(s)%s; raise the limit with --spill-max",
		ErrSpillFull, would, humanBytes(s.maxBytes), humanBytes(held), files, writing)
}

// countingWriter counts what goes to the file and enforces the store's
// MaxBytes before any byte is written. Once the limit is hit, or ctx ends,
// every write fails, so that the writer stops instead of generating output
// nobody keeps; over is the refused write, for the error's lower bound. Its
// first error sticks.
type countingWriter struct {
	ctx    context.Context
	store  *Store
	w      io.Writer
	bytes  int64 // written to the file and reserved in store.used
	over   int64 // the write refused at the limit
	full   bool
	lines  int64
	last   byte
	prefix []byte
	err    error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if err := c.ctx.Err(); err != nil {
		c.err = fmt.Errorf("write spill file: %w", err)
		return 0, c.err
	}
	n := int64(len(p))
	if used := c.store.used.Add(n); used > c.store.maxBytes {
		c.store.used.Add(-n)
		c.full = true
		c.over = n
		c.err = fmt.Errorf("write spill file: %w", ErrSpillFull)
		return 0, c.err
	}
	written, err := c.w.Write(p)
	c.store.used.Add(int64(written) - n)
	c.bytes += int64(written)
	c.lines += int64(bytes.Count(p[:written], []byte{'\n'}))
	if written > 0 {
		c.last = p[written-1]
		if room := PrefixBytes - len(c.prefix); room > 0 {
			c.prefix = append(c.prefix, p[:min(room, written)]...)
		}
	}
	if err != nil {
		c.err = fmt.Errorf("write spill file: %w", err)
		return written, c.err
	}
	return written, nil
}

// Remove deletes one file of the store and frees its bytes. It refuses, like
// Resolve, any path that is not a live file of this store.
func (s *Store) Remove(path string) error {
	real, err := s.Resolve(path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.files[filepath.Base(real)]
	if !ok {
		return fmt.Errorf("remove spill file: %w", ErrNotSpillFile)
	}
	delete(s.files, filepath.Base(real))
	s.used.Add(-t.file.Bytes)
	if err := os.Remove(real); err != nil {
		return fmt.Errorf("remove spill file: %w", err)
	}
	return nil
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close deletes the store's directory and everything in it, or, for a kept
// store, only forgets its files. It is idempotent and safe to call
// concurrently with any other method, e.g. from a signal handler; later
// calls to Create and Resolve fail with ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.files = make(map[string]*tracked)
	if s.keep {
		return nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("close spill store: %w", err)
	}
	return nil
}

// Resolve confines reads to this store: it returns the absolute path of
// path if, and only if, it names a live file this Store created. A relative
// path is taken relative to the store's directory, so a bare file name
// works. The cleaned path must name the file inside the store's directory
// itself and the file must not be a symlink: symlinks into or out of the
// directory, "..", other directories, /proc and other stores' files are all
// refused, as is a file deleted or replaced since it was created. The error
// wraps ErrNotSpillFile and lists the files that may be read. To read the
// file, use Open: the name Resolve checked can be swapped before it is
// opened again.
func (s *Store) Resolve(path string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", fmt.Errorf("resolve spill file: %w", ErrClosed)
	}
	if path == "" {
		return "", s.refuse(path, "no path given")
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.dir, p)
	}
	p = filepath.Clean(p)
	if d := filepath.Dir(p); d != s.dir && d != s.openedDir {
		return "", s.refuse(path, "it is not in the spill directory")
	}
	t, ok := s.files[filepath.Base(p)]
	if !ok {
		return "", s.refuse(path, "it was not created by this store")
	}
	// The file must still be the very file we wrote: not a symlink, not a
	// replacement.
	fi, err := os.Lstat(p)
	if err != nil {
		return "", s.refuse(path, "it no longer exists")
	}
	if !fi.Mode().IsRegular() {
		return "", s.refuse(path, "it is not a regular file")
	}
	if !os.SameFile(fi, t.info) {
		return "", s.refuse(path, "it was replaced since it was created")
	}
	return t.file.Path, nil
}

// Open opens a live file of this store for reading, under the rules of
// Resolve, and checks the file it opened, not the name: it opens the base
// name inside the store's directory (safefile.OpenIn, which refuses a
// symlink out and never blocks on a FIFO) and requires the opened file to
// be the very file Create wrote. A file swapped for another between the
// check and the read is therefore refused, never read. The file's Name is
// its absolute path; the caller closes it.
func (s *Store) Open(path string) (*os.File, error) {
	p, err := s.Resolve(path)
	if err != nil {
		return nil, err
	}
	f, err := safefile.OpenIn(s.dir, filepath.Base(p))
	if err != nil {
		return nil, s.refuseLocked(path, fmt.Sprintf("it cannot be opened (%v)", errors.Unwrap(err)))
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open spill file: %w", err), f.Close())
	}
	if !s.isFile(filepath.Base(p), fi) {
		return nil, errors.Join(s.refuseLocked(path, "it was replaced since it was created"), f.Close())
	}
	return f, nil
}

// isFile reports whether fi is the file this store created under name.
func (s *Store) isFile(name string, fi os.FileInfo) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.files[name]
	return ok && os.SameFile(fi, t.info)
}

// refuseLocked is refuse for a caller not holding s.mu.
func (s *Store) refuseLocked(path, why string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refuse(path, why)
}

// refuse builds Resolve's error; s.mu is held.
func (s *Store) refuse(path, why string) error {
	const maxListed = 20
	names := make([]string, 0, len(s.files))
	for _, t := range s.files {
		names = append(names, t.file.Name)
	}
	sort.Strings(names)
	var allowed string
	switch {
	case len(names) == 0:
		allowed = "no spill files exist yet"
	case len(names) > maxListed:
		allowed = fmt.Sprintf("readable files (in %s): %s, … and %d more", s.dir, strings.Join(names[:maxListed], ", "), len(names)-maxListed)
	default:
		allowed = fmt.Sprintf("readable files (in %s): %s", s.dir, strings.Join(names, ", "))
	}
	return fmt.Errorf("%w: %q: %s; only files this process spilled may be read; %s", ErrNotSpillFile, path, why, allowed)
}
