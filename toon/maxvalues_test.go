package toon

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// A hostile dense document ("1," per value) is refused, at the default
// limit and at a small one, and allocates in proportion to the limit, not
// to the values the document declares.
func TestDecode_MaxValues(t *testing.T) {
	const n = 5_000_000 // past DefaultMaxDecodeValues
	docs := map[string]string{
		"inline":  "[" + itoa(n) + "]: " + strings.TrimSuffix(strings.Repeat("1,", n), ","),
		"list":    "[" + itoa(n) + "]:\n" + strings.Repeat("  - 1\n", n),
		"tabular": "[" + itoa(n) + "]{a,b}:\n" + strings.Repeat("  1,2\n", n),
	}
	for name, doc := range docs {
		for _, limit := range []int{0, 100_000} {
			t.Run(name+"/MaxValues="+itoa(limit), func(t *testing.T) {
				opts := DefaultDecodeOptions()
				opts.MaxValues = limit
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				_, err := Decode([]byte(doc), opts)
				runtime.ReadMemStats(&after)
				var de *DecodeError
				if !errors.As(err, &de) || !errors.Is(err, ErrTooManyValues) || !strings.Contains(err.Error(), "MaxValues") {
					t.Fatalf("decode of %d values: %v, want a DecodeError wrapping ErrTooManyValues", n, err)
				}
				// What is allocated: Decode's copy of the document, and
				// the values up to the limit (32 bytes each, and the
				// garbage of growing their slice).
				if limit == 0 {
					return // the default's bound is too large to hold here
				}
				if grew, bound := after.TotalAlloc-before.TotalAlloc, 2*uint64(len(doc))+256*uint64(limit); grew > bound {
					t.Errorf("refusing %d MB allocated %d MB, more than %d MB", len(doc)>>20, grew>>20, bound>>20)
				}
			})
		}
	}
	t.Run("option", func(t *testing.T) {
		doc := []byte("a: 1\nb[2]: 1,2\n")
		if _, err := Decode(doc, DecodeOptions{MaxValues: 3}); !errors.Is(err, ErrTooManyValues) {
			t.Errorf("MaxValues 3 on 4 values: %v, want ErrTooManyValues", err)
		}
		if v, err := Decode(doc, DecodeOptions{MaxValues: 4}); err != nil || v.Len() != 2 {
			t.Errorf("MaxValues 4 on 4 values: %v, %v", v, err)
		}
		if _, err := Decode(doc, DecodeOptions{MaxValues: -1}); err == nil {
			t.Error("negative MaxValues accepted")
		}
	})
}

func itoa(n int) string { return Int(int64(n)).Text() }
