package spill

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"51200", 51200, ""},
		{"50KiB", 51200, ""},
		{"50kib", 51200, ""},
		{"50KB", 50000, ""},
		{"1.5MiB", 1572864, ""},
		{"1GiB", 1 << 30, ""},
		{" 2 MB ", 2000000, ""},
		{"", 0, "empty"},
		{"lots", 0, "want a byte count like 51200, 50KiB, 50KB or 1.5MiB"},
		{"5 parsecs", 0, "want a byte count"},
		{"abc", 0, `parse size "abc": want a byte count like 51200, 50KiB, 50KB or 1.5MiB`},
		{"-5MB", 0, "negative"},
		{"100EiB", 0, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if tt.wantErr != "" {
				// The parser's own words (strconv...) help no one.
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "strconv") {
					t.Fatalf("ParseSize(%q) = %d, %v; want error %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestEstimateTokens(t *testing.T) {
	for in, want := range map[int64]int64{-1: 0, 0: 0, 1: 1, 4: 1, 5: 2, 8: 2, 1001: 251} {
		if got := EstimateTokens(in); got != want {
			t.Errorf("EstimateTokens(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestPreview(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"short", "abc", 5, "abc"},
		{"exact", "abc", 3, "abc"},
		{"cut", "abcdef", 3, "abc…[+3 bytes]"},
		{"cut on a rune boundary", "aé€", 4, "aé…[+3 bytes]"},
		{"cut before a 4-byte rune", "😀x", 3, "…[+5 bytes]"},
		{"zero", "abc", 0, "…[+3 bytes]"},
		{"negative", "abc", -1, "…[+3 bytes]"},
		{"invalid utf-8", "\xff\xff\xff", 2, "\xff\xff…[+1 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Preview([]byte(tt.in), tt.max); got != tt.want {
				t.Errorf("Preview(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestPreviewOf(t *testing.T) {
	tests := []struct {
		name, prefix string
		total        int64
		max          int
		want         string
	}{
		{"whole file", "abc", 3, 5, "abc"},
		{"whole file, exact", "abc", 3, 3, "abc"},
		{"prefix of a larger file", "abcdef", 1000, 3, "abc…[+997 bytes]"},
		{"short prefix of a larger file", "abc", 1000, 5, "abc…[+997 bytes]"},
		{"cut on a rune boundary", "aé€", 100, 4, "aé…[+97 bytes]"},
		{"zero", "abc", 10, 0, "…[+10 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PreviewOf([]byte(tt.prefix), tt.total, tt.max); got != tt.want {
				t.Errorf("PreviewOf(%q, %d, %d) = %q, want %q", tt.prefix, tt.total, tt.max, got, tt.want)
			}
		})
	}
}

func TestLimits_withDefaults(t *testing.T) {
	d := DefaultLimits()
	want := Limits{
		MaxLines: DefaultMaxLines, MaxOutputBytes: DefaultMaxOutputBytes, MaxLineBytes: DefaultMaxLineBytes,
		ReadBytes: DefaultReadBytes, MaxReadBytes: DefaultMaxReadBytes, MaxMatches: DefaultMaxMatches,
		MaxContext: DefaultMaxContext, MaxKeys: DefaultMaxKeys,
	}
	if d != want {
		t.Errorf("DefaultLimits() = %+v, want %+v", d, want)
	}
	if got := (Limits{MaxLines: 7, MaxReadBytes: 100}).withDefaults(); got.MaxLines != 7 || got.ReadBytes != 100 {
		t.Errorf("overrides lost or ReadBytes not capped: %+v", got)
	}
}
