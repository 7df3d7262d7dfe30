package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Bound of dispatch's peak RSS saving a large result to a file: a multiple
// of the payload plus a base (dispatch holds 16-20 MiB for a tiny read).
// Peak RSS / payload, measured in one run: a 20 MiB text resource 6.9x
// before (138 MiB) and 2.9x after (58 MiB), a 20 MiB text tool result 6.7x
// and 2.9x, a 5 MiB blob 8.7x and 6.1x (43 and 31 MiB, mostly the base):
// the message is held once, plus the blocks it was read in, briefly.
const (
	largeReadPeakPerByte = 2.75
	largeReadPeakBase    = 32 << 20
)

// TestResource_LargeReadsKeepMemoryFlat reads the fixture's 20 MiB text
// and 5 MiB blob, and a 20 MiB tool result, to files and bounds dispatch's
// own peak RSS (see ownPeakRSS): the payload is held about twice while it
// passes through, never copied again and again.
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
			peak, err := ownPeakRSS(cmd)
			if err != nil {
				t.Fatalf("read %s: %v\n%s", c.uri, err, stderr.String())
			}
			checkLargeReadPeak(t, c.uri, peak, c.size)
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

// A 20 MiB text tool result is saved to a file with the same bound.
func TestCall_LargeTextResultKeepsMemoryFlat(t *testing.T) {
	const size = 20 << 20
	dir := t.TempDir()
	cmd := exec.Command(dispatchBin, "--no-cache", "-m", fixture(), "--spill-dir", dir, "--threshold", "1MiB", "--json",
		"call", "large", fmt.Sprintf(`{"bytes":%d,"shape":"text"}`, size))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	peak, err := ownPeakRSS(cmd)
	if err != nil {
		t.Fatalf("call large: %v\n%s", err, stderr.String())
	}
	checkLargeReadPeak(t, "a tool result", peak, size)
	var answer struct {
		Spill *struct {
			ResultFile string `json:"resultFile"`
			Bytes      int64  `json:"bytes"`
		} `json:"spill"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil || answer.Spill == nil {
		t.Fatalf("answer %.300s: %v", stdout.String(), err)
	}
	data, err := os.ReadFile(answer.Spill.ResultFile)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) < size || int64(len(data)) != answer.Spill.Bytes || bytes.Contains(data, []byte(`\n`)) || bytes.Count(data, []byte("\n")) < 1000 {
		t.Fatalf("result file has %d bytes (answer %d), starting %q", len(data), answer.Spill.Bytes, data[:min(len(data), 80)])
	}
}

func checkLargeReadPeak(t *testing.T, what string, peak, size int64) {
	t.Helper()
	limit := int64(largeReadPeakPerByte*float64(size)) + largeReadPeakBase
	t.Logf("dispatch's own peak RSS reading %s (%d MiB): %d MiB (%.1fx the payload)", what, size>>20, peak>>20, float64(peak)/float64(size))
	if peak > limit {
		t.Errorf("dispatch's own peak RSS %d MiB reading %d MiB; want at most %d MiB", peak>>20, size>>20, limit>>20)
	}
}

// ownPeakRSS runs cmd and returns its own peak RSS (VmHWM), not its
// children's: rusage's maximum would be the fixture server's when that is
// larger. VmHWM only grows, so sampling it until the process ends misses
// at most what it gained in its last moments, after the result was saved.
func ownPeakRSS(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var peak int64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if hwm := readVmHWM(status); hwm > peak {
			peak = hwm
		}
		select {
		case err := <-done:
			return peak, err
		case <-tick.C:
		}
	}
}

// readVmHWM is the VmHWM in the status file, in bytes; 0 once the process
// is gone.
func readVmHWM(status string) int64 {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
