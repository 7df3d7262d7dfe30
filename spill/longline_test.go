package spill

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// writeLongLine writes a file of one line of size bytes of 'a's, with
// tail at its end; it returns the opened file.
func writeLongLine(t testing.TB, size int, tail string) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "long.txt")
	data := append(bytes.Repeat([]byte("a"), size-len(tail)), tail...)
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Lines longer than the buffer get the answers short lines get, whether
// the literal search decides them or the regexp reads them again.
func TestLimits_GrepLongLines(t *testing.T) {
	const size = 3*readBufSize + 123
	for _, tt := range []struct {
		name, tail, pattern string
		want                int64
	}{
		{"literal absent", "bbb", "zzz", 0},
		{"literal at the end", "xyZZz", "zzz", 1},
		{"literal across a piece boundary", strings.Repeat("b", readBufSize-2) + "Zzz" + strings.Repeat("b", 40), "zzz", 1},
		{"one-letter literal", "X", "x", 1},
		{"kelvin sign matches k", "\u212a", "k", 1},
		{"required literal present, no match", "zz-", `zz\d+`, 0},
		{"required literal present, match", "zz9", `zz\d+`, 1},
		{"required literal absent", "bbb", `zz\d+`, 0},
		{"no literal", "b1", `b\d`, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := writeLongLine(t, size, tt.tail)
			r, err := Limits{}.Grep(f, GrepOptions{Pattern: tt.pattern})
			if err != nil {
				t.Fatal(err)
			}
			if r.TotalMatches != tt.want || r.TotalLines != 1 {
				t.Errorf("grep %q: %d matches in %d lines, want %d in 1", tt.pattern, r.TotalMatches, r.TotalLines, tt.want)
			}
		})
	}
}

// A cancelled context stops a grep, a line count and a query partway.
func TestLimits_OpsStopWhenContextEnds(t *testing.T) {
	f := writeLongLine(t, 64<<20, "b1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lim := Limits{}.WithContext(ctx)
	if _, err := lim.Grep(f, GrepOptions{Pattern: `b\d`}); !errors.Is(err, context.Canceled) {
		t.Errorf("grep after cancel: %v, want context.Canceled", err)
	}
	if _, err := lim.Stat(f); !errors.Is(err, context.Canceled) {
		t.Errorf("stat after cancel: %v, want context.Canceled", err)
	}
	if _, err := lim.Tail(f, 1); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("tail after cancel: %v", err)
	}
	jsonFile := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(jsonFile, []byte(`{"a":"`+strings.Repeat("x", 16<<20)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	jf, err := os.Open(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	if _, err := lim.Query(jf, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("query after cancel: %v, want context.Canceled", err)
	}

	// Cancelled mid-way, the slow regexp path of a long line stops too.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := (Limits{}).WithContext(ctx).Grep(f, GrepOptions{Pattern: `b\d`}); !errors.Is(err, context.Canceled) {
		t.Errorf("grep cancelled while reading: %v, want context.Canceled", err)
	}
}

// BenchmarkGrepLongLine: one line of SPILL_BENCH_MB (default 64) MiB, read
// by the old path (the regexp's rune reader) and by the literal search,
// in the same run.
func BenchmarkGrepLongLine(b *testing.B) {
	size := int(benchSize(b))
	f := writeLongLine(b, size, "b1")
	for _, pattern := range []string{"zzz", "x", `zz\d+`} {
		re := mustCompileFold(b, pattern)
		for _, path := range []string{"regexp-reader", "literal-search"} {
			b.Run(pattern+"/"+path, func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					m := newLineMatcher(re)
					lr := newLineReader(fromStart(f), DefaultMaxLineBytes, m, 0)
					if path == "literal-search" {
						lr.quick = newLongFilter(m, re.String())
						lr.reread = func(off, n int64) io.Reader { return io.NewSectionReader(f, off, n) }
					}
					for lr.next() {
						if lr.match {
							b.Fatal("matched")
						}
					}
					if lr.Err() != nil {
						b.Fatal(lr.Err())
					}
				}
			})
		}
	}
}

func mustCompileFold(b *testing.B, pattern string) *regexp.Regexp {
	b.Helper()
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		b.Fatal(err)
	}
	return re
}
