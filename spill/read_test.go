package spill

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLimits_Read(t *testing.T) {
	ascii := "0123456789"
	utf := "aé€😀b" // 1 + 2 + 3 + 4 + 1 bytes
	tests := []struct {
		name       string
		content    string
		offset     int64
		max        int64
		lim        Limits
		want       string
		wantOffset int64
		wantNext   int64
		wantRemain int64
		notes      []string
		wantErr    string
	}{
		{name: "start", content: ascii, offset: 0, max: 4, want: "0123", wantNext: 4, wantRemain: 6,
			notes: []string{"bytes 0-4 of 10; 6 bytes remain: continue with offset=4"}},
		{name: "to the end", content: ascii, offset: 4, max: 100, want: "456789", wantOffset: 4, wantNext: 10,
			notes: []string{"bytes 4-10 of 10; end of file"}},
		{name: "default size", content: strings.Repeat("a", DefaultReadBytes+10), want: strings.Repeat("a", DefaultReadBytes),
			wantNext: DefaultReadBytes, wantRemain: 10},
		{name: "clamped", content: ascii, max: 8, lim: Limits{MaxReadBytes: 3}, want: "012", wantNext: 3, wantRemain: 7,
			notes: []string{"asked for 8 bytes; at most 3 are returned per call (clamped)"}},
		{name: "end not split", content: utf, offset: 0, max: 5, want: "aé", wantNext: 3, wantRemain: 8},
		{name: "never more than max", content: utf, offset: 0, max: 5, want: "aé", wantNext: 3, wantRemain: 8},
		{name: "a rune that does not fit is left for the next read", content: utf, offset: 3, max: 5, want: "€", wantOffset: 3, wantNext: 6, wantRemain: 5},
		{name: "less than one rune is an error", content: utf, offset: 6, max: 3, wantErr: "the UTF-8 character at offset 6 is 4 bytes, more than max bytes 3: ask for at least 4"},
		{name: "start inside a rune moves forward", content: utf, offset: 4, max: 20, want: "😀b", wantOffset: 6, wantNext: 11,
			notes: []string{"offset 4 is inside a UTF-8 character; starting at 6 instead"}},
		{name: "at end of file", content: ascii, offset: 10, want: "", wantOffset: 10, wantNext: 10, notes: []string{"offset 10 is the end of the file: it has 10 bytes, so there is nothing after it"}},
		{name: "empty file", content: "", want: "", notes: []string{"bytes 0-0 of 0; end of file"}},
		{name: "invalid utf-8 is passed through", content: "\xff\xfeab", max: 1, want: "\xff", wantNext: 1, wantRemain: 3},
		{name: "past the end", content: ascii, offset: 11, wantErr: "offset 11 is past the end of the file: it has 10 bytes, so offsets run from 0 to 9"},
		{name: "negative offset", content: ascii, offset: -1, wantErr: "offset must not be negative"},
		{name: "negative max", content: ascii, max: -1, wantErr: "max bytes must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "f.txt", tt.content)
			r, err := tt.lim.Read(openFile(t, path), tt.offset, tt.max)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Data) != tt.want || r.Offset != tt.wantOffset || r.Next != tt.wantNext || r.Remaining != tt.wantRemain {
				t.Errorf("got %q offset=%d next=%d remain=%d; want %q %d %d %d", r.Data, r.Offset, r.Next, r.Remaining, tt.want, tt.wantOffset, tt.wantNext, tt.wantRemain)
			}
			if r.Truncated != (r.Remaining > 0 || tt.lim.MaxReadBytes > 0) {
				t.Errorf("Truncated = %v", r.Truncated)
			}
			if utf8.Valid([]byte(tt.content)) && !utf8.Valid(r.Data) {
				t.Errorf("split a rune: %q", r.Data)
			}
			mustContain(t, "text", r.Text(), tt.notes...)
		})
	}
	t.Run("pages through a file without losing bytes", func(t *testing.T) {
		content := strings.Repeat("héllo wörld 😀\n", 100)
		path := writeTemp(t, "f.txt", content)
		var got []byte
		for off := int64(0); off < int64(len(content)); {
			r, err := Read(path, off, 7)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(r.Data) {
				t.Fatalf("invalid chunk at %d: %q", off, r.Data)
			}
			got = append(got, r.Data...)
			off = r.Next
		}
		if string(got) != content {
			t.Error("reassembled content differs")
		}
	})
}
