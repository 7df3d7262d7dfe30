package spill

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestLimits_Head(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes
	tests := []struct {
		name      string
		content   string
		n         int
		lim       Limits
		wantTexts []string
		wantMore  bool
		wantTrunc bool
		notes     []string
	}{
		{"first lines", numbered(10), 3, Limits{}, []string{"line 1", "line 2", "line 3"}, true, false, []string{"lines 1-3 shown; more lines follow: continue with slice fromLine=4"}},
		{"whole file", numbered(2), 5, Limits{}, []string{"line 1", "line 2"}, false, false, []string{"the file ends at line 2"}},
		{"no trailing newline", "a\nb", 5, Limits{}, []string{"a", "b"}, false, false, nil},
		{"crlf", "a\r\nb\r\n", 5, Limits{}, []string{"a", "b"}, false, false, nil},
		{"empty file", "", 5, Limits{}, nil, false, false, []string{"the file is empty"}},
		{"clamped to MaxLines", numbered(10), 8, Limits{MaxLines: 5}, []string{"line 1", "line 2", "line 3", "line 4", "line 5"}, true, true,
			[]string{"asked for 8 lines; at most 5 are returned per call (clamped)", "continue with slice fromLine=6"}},
		{"byte cap", numbered(100), 100, Limits{MaxOutputBytes: 30}, []string{"line 1", "line 2", "line 3"}, true, true,
			[]string{"output capped at 30 B: stopped after line 3; continue with slice fromLine=4"}},
		{"long line cut on a rune boundary", "x\n" + long + "\n", 5, Limits{}, []string{"x", strings.Repeat("é", 1024)}, false, true,
			[]string{"1 line(s) longer than 2.0 KiB were cut", "read offset=", "line 2, byte offset 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "f.txt", tt.content)
			r, err := tt.lim.Head(openFile(t, path), tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(r.Lines); !slices.Equal(got, tt.wantTexts) {
				t.Errorf("lines = %q, want %q", got, tt.wantTexts)
			}
			if r.More != tt.wantMore || r.Truncated != tt.wantTrunc {
				t.Errorf("More=%v Truncated=%v, want %v %v", r.More, r.Truncated, tt.wantMore, tt.wantTrunc)
			}
			mustContain(t, "text", r.Text(), tt.notes...)
		})
	}
	t.Run("marker", func(t *testing.T) {
		path := writeTemp(t, "f.txt", long+"\n")
		r, err := Head(path, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Lines[0].Cut != 6000-2048 {
			t.Errorf("Cut = %d", r.Lines[0].Cut)
		}
		mustContain(t, "text", r.Text(), "1:"+strings.Repeat("é", 1024)+"…[+3952 bytes]\n")
	})
	t.Run("bad n", func(t *testing.T) {
		path := writeTemp(t, "f.txt", "a\n")
		if _, err := Head(path, 0); err == nil || !strings.Contains(err.Error(), "at least 1") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := Head("/nonexistent/x", 1); err == nil || !strings.HasPrefix(err.Error(), "head: ") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("directory", func(t *testing.T) {
		if _, err := Head(t.TempDir(), 1); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestLimits_Tail(t *testing.T) {
	tests := []struct {
		name      string
		content   string
		n         int
		lim       Limits
		wantTexts []string
		wantNums  []int64
		wantTrunc bool
		notes     []string
	}{
		{"last lines", numbered(10), 3, Limits{}, []string{"line 8", "line 9", "line 10"}, []int64{0, 0, 0}, false,
			[]string{"last 3 lines, from byte offset 49 to the end"}},
		{"no trailing newline", "a\nb\nc", 2, Limits{}, []string{"b", "c"}, []int64{0, 0}, false, nil},
		{"whole file is numbered", "a\nb\n", 5, Limits{}, []string{"a", "b"}, []int64{1, 2}, false, []string{"the whole file: 2 lines"}},
		{"exactly n lines", "a\nb\n", 2, Limits{}, []string{"a", "b"}, []int64{1, 2}, false, nil},
		{"crlf", "a\r\nb\r\nc\r\n", 2, Limits{}, []string{"b", "c"}, []int64{0, 0}, false, nil},
		{"empty lines at the end", "a\n\n\n", 2, Limits{}, []string{"", ""}, []int64{0, 0}, false, nil},
		{"empty file", "", 3, Limits{}, nil, []int64{}, false, []string{"the file is empty"}},
		{"clamped", numbered(10), 50, Limits{MaxLines: 2}, []string{"line 9", "line 10"}, []int64{0, 0}, true,
			[]string{"asked for 50 lines; at most 2 are returned per call (clamped)"}},
		{"byte cap keeps the last lines", numbered(100), 5, Limits{MaxOutputBytes: 20}, []string{"line 99", "line 100"}, []int64{0, 0}, true,
			[]string{"output capped at 20 B: showing only the last 2 lines"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "f.txt", tt.content)
			r, err := tt.lim.Tail(openFile(t, path), tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(r.Lines); !slices.Equal(got, tt.wantTexts) {
				t.Errorf("lines = %q, want %q", got, tt.wantTexts)
			}
			if got := numbers(r.Lines); len(got) > 0 && !slices.Equal(got, tt.wantNums) {
				t.Errorf("numbers = %v, want %v", got, tt.wantNums)
			}
			if r.Truncated != tt.wantTrunc {
				t.Errorf("Truncated=%v, want %v", r.Truncated, tt.wantTrunc)
			}
			mustContain(t, "text", r.Text(), tt.notes...)
		})
	}
	t.Run("offsets", func(t *testing.T) {
		path := writeTemp(t, "f.txt", "ab\ncd\nef")
		r, err := Tail(path, 2)
		if err != nil {
			t.Fatal(err)
		}
		if r.Lines[0].Offset != 3 || r.Lines[1].Offset != 6 {
			t.Errorf("offsets = %d %d, want 3 6", r.Lines[0].Offset, r.Lines[1].Offset)
		}
		if r.Text() != "cd\nef\n[last 2 lines, from byte offset 3 to the end (tail does not number lines; stat gives the total)]\n" {
			t.Errorf("text = %q", r.Text())
		}
	})
	t.Run("bad n", func(t *testing.T) {
		path := writeTemp(t, "f.txt", "a\n")
		if _, err := Tail(path, -1); err == nil {
			t.Error("no error")
		}
	})
}

func TestLimits_Slice(t *testing.T) {
	path := writeTemp(t, "f.txt", numbered(20))
	tests := []struct {
		name      string
		from, to  int64
		lim       Limits
		wantNums  []int64
		wantErr   string
		wantTrunc bool
		notes     []string
	}{
		{"middle", 5, 7, Limits{}, []int64{5, 6, 7}, "", false, []string{"5:line 5\n6:line 6\n7:line 7\n", "more lines follow: continue with slice fromLine=8"}},
		{"one line", 20, 20, Limits{}, []int64{20}, "", false, []string{"the file ends at line 20"}},
		{"to past the end", 19, 100, Limits{}, []int64{19, 20}, "", false, []string{"the file ends at line 20"}},
		{"clamped", 1, 20, Limits{MaxLines: 3}, []int64{1, 2, 3}, "", true, []string{"asked for 20 lines; at most 3", "continue with slice fromLine=4"}},
		{"from below 1", 0, 3, Limits{}, nil, "from must be at least 1", false, nil},
		{"to before from", 5, 4, Limits{}, nil, "to (4) is before from (5)", false, nil},
		{"from past the end", 21, 30, Limits{}, nil, "fromLine=21 is past the end of the file: it has 20 lines", false, nil},
		{"from far past the end", 500, 600, Limits{}, nil, "it has 20 lines", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.lim.Slice(openFile(t, path), tt.from, tt.to)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := numbers(r.Lines); !slices.Equal(got, tt.wantNums) {
				t.Errorf("numbers = %v, want %v", got, tt.wantNums)
			}
			if r.Truncated != tt.wantTrunc {
				t.Errorf("Truncated = %v", r.Truncated)
			}
			mustContain(t, "text", r.Text(), tt.notes...)
		})
	}
	t.Run("empty file", func(t *testing.T) {
		_, err := Slice(writeTemp(t, "e.txt", ""), 1, 2)
		if err != nil {
			t.Errorf("slice 1-2 of an empty file: %v", err)
		}
		_, err = Slice(writeTemp(t, "e.txt", ""), 2, 2)
		if err == nil || !strings.Contains(err.Error(), "it has 0 lines") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestLimits_Head_hugeLine(t *testing.T) {
	// A single 10 MB line: kept bytes stay at MaxLineBytes.
	line := strings.Repeat("0123456789", 1<<20)
	path := writeTemp(t, "big.txt", line+"\nnext\n")
	r, err := Head(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Lines) != 2 || len(r.Lines[0].Text) != DefaultMaxLineBytes || r.Lines[0].Cut != int64(len(line)-DefaultMaxLineBytes) || r.Lines[1].Text != "next" {
		t.Fatalf("lines: %d, first %d bytes cut %d", len(r.Lines), len(r.Lines[0].Text), r.Lines[0].Cut)
	}
	if r.Lines[1].Offset != int64(len(line)+1) {
		t.Errorf("offset of line 2 = %d", r.Lines[1].Offset)
	}
	tr, err := Tail(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Lines) != 2 || tr.Lines[0].Cut != int64(len(line)-DefaultMaxLineBytes) || tr.Lines[1].Text != "next" {
		t.Errorf("tail: %+v", tr.Lines)
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r    io.ReaderAt
	read int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read += int64(n)
	return n, err
}

func TestTailStart_readsFromTheEnd(t *testing.T) {
	// A 1 GiB sparse file with three lines at the end: tail must not read it all.
	path := writeTemp(t, "sparse.txt", "")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const size = 1 << 30
	tailText := "\nx\ny\nz\n"
	if _, err := f.WriteAt([]byte(tailText), size-int64(len(tailText))); err != nil {
		t.Fatal(err)
	}
	c := &countingReaderAt{r: f}
	start, whole, err := tailStart(c, size, 3)
	if err != nil {
		t.Fatal(err)
	}
	if whole || start != size-6 {
		t.Errorf("start=%d whole=%v, want %d false", start, whole, size-6)
	}
	if c.read > 2*readBufSize {
		t.Errorf("read %d bytes to find the last 3 lines", c.read)
	}
	r, err := Tail(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(r.Lines); !slices.Equal(got, []string{"x", "y", "z"}) || r.Lines[0].Offset != size-6 {
		t.Errorf("lines = %q at %d", got, r.Lines[0].Offset)
	}
}
