//go:build unix

package connections

import (
	"context"
	"encoding/json"
	"errors"
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
	// --stdin-timeout runs from the write's start, progress or not.
	got := waitOutcome(t, answers)
	if got.err == nil || !strings.Contains(got.err.Error(), "stopped reading its stdin") {
		t.Errorf("the part-written call: %v; want the stuck write's error", got.err)
	}
	noSecondAnswer(t, answers)
}

// --stdin-timeout bounds a whole write from its start: a server that
// keeps taking a little of a long message (trickle_stdin: 40 KiB/s) is
// stopped as hung once the write has not finished within it, instead of
// being given a fresh --stdin-timeout after each bit of progress, which
// let such a write go on as long as the server kept trickling.
func TestCall_StdinTimeoutRunsFromTheWritesStart(t *testing.T) {
	hold := filepath.Join(t.TempDir(), "hold")
	set, err := NewSet([]ServerConfig{stdio("fx", fixtureServer.Path(t), "--stall-stdin-while", hold)}, Options{StdinTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	if _, err := conn.Call(context.Background(), CallRequest{Tool: "trickle_stdin"}); err != nil {
		t.Fatal(err)
	}
	// 512 KiB: about 13 s at the server's pace, far past --stdin-timeout
	// (1 s) and short of the call's own limit (60 s), which must not be
	// what ends it.
	big := json.RawMessage(`{"message":"` + strings.Repeat("m", 512<<10) + `"}`)
	_, err = conn.Call(context.Background(), CallRequest{Tool: "echo", Arguments: big, Timeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "--stdin-timeout") || errors.Is(err, ErrCallTimeout) {
		t.Fatalf("a write the server took in trickles: %v; want it stopped as hung (--stdin-timeout)", err)
	}
}
