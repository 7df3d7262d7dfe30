package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestResource_LargeReadsKeepMemoryFlat reads the fixture's 20 MiB text
// and 5 MiB blob to files and bounds dispatch's peak RSS (the kernel's own
// maximum, from rusage): the payload is held a bounded number of times
// while it passes through, as for a tool result, never grown without end.
func TestResource_LargeReadsKeepMemoryFlat(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		uri, ext string
		size     int64
	}{
		{"fixture://read/big.txt", ".txt", 20 << 20},
		{"fixture://read/big.bin", ".bin", 5 << 20},
	} {
		t.Run(c.uri, func(t *testing.T) {
			cmd := exec.Command(dispatchBin, "--no-cache", "-m", fixture("--readables"), "--spill-dir", dir, "--json", "read", c.uri)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("read %s: %v\n%s", c.uri, err, stderr.String())
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			// Measured: 138 MiB for the text (151 MiB for a 20 MiB tool
			// result), 55 MiB for the blob, 17 MiB for a tiny read.
			limit := 8*c.size + 64<<20
			t.Logf("dispatch peak RSS reading %s (%d MiB): %d MiB", c.uri, c.size>>20, peak>>20)
			if peak > limit {
				t.Errorf("dispatch peak RSS %d MiB reading %d MiB; want at most %d MiB", peak>>20, c.size>>20, limit>>20)
			}
			var a resourceAnswer
			if err := json.Unmarshal(stdout.Bytes(), &a); err != nil || len(a.Contents) != 1 {
				t.Fatalf("answer %q: %v", stdout.String(), err)
			}
			p := decodePart(t, a.Contents[0])
			if !strings.HasSuffix(p.ResultFile, c.ext) || strings.Contains(stdout.String(), "bGluZS") {
				t.Fatalf("answer = %s", stdout.String())
			}
			data, err := os.ReadFile(p.ResultFile)
			if err != nil {
				t.Fatal(err)
			}
			switch c.ext {
			case ".bin":
				if int64(len(data)) != c.size || p.Bytes != c.size {
					t.Fatalf("blob file has %d bytes (answer says %d); want %d", len(data), p.Bytes, c.size)
				}
				for i, b := range data {
					if b != byte(i) {
						t.Fatalf("blob byte %d = %d; want %d", i, b, byte(i))
					}
				}
			case ".txt":
				if int64(len(data)) < c.size || !strings.HasPrefix(string(data), "line 0000001 of the big text resource\n") || int64(len(data)) != p.Bytes {
					t.Fatalf("text file has %d bytes (answer %d), starting %q", len(data), p.Bytes, data[:40])
				}
			}
		})
	}
}
