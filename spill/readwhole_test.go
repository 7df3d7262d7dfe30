package spill

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// withRead is what query and select use where there is no mmap (Windows);
// it runs here through the same interface, so its rules are held on every
// platform the tests run on.
func TestWithRead(t *testing.T) {
	tests := []struct {
		name    string
		content string
		limit   int64
		want    string // data fn sees
		errIn   string
		errIs   error
	}{
		{name: "small file", content: `{"a":1}`, limit: 1 << 10, want: `{"a":1}`},
		{name: "exactly the limit", content: `[1,2]`, limit: 5, want: `[1,2]`},
		{name: "past the limit", content: `[1,2,3]`, limit: 5, errIn: "more than the 5 B query reads into memory on this platform; use grep or read instead", errIs: ErrTooLarge},
		{name: "empty", content: "", limit: 5, errIn: "is empty, not JSON", errIs: ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, strings.ReplaceAll(tt.name, " ", "_")+".json", tt.content)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var got string
			err = withRead("query", f, tt.limit, func(data []byte) error {
				got = string(data)
				return nil
			})
			if tt.errIn != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errIn) || !errors.Is(err, tt.errIs) {
					t.Fatalf("err = %v; want %q (%v)", err, tt.errIn, tt.errIs)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("withRead = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
