package testkit

import (
	"os"
	"testing"
	"time"
)

// pollEvery is how often Eventually looks at its condition.
const pollEvery = 10 * time.Millisecond

// Eventually reports whether cond became true within timeout, looking
// every pollEvery.
func Eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}

// WaitFor fails the test unless cond becomes true within timeout; what
// names the awaited thing in the failure.
func WaitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	if !Eventually(timeout, cond) {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// ShortTempDir is a private directory, removed when the test ends, with a
// path short enough for a unix socket (at most 104 to 108 bytes;
// t.TempDir's can be longer).
func ShortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
