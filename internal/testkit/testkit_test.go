package testkit

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Writers on many goroutines each land whole (run with -race).
func TestSyncBuffer_ConcurrentWrites(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("ab\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := b.String(); len(got) != 8*100*3 || strings.Count(got, "ab\n") != 800 {
		t.Errorf("%d bytes, %d whole writes; want 2400 and 800", len(got), strings.Count(got, "ab\n"))
	}
}

func TestEventually(t *testing.T) {
	n := 0
	if !Eventually(time.Second, func() bool { n++; return n == 3 }) {
		t.Error("a condition that comes true on the third look was not seen")
	}
	start := time.Now()
	if Eventually(50*time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never holds was reported true")
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Error("gave up before the timeout")
	}
}
