package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Calls begun with a batch are held until it is flushed, then all go to
// the server (one write) and each gets its own answer.
func TestStartCall_BatchHoldsCallsUntilFlushed(t *testing.T) {
	conn, _ := startedFixture(t)
	var batch SendBatch
	const calls = 5
	answers := make([]chan outcome, calls)
	for i := range calls {
		args := json.RawMessage(fmt.Sprintf(`{"message":"m%d"}`, i))
		_, answers[i] = startCall(t, conn, CallRequest{Tool: "echo", Arguments: args, Batch: &batch})
	}
	if len(batch.entries) != 1 || len(batch.entries[0].calls) != calls || strings.Count(string(batch.entries[0].data), "\n") != calls {
		t.Fatalf("before Flush the batch holds %d entries; want the %d calls to the one server, as one write", len(batch.entries), calls)
	}
	batch.Flush()
	for i, ch := range answers {
		got := waitOutcome(t, ch)
		if got.err != nil || !strings.Contains(string(got.raw), fmt.Sprintf(`"m%d"`, i)) {
			t.Errorf("call %d: %s, %v", i, got.raw, got.err)
		}
	}
	if len(batch.entries[0].calls) != 0 || len(batch.entries[0].data) != 0 {
		t.Errorf("after Flush the batch still holds %d calls", len(batch.entries[0].calls))
	}
}

// A call cancelled while a batch holds it never reaches the server: the
// flush leaves it out, and the calls beside it go as before.
func TestStartCall_BatchLeavesOutCancelledCalls(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	set, err := NewSet([]ServerConfig{stdio("serial", fixtureServer.Path(t), "--serial", "--serial-log", log)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	if _, err := conn.Tools(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	var batch SendBatch
	cancel, dropped := startCall(t, conn, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"dropped"}`), Batch: &batch})
	_, kept := startCall(t, conn, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"kept"}`), Batch: &batch})
	cancel()
	if got := waitOutcome(t, dropped); !errors.Is(got.err, context.Canceled) && (got.err == nil || !strings.Contains(got.err.Error(), "abandoned")) {
		t.Errorf("the cancelled call: %s, %v; want it abandoned", got.raw, got.err)
	}
	batch.Flush()
	if got := waitOutcome(t, kept); got.err != nil || !strings.Contains(string(got.raw), "kept") {
		t.Fatalf("the call beside it: %s, %v", got.raw, got.err)
	}
	// The server reads in order: had the cancelled call been written, it
	// would be logged before the one it has answered.
	seen, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(seen), "dropped") {
		t.Errorf("the server got the call cancelled before the flush:\n%s", seen)
	}
}
