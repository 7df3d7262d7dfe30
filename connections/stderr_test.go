package connections

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTailBuffer_Write(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string // the buffer's contents afterwards
	}{
		{name: "under the limit", limit: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exactly the limit", limit: 6, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "over by one", limit: 6, writes: []string{"abc", "defg"}, want: "bcdefg"},
		{name: "one write of the limit", limit: 4, writes: []string{"xy", "abcd"}, want: "abcd"},
		{name: "one write over the limit", limit: 4, writes: []string{"xy", "0123456789"}, want: "6789"},
		{name: "large write then small", limit: 4, writes: []string{"0123456789", "ab"}, want: "89ab"},
		{name: "many small writes", limit: 5, writes: strings.Split("abcdefghijklmnopqrstuvwxyz", ""), want: "vwxyz"},
		{name: "empty writes", limit: 3, writes: []string{"", "ab", "", "cd", ""}, want: "bcd"},
		{name: "default limit", limit: 0, writes: []string{strings.Repeat("x", DefaultStderrLimit+10)}, want: strings.Repeat("x", DefaultStderrLimit)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTailBuffer(tt.limit)
			total := 0
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				total += len(w)
			}
			if got := string(b.buf); got != tt.want {
				t.Errorf("buffer = %q, want %q", got, tt.want)
			}
			if want := int64(total - len(tt.want)); b.dropped != want {
				t.Errorf("dropped = %d, want %d", b.dropped, want)
			}
		})
	}
}

func TestTailBuffer_WriteMany(t *testing.T) {
	// Many writes of varying sizes, some larger than the limit: the buffer
	// always holds exactly the last limit bytes of everything written.
	const limit = 1000
	b := newTailBuffer(limit)
	var all bytes.Buffer
	for i := range 3000 {
		size := (i * 37) % 250
		if i%500 == 499 {
			size = limit + 1 + i%7
		}
		chunk := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		copy(chunk, strconv.Itoa(i))
		b.Write(chunk)
		all.Write(chunk)
		if len(b.buf) > limit {
			t.Fatalf("after write %d: %d bytes kept, limit %d", i, len(b.buf), limit)
		}
		if cap(b.buf) > 4*limit {
			t.Fatalf("after write %d: capacity %d grew past %d", i, cap(b.buf), 4*limit)
		}
	}
	want := all.Bytes()[all.Len()-limit:]
	if !bytes.Equal(b.buf, want) {
		t.Errorf("buffer holds %q..., want the last %d bytes %q...", b.buf[:20], limit, want[:20])
	}
	b.Reset()
	if len(b.buf) != 0 || b.Tail(10, 100) != "" {
		t.Errorf("after Reset: %q", b.buf)
	}
}

func TestTailBuffer_Tail(t *testing.T) {
	tests := []struct {
		name     string
		limit    int
		written  string
		lines    int
		maxBytes int
		want     string
	}{
		{name: "empty", limit: 100, written: "", lines: 5, maxBytes: 100, want: ""},
		{name: "all", limit: 100, written: "a\nb\nc\n", lines: 5, maxBytes: 100, want: "a\nb\nc"},
		{name: "trailing blanks trimmed", limit: 100, written: "a\nb\r\n\n \t\n", lines: 5, maxBytes: 100, want: "a\nb"},
		{name: "last lines", limit: 100, written: "1\n2\n3\n4\n5\n", lines: 2, maxBytes: 100, want: "4\n5"},
		{name: "one line", limit: 100, written: "1\n2\n3", lines: 1, maxBytes: 100, want: "3"},
		{name: "zero lines", limit: 100, written: "1\n2\n3", lines: 0, maxBytes: 100, want: ""},
		{name: "zero bytes", limit: 100, written: "1\n2\n3", lines: 5, maxBytes: 0, want: ""},
		{name: "negative bytes", limit: 100, written: "1\n2\n3", lines: 5, maxBytes: -1, want: ""},
		{name: "byte cut drops the partial line", limit: 100, written: "first line\nsecond\nthird\n", lines: 5, maxBytes: 14, want: "second\nthird"},
		{name: "byte cut at a line start", limit: 100, written: "first\nsecond\nthird\n", lines: 5, maxBytes: 12, want: "second\nthird"},
		// A cut inside the only line keeps nothing before a word boundary:
		// the cut may have gone through a secret, whose remaining part the
		// redactor would not recognize.
		{name: "byte cut inside the only line", limit: 100, written: "abcdefghij", lines: 5, maxBytes: 4, want: ""},
		{name: "byte cut inside a secret", limit: 100, written: `env: PASS="SUPERSECRET1234", next: ok`, lines: 5, maxBytes: 24, want: `", next: ok`},
		{name: "byte cut at a boundary", limit: 100, written: "some words here", lines: 5, maxBytes: 10, want: "words here"},
		{name: "byte cut never splits a rune", limit: 100, written: "éé éé", lines: 5, maxBytes: 5, want: "éé"},
		{name: "buffer limit drops the partial line", limit: 12, written: "token=abcdefgh\nok\nend\n", lines: 5, maxBytes: 100, want: "ok\nend"},
		{name: "buffer limit at a line start", limit: 7, written: "abcdef\nok\nend\n", lines: 5, maxBytes: 100, want: "ok\nend"},
		{name: "buffer limit never splits a rune", limit: 5, written: "日本 語", lines: 5, maxBytes: 100, want: "語"},
		{name: "buffer limit inside a secret", limit: 20, written: `x="SUPERSECRETVALUE1234567890",y=1`, lines: 5, maxBytes: 100, want: `",y=1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTailBuffer(tt.limit)
			b.Write([]byte(tt.written))
			got := b.Tail(tt.lines, tt.maxBytes)
			if got != tt.want {
				t.Errorf("Tail(%d, %d) = %q, want %q", tt.lines, tt.maxBytes, got, tt.want)
			}
			if tt.maxBytes >= 0 && len(got) > tt.maxBytes {
				t.Errorf("Tail(%d, %d) is %d bytes long", tt.lines, tt.maxBytes, len(got))
			}
			if n := strings.Count(got, "\n") + 1; got != "" && n > tt.lines {
				t.Errorf("Tail(%d, %d) has %d lines", tt.lines, tt.maxBytes, n)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Tail(%d, %d) = %q is not valid UTF-8", tt.lines, tt.maxBytes, got)
			}
		})
	}
}

func TestTailBuffer_TailBounds(t *testing.T) {
	// Whatever was written, Tail stays within its bounds.
	b := newTailBuffer(4096)
	for i := range 2000 {
		b.Write([]byte("line " + strconv.Itoa(i) + " " + strings.Repeat("é", i%40) + "\n"))
		for _, bound := range []struct{ lines, bytes int }{{1, 10}, {3, 50}, {10, 2048}, {100, 8192}} {
			got := b.Tail(bound.lines, bound.bytes)
			if len(got) > bound.bytes {
				t.Fatalf("write %d: Tail(%d, %d) is %d bytes", i, bound.lines, bound.bytes, len(got))
			}
			if n := strings.Count(got, "\n") + 1; n > bound.lines {
				t.Fatalf("write %d: Tail(%d, %d) has %d lines", i, bound.lines, bound.bytes, n)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("write %d: Tail(%d, %d) = %q is not valid UTF-8", i, bound.lines, bound.bytes, got)
			}
		}
	}
	if got, want := b.Tail(1, 100), "line 1999 "+strings.Repeat("é", 1999%40); got != want {
		t.Errorf("Tail(1, 100) = %q, want %q", got, want)
	}
}
