package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// restoreGC puts the collector settings back after a test changed them.
func restoreGC(t *testing.T) {
	percent := debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

// unsetEnv unsets key for the test, restoring it afterwards.
func unsetEnv(t *testing.T, key string) {
	t.Setenv(key, "") // registers the restore
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}

func TestTuneGCForToon(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		restoreGC(t)
		unsetEnv(t, "GOGC")
		unsetEnv(t, "GOMEMLIMIT")
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		tuneGCForToon()
		if got := debug.SetGCPercent(100); got != toonGCPercent {
			t.Errorf("GC percent %d, want %d", got, toonGCPercent)
		}
		if got := debug.SetMemoryLimit(-1); got != toonMemoryLimit {
			t.Errorf("memory limit %d, want %d", got, toonMemoryLimit)
		}
	})
	t.Run("user's choice wins", func(t *testing.T) {
		restoreGC(t)
		t.Setenv("GOGC", "150")
		t.Setenv("GOMEMLIMIT", "3GiB")
		debug.SetGCPercent(150)
		debug.SetMemoryLimit(3 << 30)
		tuneGCForToon()
		if got := debug.SetGCPercent(-1); got != 150 {
			t.Errorf("GC percent %d, want the user's 150", got)
		}
		if got := debug.SetMemoryLimit(-1); got != 3<<30 {
			t.Errorf("memory limit %d, want the user's 3 GiB", got)
		}
	})
}
