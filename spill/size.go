package spill

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
)

// ParseSize parses a byte size such as "51200", "50KiB" (51200), "50KB"
// (50000) or "1.5MiB". Units are case-insensitive; KB/MB/GB are powers of
// 1000 and KiB/MiB/GiB powers of 1024, as in go-humanize's ParseBytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("parse size: empty; want a byte count like 51200, 50KiB, 50KB or 1.5MiB")
	}
	if strings.HasPrefix(t, "-") {
		return 0, fmt.Errorf("parse size %q: negative sizes are not allowed", s)
	}
	n, err := humanize.ParseBytes(t)
	if err != nil && strings.HasPrefix(err.Error(), "too large") {
		return 0, fmt.Errorf("parse size %q: too large", s)
	}
	if err != nil {
		// humanize's own error ("strconv.ParseFloat: parsing \"\"") says
		// nothing a user can act on.
		return 0, fmt.Errorf("parse size %q: want a byte count like 51200, 50KiB, 50KB or 1.5MiB", s)
	}
	if n > math.MaxInt64 {
		return 0, fmt.Errorf("parse size %q: too large", s)
	}
	return int64(n), nil
}

// EstimateTokens estimates how many LLM tokens bytes of text cost: one token
// per four bytes, rounded up. It is a rough guide, not a tokenizer.
func EstimateTokens(bytes int64) int64 {
	if bytes <= 0 {
		return 0
	}
	return bytes/4 + min(bytes%4, 1)
}

// Preview returns at most max bytes of data as a string, cut on a UTF-8 rune
// boundary. When data is longer, the cut is marked with "…[+N bytes]", N
// being the number of bytes left out.
func Preview(data []byte, max int) string {
	if max < 0 {
		max = 0
	}
	if len(data) <= max {
		return string(data)
	}
	cut := runeCut(data, max)
	return string(data[:cut]) + cutMarker(int64(len(data)-cut))
}

// PreviewOf is Preview for a file of total bytes of which only the first
// bytes, prefix, are at hand (File.Prefix, or a short Read): the cut marker
// counts the bytes left out of the whole file, not of the prefix.
func PreviewOf(prefix []byte, total int64, max int) string {
	if max < 0 {
		max = 0
	}
	cut := runeCut(prefix, max)
	if int64(cut) >= total {
		return string(prefix[:cut])
	}
	return string(prefix[:cut]) + cutMarker(total-int64(cut))
}

// humanBytes formats n in IEC units ("1.0 GiB").
func humanBytes(n int64) string {
	if n < 0 {
		return fmt.Sprintf("%d B", n)
	}
	return humanize.IBytes(uint64(n))
}

// cutMarker is the visible marker appended where text was cut.
func cutMarker(n int64) string {
	return fmt.Sprintf("…[+%d bytes]", n)
}

// runeCut returns the largest i <= max such that data[:i] does not end in the
// middle of a UTF-8 encoded rune. Invalid bytes count as one-byte runes.
func runeCut(data []byte, max int) int {
	if max >= len(data) {
		return len(data)
	}
	if max <= 0 {
		return 0
	}
	// Look back at most utf8.UTFMax-1 bytes for the start of the rune that
	// data[max] belongs to.
	for i := max; i >= 0 && i > max-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if i == max {
				return max
			}
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				// Invalid bytes: data[max] does not continue a valid rune.
				return max
			}
			if i+size > max {
				return i
			}
			return max
		}
	}
	return max
}
