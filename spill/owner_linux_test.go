package spill

import "testing"

func TestParseStatStart(t *testing.T) {
	tests := []struct {
		name, stat string
		want       uint64
		wantErr    bool
	}{
		{"plain", "123 (bash) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 4242 20 21", 4242, false},
		{"comm with spaces and parens", "123 (a ) b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 77 20", 77, false},
		{"short", "123 (x) S 1 2", 0, true},
		{"no comm", "garbage", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatStart([]byte(tt.stat))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %d, %v; want %d (err %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
