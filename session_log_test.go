package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCappedWriter_DropsPastTheLimit(t *testing.T) {
	var out bytes.Buffer
	w := &cappedWriter{w: &out, left: 11}
	for _, line := range []string{"12345\n", "1234\n", "overflow\n", "more\n"} {
		if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("Write(%q) = %d, %v", line, n, err)
		}
	}
	got := out.String()
	if !strings.HasPrefix(got, "12345\n1234\n") || !strings.Contains(got, "maxSessionLogBytes") || strings.Contains(got, "overflow") || strings.Contains(got, "more") {
		t.Errorf("log = %q", got)
	}
}
