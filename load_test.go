//go:build unix

package main

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// loadServers is how many fixture servers one dispatch fronts under load.
const loadServers = 10

// startLoadDispatch runs one dispatch over loadServers fixture servers.
// Every server has the same tools (echo, slow, ...), so a tool name is
// ambiguous and each call names its connection.
func startLoadDispatch(t *testing.T) *testClient {
	t.Helper()
	// All 1,000 calls are in flight at once: past --max-in-flight (256 by
	// default) dispatch would answer some "busy" by design
	// (TestServe_MaxInFlightAnswersBusy); here every call must be served.
	args := []string{"--no-cache", "--max-in-flight", "1024"}
	for i := 1; i <= loadServers; i++ {
		args = append(args, "--mcp", fixture("--name", fmt.Sprintf("load-%02d", i)))
	}
	tc := startDispatch(t, nil, args...)
	// Start every server before measuring: list needs all of them.
	var list listResponse
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
	for _, c := range list.Connections {
		if c.Status != "ready" {
			t.Fatalf("%s is %s: %s", c.Alias, c.Status, c.Error)
		}
	}
	return tc
}

// dispatchMeta is what dispatch adds under _meta.dispatch of a call.
type dispatchMeta struct {
	Dispatch struct {
		Connection string `json:"connection"`
		Tool       string `json:"tool"`
	} `json:"dispatch"`
}

// echoOutcome is how one echo call through dispatch ended.
type echoOutcome struct {
	err      error  // transport error or timeout: the call was lost
	mismatch string // non-empty when the answer is not the request's own
}

// echoThrough calls echo on conn with message and checks that the answer
// is that message, from that connection.
func echoThrough(ctx context.Context, tc *testClient, conn, message string) echoOutcome {
	r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "echo", "connection": conn,
		"arguments": map[string]any{"message": message}}, nil)
	if err != nil {
		return echoOutcome{err: err}
	}
	if r.IsError {
		return echoOutcome{mismatch: "isError: " + r.text()}
	}
	if got := r.text(); got != message {
		return echoOutcome{mismatch: fmt.Sprintf("text %q, want %q", got, message)}
	}
	var meta dispatchMeta
	if err := json.Unmarshal(r.Meta, &meta); err != nil || meta.Dispatch.Connection != conn {
		return echoOutcome{mismatch: fmt.Sprintf("_meta %s (%v), want connection %s", r.Meta, err, conn)}
	}
	return echoOutcome{}
}

// TestLoad_ConcurrentCallsAcrossServers sends 1,000 small calls at once
// over 10 servers through one dispatch. None may be lost, and each answer
// must be its own request's (dispatch matches answers to requests across
// two hops of concurrent JSON-RPC). Throughput is logged, never asserted.
func TestLoad_ConcurrentCallsAcrossServers(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	tc := startLoadDispatch(t)
	const calls = 1000
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	outcomes := make([]echoOutcome, calls)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := fmt.Sprintf("c%d", i%loadServers+1)
			outcomes[i] = echoThrough(ctx, tc, conn, fmt.Sprintf("load call %04d to %s", i, conn))
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	lost, mismatched := 0, 0
	for i, o := range outcomes {
		switch {
		case o.err != nil:
			lost++
			if lost <= 5 {
				t.Errorf("call %d lost: %v", i, o.err)
			}
		case o.mismatch != "":
			mismatched++
			if mismatched <= 5 {
				t.Errorf("call %d: %s", i, o.mismatch)
			}
		}
	}
	if lost > 0 || mismatched > 0 {
		t.Fatalf("%d of %d calls lost, %d mismatched; dispatch stderr:\n%.4000s", lost, calls, mismatched, tc.Stderr())
	}
	t.Logf("%d concurrent echo calls over %d servers: %s, %.0f calls/s", calls, loadServers,
		elapsed.Round(time.Millisecond), float64(calls)/elapsed.Seconds())
	// Under go test -race, dispatch itself is built with the race
	// detector, which reports on dispatch's stderr.
	if stderr := tc.Stderr(); strings.Contains(stderr, "DATA RACE") {
		t.Errorf("dispatch reported a data race under load:\n%.8000s", stderr)
	}
}

// TestLoad_SlowCallDoesNotBlockOthers starts a 3-second call on c1 and,
// once the server is working on it (its first progress notification came
// back), 20 echo calls on c2 and 5 on c1 itself. All of them must finish
// while the slow call is still running. Order is checked by completion,
// not by clocks.
func TestLoad_SlowCallDoesNotBlockOthers(t *testing.T) {
	tc := startLoadDispatch(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const token = "load-slow"
	slowDone := make(chan error, 1)
	go func() {
		r, err := tc.call(ctx, map[string]any{"action": "call", "tool": "slow", "connection": "c1",
			"arguments": map[string]any{"seconds": 3, "steps": 30, "tag": "slow"}}, map[string]any{"progressToken": token})
		if err == nil && r.IsError {
			err = fmt.Errorf("isError: %s", r.text())
		}
		slowDone <- err
	}()
	testkit.WaitFor(t, "the slow call's first progress notification", 30*time.Second, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		for _, n := range tc.notifications {
			if n.Method == "notifications/progress" && fmt.Sprint(n.Params.AdditionalFields["progressToken"]) == token {
				return true
			}
		}
		return false
	})

	type fast struct {
		conn string
		n    int
	}
	var jobs []fast
	for i := range 20 {
		jobs = append(jobs, fast{"c2", i})
	}
	for i := range 5 {
		jobs = append(jobs, fast{"c1", i})
	}
	fastDone := make(chan echoOutcome, len(jobs))
	for _, j := range jobs {
		go func() {
			fastDone <- echoThrough(ctx, tc, j.conn, fmt.Sprintf("fast %d on %s", j.n, j.conn))
		}()
	}
	for range jobs {
		select {
		case o := <-fastDone:
			if o.err != nil || o.mismatch != "" {
				t.Fatalf("fast call: %v %s", o.err, o.mismatch)
			}
		case err := <-slowDone:
			t.Fatalf("the slow call finished (%v) before every fast call did: fast calls waited for it", err)
		case <-ctx.Done():
			t.Fatal("fast calls did not finish")
		}
	}
	// Every fast call is done; the slow one must still be running.
	select {
	case err := <-slowDone:
		t.Fatalf("the slow call finished (%v) together with the fast ones", err)
	default:
	}
	select {
	case err := <-slowDone:
		if err != nil {
			t.Fatalf("slow call: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("slow call never finished")
	}
}
