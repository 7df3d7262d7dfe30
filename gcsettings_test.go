package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcPercentNow reads the GC percent the runtime works with.
func gcPercentNow() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// awaitGCPercent collects until the GC percent is want, or fails.
func awaitGCPercent(t *testing.T, want func(int) bool, what string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		p := gcPercentNow()
		if want(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("GC percent %d after collections: want %s", p, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKeepHeapFloor: while little is live, the percent is raised so that
// the next collection comes at about the floor; once more than half the
// floor is live it is back to the percent found at start, as it is after
// stop.
func TestKeepHeapFloor(t *testing.T) {
	restoreGC(t)
	unsetEnv(t, "GOGC")
	debug.SetGCPercent(100)

	const floor = 256 << 20 // far above what this test process keeps live
	stop := keepHeapFloor(floor)
	defer stop()
	raised := awaitGCPercent(t, func(p int) bool { return p > 100 }, "raised above 100")
	if max := floor * 100 / runtimeMinHeap; raised > max {
		t.Errorf("GC percent %d: want at most %d, where the runtime's minimum heap reaches the floor", raised, max)
	}
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(goal)
	if g := goal[0].Value.Uint64(); g < floor/2 || g > floor*2 {
		t.Errorf("heap goal %d bytes with GC percent %d: want about the floor, %d", g, raised, floor)
	}

	// More than half the floor live: the default target again.
	live := make([][]byte, 0, 160)
	for range cap(live) {
		live = append(live, make([]byte, 1<<20))
	}
	awaitGCPercent(t, func(p int) bool { return p == 100 }, "100 with 160 MiB live")
	runtime.KeepAlive(live)
	live = nil

	awaitGCPercent(t, func(p int) bool { return p > 100 }, "raised again once the heap is small")
	stop()
	if p := gcPercentNow(); p != 100 {
		t.Errorf("GC percent %d after stop: want 100, the percent found at start", p)
	}
	runtime.GC()
	if p := gcPercentNow(); p != 100 {
		t.Errorf("GC percent %d after stop and a collection: want 100 (the floor no longer runs)", p)
	}
}

// TestKeepHeapFloor_GOGCWins: a GC percent the user set in GOGC is left
// alone.
func TestKeepHeapFloor_GOGCWins(t *testing.T) {
	restoreGC(t)
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	stop := keepHeapFloor(256 << 20)
	defer stop()
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := gcPercentNow(); p != 150 {
		t.Errorf("GC percent %d with GOGC=150: want 150, the user's", p)
	}
}

// TestCollectLessForCatalogs: list and search collect at catalogGCPercent,
// unless GOGC says otherwise.
func TestCollectLessForCatalogs(t *testing.T) {
	restoreGC(t)
	unsetEnv(t, "GOGC")
	debug.SetGCPercent(100)
	collectLessForCatalogs()
	if p := gcPercentNow(); p != catalogGCPercent {
		t.Errorf("GC percent %d, want %d", p, catalogGCPercent)
	}
	t.Setenv("GOGC", "120")
	debug.SetGCPercent(120)
	collectLessForCatalogs()
	if p := gcPercentNow(); p != 120 {
		t.Errorf("GC percent %d with GOGC=120: want 120, the user's", p)
	}
}
