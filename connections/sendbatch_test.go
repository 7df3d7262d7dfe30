package connections

import (
	"encoding/json"
	"fmt"
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
