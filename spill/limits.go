package spill

import (
	"context"
	"io"
	"os"
)

// Default bounds of the readback operations. A zero field in Limits means
// the matching default.
const (
	// DefaultMaxLines is the most lines Head, Tail, Slice and Grep return in
	// one call (context lines included). A larger request is clamped, and the
	// result says so.
	DefaultMaxLines = 200

	// DefaultMaxOutputBytes bounds the text of one result (32 KiB). Lines past
	// it are left out, and the result says where to continue.
	DefaultMaxOutputBytes = 32 << 10

	// DefaultMaxLineBytes is the most bytes of one line any line-based
	// operation returns (2 KiB). A longer line is cut with the marker
	// "…[+N bytes]" and a hint to use Read with the line's offset.
	DefaultMaxLineBytes = 2 << 10

	// DefaultReadBytes is how many bytes Read returns when asked for 0 (16 KiB).
	DefaultReadBytes = 16 << 10

	// DefaultMaxReadBytes is the hard cap on one Read (32 KiB, the same as
	// DefaultMaxOutputBytes); a larger request is clamped, and the result
	// says so.
	DefaultMaxReadBytes = 32 << 10

	// DefaultMaxMatches is how many matching lines Grep shows when
	// GrepOptions.MaxMatches is 0. It always counts all of them.
	DefaultMaxMatches = 50

	// DefaultMaxContext is the most context lines Grep shows around a match
	// on each side; a larger request is clamped, and the result says so.
	DefaultMaxContext = 10

	// DefaultMaxKeys is the most top-level keys Stat (and Query's error
	// messages) list; the total count is always given.
	DefaultMaxKeys = 50

	// DefaultMaxBytes is the default total size of one Store (1 GiB).
	DefaultMaxBytes = 1 << 30
)

// Limits bounds the output of the readback operations. The zero value means
// all defaults; callers override single fields from flags. Negative values
// are treated as 0 (the default).
type Limits struct {
	MaxLines       int   // lines per Head/Tail/Slice/Grep; default DefaultMaxLines
	MaxOutputBytes int   // bytes of one result's text; default DefaultMaxOutputBytes
	MaxLineBytes   int   // bytes of one line; default DefaultMaxLineBytes
	ReadBytes      int64 // Read size when 0 is asked; default DefaultReadBytes
	MaxReadBytes   int64 // hard cap of one Read; default DefaultMaxReadBytes
	MaxMatches     int   // Grep matches shown when 0 is asked; default DefaultMaxMatches
	MaxContext     int   // Grep context lines per side; default DefaultMaxContext
	MaxKeys        int   // keys listed by Stat; default DefaultMaxKeys

	// ctx ends an operation early (WithContext): its reads and scans
	// look at it every chunk, so a cancelled request or an ended run
	// stops a grep of a gigabyte file within milliseconds.
	ctx context.Context
}

// WithContext returns l with ctx bounding each operation: once ctx ends,
// the operation stops reading and returns its cause.
func (l Limits) WithContext(ctx context.Context) Limits {
	l.ctx = ctx
	return l
}

// context is the operation's context; Background when none was given.
func (l Limits) context() context.Context {
	if l.ctx == nil {
		return context.Background()
	}
	return l.ctx
}

// fromStart reads f from its first byte, wherever its offset is, and
// fails with the context's cause once it ends.
func (l Limits) fromStart(f *os.File) io.Reader {
	return ctxReader{ctx: l.context(), r: fromStart(f)}
}

// ctxReader fails its next Read once ctx ends. Readers read in
// readBufSize pieces, so that is how often it looks.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// DefaultLimits returns the defaults, spelled out.
func DefaultLimits() Limits { return Limits{}.withDefaults() }

func (l Limits) withDefaults() Limits {
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	pick64 := func(v, def int64) int64 {
		if v <= 0 {
			return def
		}
		return v
	}
	l.MaxLines = pick(l.MaxLines, DefaultMaxLines)
	l.MaxOutputBytes = pick(l.MaxOutputBytes, DefaultMaxOutputBytes)
	l.MaxLineBytes = pick(l.MaxLineBytes, DefaultMaxLineBytes)
	l.ReadBytes = pick64(l.ReadBytes, DefaultReadBytes)
	l.MaxReadBytes = pick64(l.MaxReadBytes, DefaultMaxReadBytes)
	l.MaxMatches = pick(l.MaxMatches, DefaultMaxMatches)
	l.MaxContext = pick(l.MaxContext, DefaultMaxContext)
	l.MaxKeys = pick(l.MaxKeys, DefaultMaxKeys)
	if l.ReadBytes > l.MaxReadBytes {
		l.ReadBytes = l.MaxReadBytes
	}
	return l
}
