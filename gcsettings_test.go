package main

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// gcPercentNow reads the GC percent the runtime works with.
func gcPercentNow() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
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
