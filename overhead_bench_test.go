//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"dispatch/internal/testkit"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkCallOverhead measures what dispatch adds to one small call: the
// same echo call made to the fixture server directly over stdio, through a
// bare relay that only copies lines (scripts/internal/relay: the cost of
// the pipe hop itself), and through dispatch (agent → dispatch → fixture),
// with the same mcp-go client. Each iteration makes one call of each kind,
// alternating, so that all see the same machine load; the medians of the
// b.N latencies of each kind and their ratios (each ÷ direct, and
// dispatch ÷ relay: what dispatch costs beyond the hop) are reported:
//
//	go test -run '^$' -bench BenchmarkCallOverhead -benchtime 2000x .
//
// scripts/bench-overhead.sh runs it and prints the ratio. With
// DISPATCH_BENCH_BASELINE naming another dispatch binary (the code before a
// change), each iteration calls through it too, and its median and ratio
// are reported beside: a before/after figure from one run.
func BenchmarkCallOverhead(b *testing.B) {
	direct, _ := startBenchServer(b, fixtureBin)
	relayed, _ := startBenchServer(b, relayBin.Path(b), fixtureBin)
	proxied, _ := startBenchServer(b, dispatchBin, "--no-cache", "--mcp", fixture())
	var baseline *transport.Stdio
	if bin := os.Getenv(baselineEnv); bin != "" {
		baseline, _ = startBenchServer(b, bin, "--no-cache", "--mcp", fixture())
	}
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
		check(benchCall(b, relayed, -1-i, directReq))
		check(benchCall(b, proxied, -1-i, proxiedReq))
		if baseline != nil {
			check(benchCall(b, baseline, -1-i, proxiedReq))
		}
	}

	directTimes := make([]time.Duration, 0, b.N)
	relayedTimes := make([]time.Duration, 0, b.N)
	proxiedTimes := make([]time.Duration, 0, b.N)
	baselineTimes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		check(benchCall(b, direct, i, directReq))
		afterDirect := time.Now()
		check(benchCall(b, relayed, i, directReq))
		afterRelay := time.Now()
		check(benchCall(b, proxied, i, proxiedReq))
		directTimes = append(directTimes, afterDirect.Sub(start))
		relayedTimes = append(relayedTimes, afterRelay.Sub(afterDirect))
		proxiedTimes = append(proxiedTimes, time.Since(afterRelay))
		if baseline != nil {
			start := time.Now()
			check(benchCall(b, baseline, i, proxiedReq))
			baselineTimes = append(baselineTimes, time.Since(start))
		}
	}
	b.StopTimer()

	directMedian, relayedMedian, proxiedMedian := median(directTimes), median(relayedTimes), median(proxiedTimes)
	b.ReportMetric(float64(directMedian)/1e3, "direct-µs/call")
	b.ReportMetric(float64(relayedMedian)/1e3, "relay-µs/call")
	b.ReportMetric(float64(proxiedMedian)/1e3, "dispatch-µs/call")
	if directMedian > 0 {
		b.ReportMetric(float64(proxiedMedian)/float64(directMedian), "overhead-ratio")
		b.ReportMetric(float64(relayedMedian)/float64(directMedian), "relay-ratio")
	}
	if relayedMedian > 0 {
		b.ReportMetric(float64(proxiedMedian)/float64(relayedMedian), "dispatch-relay-ratio")
	}
	if baseline != nil && directMedian > 0 {
		baselineMedian := median(baselineTimes)
		b.ReportMetric(float64(baselineMedian)/1e3, "baseline-µs/call")
		b.ReportMetric(float64(baselineMedian)/float64(directMedian), "baseline-ratio")
	}
}

// relayBin is the bare relay (scripts/internal/relay), built on first use
// so that test runs without the benchmark do not pay for it.
var relayBin = &testkit.Binary{Package: "dispatch/scripts/internal/relay"}

// baselineEnv names the dispatch binary the benchmarks also measure, for
// a before/after comparison in one run (scripts/bench-overhead.sh sets it
// from BASE=<revision>).
const baselineEnv = "DISPATCH_BENCH_BASELINE"

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

// BenchmarkLoadThroughput sends bursts of loadBurst concurrent echo calls
// spread over loadServers fixture servers: directly (one stdio client per
// server) and through one dispatch fronting the same servers. Each
// iteration runs one burst of each kind, alternating; it reports calls/s
// of both and dispatch's share of the direct throughput:
//
//	go test -run '^$' -bench BenchmarkLoadThroughput -benchtime 5x .
//
// With DISPATCH_BENCH_BASELINE, a third burst goes through that dispatch
// binary each iteration (see BenchmarkCallOverhead).
func BenchmarkLoadThroughput(b *testing.B) {
	const loadBurst = 1000
	direct := make([]*transport.Stdio, loadServers)
	args := []string{"--no-cache", "--max-in-flight", "1024"} // a burst is all in flight at once
	for i := range direct {
		direct[i], _ = startBenchServer(b, fixtureBin)
		args = append(args, "--mcp", fixture("--name", fmt.Sprintf("load-%02d", i+1)))
	}
	proxied, _ := startBenchServer(b, dispatchBin, args...)
	var baseline *transport.Stdio
	if bin := os.Getenv(baselineEnv); bin != "" {
		baseline, _ = startBenchServer(b, bin, args...)
	}

	directCall := func(i int, message string) (string, error) {
		return sendCall(direct[i%loadServers], fmt.Sprintf("d%d", i), map[string]any{"name": "echo", "arguments": map[string]any{"message": message}})
	}
	viaDispatch := func(tr *transport.Stdio) func(int, string) (string, error) {
		return func(i int, message string) (string, error) {
			return sendCall(tr, fmt.Sprintf("p%d", i), proxyCall(map[string]any{"action": "call", "tool": "echo",
				"connection": fmt.Sprintf("c%d", i%loadServers+1), "arguments": map[string]any{"message": message}}))
		}
	}
	proxiedCall := viaDispatch(proxied)
	burst := func(call func(int, string) (string, error)) time.Duration {
		errs := make([]error, loadBurst)
		start := time.Now()
		var wg sync.WaitGroup
		for i := range loadBurst {
			wg.Add(1)
			go func() {
				defer wg.Done()
				message := fmt.Sprintf("burst call %04d", i)
				text, err := call(i, message)
				if err == nil && text != message {
					err = fmt.Errorf("answer %q, want %q", text, message)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		if err := errors.Join(errs...); err != nil {
			b.Fatalf("burst: %v", err)
		}
		return elapsed
	}
	// Warm up: dispatch starts its servers on first use.
	burst(directCall)
	burst(proxiedCall)
	if baseline != nil {
		burst(viaDispatch(baseline))
	}

	var directTime, proxiedTime, baselineTime time.Duration
	b.ResetTimer()
	for range b.N {
		directTime += burst(directCall)
		proxiedTime += burst(proxiedCall)
		if baseline != nil {
			baselineTime += burst(viaDispatch(baseline))
		}
	}
	b.StopTimer()
	calls := float64(b.N * loadBurst)
	b.ReportMetric(calls/directTime.Seconds(), "direct-calls/s")
	b.ReportMetric(calls/proxiedTime.Seconds(), "dispatch-calls/s")
	b.ReportMetric(directTime.Seconds()/proxiedTime.Seconds(), "throughput-ratio")
	if baseline != nil {
		b.ReportMetric(calls/baselineTime.Seconds(), "baseline-calls/s")
		b.ReportMetric(directTime.Seconds()/baselineTime.Seconds(), "baseline-throughput-ratio")
	}
}

// sendCall makes one tools/call over tr and returns its text; safe to use
// from many goroutines (unlike benchCall, which stops the benchmark).
func sendCall(tr *transport.Stdio, id string, params map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: "tools/call", Params: params,
	})
	if err != nil {
		return "", err
	}
	if resp.Error != nil {
		return "", fmt.Errorf("JSON-RPC error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	var r toolResult
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		return "", err
	}
	if r.IsError {
		return "", fmt.Errorf("isError: %s", r.text())
	}
	return r.text(), nil
}
