package main

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkCallOverhead measures what dispatch adds to one small call: the
// same echo call made to the fixture server directly over stdio, and
// through dispatch (agent → dispatch → fixture), with the same mcp-go
// client. Each iteration makes one call of each kind, alternating, so that
// both see the same machine load; the medians of the b.N latencies of each
// kind and their ratio are reported:
//
//	go test -run '^$' -bench BenchmarkCallOverhead -benchtime 2000x .
//
// scripts/bench-overhead.sh runs it and prints the ratio.
func BenchmarkCallOverhead(b *testing.B) {
	direct, _ := startBenchServer(b, fixtureBin)
	proxied, _ := startBenchServer(b, dispatchBin, "--no-cache", "--mcp", fixture())
	args := map[string]any{"message": "hello"}
	directReq := map[string]any{"name": "echo", "arguments": args}
	proxiedReq := proxyCall(map[string]any{"action": "call", "tool": "echo", "arguments": args})

	check := func(text string) {
		if text != "hello" {
			b.Fatalf("echo answered %q", text)
		}
	}
	// Warm up: dispatch starts its server on first use, and both sides
	// fault in their code paths.
	for i := range 20 {
		check(benchCall(b, direct, -1-i, directReq))
		check(benchCall(b, proxied, -1-i, proxiedReq))
	}

	directTimes := make([]time.Duration, 0, b.N)
	proxiedTimes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		check(benchCall(b, direct, i, directReq))
		mid := time.Now()
		check(benchCall(b, proxied, i, proxiedReq))
		directTimes = append(directTimes, mid.Sub(start))
		proxiedTimes = append(proxiedTimes, time.Since(mid))
	}
	b.StopTimer()

	directMedian, proxiedMedian := median(directTimes), median(proxiedTimes)
	b.ReportMetric(float64(directMedian)/1e3, "direct-µs/call")
	b.ReportMetric(float64(proxiedMedian)/1e3, "dispatch-µs/call")
	if directMedian > 0 {
		b.ReportMetric(float64(proxiedMedian)/float64(directMedian), "overhead-ratio")
	}
}

// median returns the middle value of ds (the mean of the two middle ones
// for an even count). It sorts ds.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}
