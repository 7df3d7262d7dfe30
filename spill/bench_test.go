package spill

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"
)

// benchSize is the size of the generated file for the readback benchmarks:
// SPILL_BENCH_MB megabytes, default 64 (a script runs the 1 GB case).
func benchSize(b *testing.B) int64 {
	mb := int64(64)
	if v := os.Getenv("SPILL_BENCH_MB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("SPILL_BENCH_MB=%q: want a positive number of megabytes", v)
		}
		mb = n
	}
	return mb << 20
}

// writeBenchJSON writes a pretty-printed JSON object {"items": [...]} of
// about size bytes, one field per line, into dir.
func writeBenchJSON(b *testing.B, dir string, size int64) string {
	b.Helper()
	path := filepath.Join(dir, "bench.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := writeItems(w, size); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// writeItems writes the benchmark document and returns its size.
func writeItems(w io.Writer, size int64) (int64, error) {
	var n int64
	put := func(s string) error {
		k, err := io.WriteString(w, s)
		n += int64(k)
		return err
	}
	if err := put("{\n  \"items\": [\n"); err != nil {
		return n, err
	}
	for i := 0; n < size; i++ {
		sep := ",\n"
		if err := put(fmt.Sprintf("    {\n      \"id\": %d,\n      \"name\": \"item-%d\",\n      \"size\": %d,\n      \"status\": \"%s\",\n      \"description\": \"a generated record used to benchmark streaming readback of large spill files\"\n    }", i, i, (i*7919)%100000, [...]string{"ok", "warn", "error"}[i%3])); err != nil {
			return n, err
		}
		if n >= size {
			sep = "\n"
		}
		if err := put(sep); err != nil {
			return n, err
		}
	}
	return n, put("  ]\n}\n")
}

// peakHeap samples the live heap until stop is called and returns the
// highest value seen, in bytes.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	var (
		peak = read()
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				peak = max(peak, read())
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return max(peak, read())
	}
}

func reportPeak(b *testing.B, stop func() uint64) {
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
}

func BenchmarkGrep(b *testing.B) {
	size := benchSize(b)
	path := writeBenchJSON(b, b.TempDir(), size)
	for _, bc := range []struct{ name, pattern string }{
		{"rare", `"id": 4242,`},
		{"common", `"status": "error"`},
		{"regex", `"size": 9\d{4},`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			stop := peakHeap()
			var r *GrepResult
			for b.Loop() {
				var err error
				if r, err = Grep(path, GrepOptions{Pattern: bc.pattern, Context: 2}); err != nil {
					b.Fatal(err)
				}
			}
			reportPeak(b, stop)
			b.ReportMetric(float64(r.TotalMatches), "matches")
		})
	}
}

func BenchmarkCreate(b *testing.B) {
	const size = 100 << 20
	s, err := Open(Options{Dir: b.TempDir(), MaxBytes: 4 * size})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			b.Error(err)
		}
	}()
	b.SetBytes(size)
	stop := peakHeap()
	for b.Loop() {
		f, err := s.Create(FormatJSON, func(w io.Writer) error {
			_, err := writeItems(w, size)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Remove(f.Path); err != nil {
			b.Fatal(err)
		}
	}
	reportPeak(b, stop)
}

// BenchmarkReadback runs the other operations over the same large file.
func BenchmarkReadback(b *testing.B) {
	size := benchSize(b)
	path := writeBenchJSON(b, b.TempDir(), size)
	ops := []struct {
		name string
		run  func() error
	}{
		{"Stat", func() error { _, err := Stat(path); return err }},
		{"Tail", func() error { _, err := Tail(path, 200); return err }},
		{"SliceEnd", func() error {
			s, err := Stat(path)
			if err != nil {
				return err
			}
			_, err = Slice(path, s.Lines-10, s.Lines)
			return err
		}},
		{"Read", func() error { _, err := Read(path, size/2, DefaultMaxReadBytes); return err }},
		{"Query", func() error { _, err := Query(path, "items.#(size>99990)#.name"); return err }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.SetBytes(size)
			stop := peakHeap()
			for b.Loop() {
				if err := op.run(); err != nil {
					b.Fatal(err)
				}
			}
			reportPeak(b, stop)
		})
	}
}
