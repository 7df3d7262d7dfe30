package main

import (
	"os"
	"runtime/debug"
)

// GC settings for `dispatch toon`, a one-shot command: nearly everything it
// allocates (the input text and its parsed form) stays live until it exits,
// so each collection scans much and frees little.
const (
	// toonGCPercent lets the heap grow to five times what was live at the
	// last collection (Go's default is twice), so converting a document
	// collects a few times instead of once per doubling.
	toonGCPercent = 400
	// toonMemoryLimit is the soft memory limit that bounds that growth: as
	// the heap nears it the collector runs as often as needed to stay under
	// it, so a large input costs collections, not five times its memory.
	toonMemoryLimit = 1 << 30
)

// tuneGCForToon applies toonGCPercent and toonMemoryLimit unless the user
// chose the collector's settings through GOGC or GOMEMLIMIT.
func tuneGCForToon() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(toonGCPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(toonMemoryLimit)
	}
}
