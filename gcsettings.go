package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// catalogGCPercent is the GC target of the one-shot list and search
// commands: they read every server's cached catalog, allocate a few times
// its size and exit within milliseconds, so a collection at the default
// 100% costs them a tenth of their CPU for memory the exit frees anyway.
// 400% lets the heap grow to five times what is live (a few megabytes for
// a few hundred kilobytes of catalogs) before one. Not for call, read or
// readresult, whose live data is a result and whose peak memory counts.
const catalogGCPercent = 400

// collectLessForCatalogs sets catalogGCPercent for the rest of a one-shot
// list or search, unless the user chose a GC percent with GOGC.
func collectLessForCatalogs() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(catalogGCPercent)
	}
}

// ServeHeapFloor is the heap a serving dispatch lets garbage fill before
// it collects while little is live. Serving small calls keeps a few
// megabytes live and allocates a few kilobytes per call, so at Go's
// default target (twice what is live, at least 4 MiB) the collector ran
// several times a second under load, a few percent of the throughput of
// BenchmarkLoadThroughput. Past half the floor live the default target
// holds unchanged, so a large result costs no more memory than before:
// the heap's target is max(2 × live, ServeHeapFloor).
const ServeHeapFloor = 32 << 20

// runtimeMinHeap is the Go runtime's smallest heap target at GOGC=100; it
// scales with the GC percent, so the percent the floor asks for is capped
// where that minimum reaches the floor.
const runtimeMinHeap = 4 << 20

// heapFloor raises the GC percent after each collection that leaves less
// than half of floor live, so that the next one comes at about floor
// bytes of heap, and lowers it to base again once more is live. Unless
// the user chose a GC percent with GOGC: then it does nothing.
type heapFloor struct {
	floor uint64
	base  int // the percent above the floor: what was set at start

	mu      sync.Mutex
	stopped bool
	percent int // what it set last
	live    []metrics.Sample
}

// keepHeapFloor starts a heapFloor of floor bytes for the rest of serving;
// stop ends it and puts back the GC percent it found.
func keepHeapFloor(floor uint64) (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	if base <= 0 {
		return func() {} // collection off, set in code: nothing to raise
	}
	f := &heapFloor{floor: floor, base: base, percent: base, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	f.arm()
	return f.stop
}

// gcSentinel is what each collection finds unreachable, so that its
// cleanup runs once per cycle. Not tiny (the tiny allocator would batch it
// with other objects, whose lives would decide when it is collected).
type gcSentinel struct{ _ [32]byte }

// arm makes a sentinel for the next collection to find.
func (f *heapFloor) arm() {
	runtime.AddCleanup(new(gcSentinel), (*heapFloor).collected, f)
}

// collected runs after a collection: it sets the percent for the live
// heap it left, and arms the next.
func (f *heapFloor) collected() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	metrics.Read(f.live)
	live := f.live[0].Value.Uint64()
	if p := f.percentFor(live); p != f.percent {
		debug.SetGCPercent(p)
		f.percent = p
	}
	f.arm()
}

// percentFor is the GC percent that puts the next collection at about
// floor bytes of heap when live bytes are live, never below base.
func (f *heapFloor) percentFor(live uint64) int {
	if live >= f.floor/2 {
		return f.base // twice what is live reaches the floor already
	}
	p := int(f.floor*100/max(live, 1)) - 100
	return max(min(p, int(f.floor*100/runtimeMinHeap)), f.base)
}

func (f *heapFloor) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	f.stopped = true
	if f.percent != f.base {
		debug.SetGCPercent(f.base)
	}
}
