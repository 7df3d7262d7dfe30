//go:build unix

package connections

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A call the stuck server's pipe takes only in part is finished by a
// goroutine (StartCall returns at once), which holds the write slot: the
// next call is refused (the caller sends it the way that may wait). When
// --stdin-timeout runs out, the write's error reaches the first call.
func TestStartCall_PartWrittenCallFailsWithTheWriteError(t *testing.T) {
	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := NewSet([]ServerConfig{stdio("fx", fixtureServer.Path(t), "--stall-stdin-while", hold)}, Options{StdinTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	if _, err := conn.Call(context.Background(), CallRequest{Tool: "stall_stdin"}); err != nil {
		t.Fatal(err)
	}
	// More than a pipe holds (64 KiB on Linux, 16 KiB on macOS).
	big := json.RawMessage(`{"message":"` + strings.Repeat("m", 1<<20) + `"}`)
	_, answers := startCall(t, conn, CallRequest{Tool: "echo", Arguments: big})
	if _, ok := conn.StartCall(context.Background(), CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"next"}`)}, func(json.RawMessage, error) {
		t.Error("a call StartCall refused was answered")
	}); ok {
		t.Error("StartCall began a call while another's write held the server's stdin: the agent's reader would wait on it")
	}
	// StartCall returned while the write was under way, not once it
	// failed: the server is not yet given up on.
	if st := conn.State().Status; st != StatusReady {
		t.Errorf("after StartCall returned the server is %s; StartCall waited for the stuck write", st)
	}
	// Not waitOutcome: a write that made some progress gets a fresh
	// --stdin-timeout, so the error may take two of them.
	var got outcome
	select {
	case got = <-answers:
	case <-time.After(60 * time.Second):
		t.Fatal("the part-written call was never answered (hang detector)")
	}
	if got.err == nil || !strings.Contains(got.err.Error(), "stopped reading its stdin") {
		t.Errorf("the part-written call: %v; want the stuck write's error", got.err)
	}
	noSecondAnswer(t, answers)
}
