package main

import (
	"os"
	"runtime/debug"
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
