package connections

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A server that stops reading its stdin while its pipe still has room
// (the serial fixture's wedge) fails a call at the call's own limit, and
// then the ping sent to check on it goes unanswered too: it is stopped,
// what still waited on it fails saying why, the log says so, and the next
// call starts it afresh. Before, every call failed at its own limit, for
// ever. The call that times out is made as Call makes it, and as
// StartCall (the hot path) does.
func TestConn_WedgedServerIsStoppedAndStartedAfresh(t *testing.T) {
	late := CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"late"}`), Timeout: 300 * time.Millisecond}
	for _, tc := range []struct {
		name string
		call func(t *testing.T, conn *Conn) error
	}{
		{"Call", func(t *testing.T, conn *Conn) error {
			_, err := conn.Call(context.Background(), late)
			return err
		}},
		{"StartCall", func(t *testing.T, conn *Conn) error {
			_, answers := startCall(t, conn, late)
			return waitOutcome(t, answers).err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { testWedgedServer(t, tc.call) })
	}
}

func testWedgedServer(t *testing.T, callLate func(*testing.T, *Conn) error) {
	serialLog := filepath.Join(t.TempDir(), "serial.log")
	logs := newTailBuffer(1 << 20)
	set, err := NewSet([]ServerConfig{stdio("fx", fixtureServer.Path(t), "--serial", "--serial-log", serialLog)},
		Options{wedgeProbe: time.Second, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	if _, err := conn.Tools(context.Background(), false); err != nil { // StartCall's calls need the catalog at hand
		t.Fatal(err)
	}
	if _, err := conn.Call(context.Background(), CallRequest{Tool: "wedge"}); err != nil {
		t.Fatal(err)
	}
	// A call with no limit of its own: only the server's end ends it.
	waiting := make(chan error, 1)
	go func() {
		_, err := conn.Call(context.Background(), CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"waiting"}`)})
		waiting <- err
	}()
	if err := callLate(t, conn); !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("a call to the wedged server: %v; want its own time limit", err)
	}
	waitFor(t, "the wedged server to be stopped", func() bool { return conn.State().Status == StatusFailed })
	if st := conn.State(); !strings.Contains(st.LastError, "wedged") || !strings.Contains(st.LastError, "--timeout") {
		t.Errorf("state of the wedged server: %+v; want the error to say it was wedged and name the limit", st)
	}
	select {
	case err := <-waiting:
		if err == nil || !strings.Contains(err.Error(), "wedged") {
			t.Errorf("the call waiting on the wedged server: %v; want it failed saying the server was wedged", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call waiting on the wedged server was never answered")
	}
	if !strings.Contains(logs.Tail(100, 1<<20), "server wedged; stopped") {
		t.Errorf("the log does not say the server was stopped as wedged:\n%s", logs.Tail(100, 1<<20))
	}
	raw, err := conn.Call(context.Background(), CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"afresh"}`)})
	if err != nil || !strings.Contains(string(raw), "afresh") {
		t.Fatalf("the call after the wedged server was stopped: %s, %v", raw, err)
	}
	seen, err := os.ReadFile(serialLog)
	if err != nil {
		t.Fatal(err)
	}
	if starts := strings.Count(string(seen), "start "); starts != 2 {
		t.Errorf("the server started %d times; want 2 (stopped as wedged, started afresh):\n%s", starts, seen)
	}
}

// A server busy with long calls that answers ping beside them, if
// slowly, is merely slow: when other calls run out of time it is pinged
// once (one probe at a time, though three calls time out while it runs),
// kept, and the long calls finish.
func TestConn_BusyServerAnsweringPingIsKept(t *testing.T) {
	pingLog := filepath.Join(t.TempDir(), "pings")
	logs := newTailBuffer(1 << 20)
	set, err := NewSet([]ServerConfig{stdio("fx", fixtureServer.Path(t), "--ping-log", pingLog, "--ping-delay", "2s")},
		Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	if err := conn.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	var long sync.WaitGroup
	longErrs := make(chan error, 5)
	for range 5 { // as many as mcp-go's stdio server has workers
		long.Go(func() {
			_, err := conn.Call(context.Background(), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"seconds":3,"steps":1}`)})
			longErrs <- err
		})
	}
	// Three calls that time out while the first one's probe waits for
	// the slow ping (2 s).
	var short sync.WaitGroup
	for _, limit := range []time.Duration{300 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond} {
		short.Go(func() {
			_, err := conn.Call(context.Background(), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"seconds":30,"steps":1}`), Timeout: limit})
			if !errors.Is(err, ErrCallTimeout) {
				t.Errorf("a call with a %s limit: %v; want it timed out", limit, err)
			}
		})
	}
	short.Wait()
	long.Wait()
	close(longErrs)
	for err := range longErrs {
		if err != nil {
			t.Errorf("a long call on the busy server: %v", err)
		}
	}
	waitFor(t, "the ping to be answered", func() bool { return strings.Contains(logs.Tail(100, 1<<20), "answered ping") })
	if st := conn.State(); st.Status != StatusReady {
		t.Errorf("the busy server that answered ping: %+v; want it kept, ready", st)
	}
	seen, err := os.ReadFile(pingLog)
	if err != nil {
		t.Fatal(err)
	}
	if pings := strings.Count(string(seen), "ping"); pings != 1 {
		t.Errorf("the server was pinged %d times; want 1 (one probe at a time)", pings)
	}
}

// A ping whose answer waits behind one dispatch is still handing on (an
// agent not reading its answers, here a StartCall whose done does not
// return) is not unanswered: that wait is dispatch's doing, and the
// server is kept. The pause gives the probe its chance (four times its
// limit); the test asserts on the outcome.
func TestConn_PingAnswerHeldByDispatchKeepsTheServer(t *testing.T) {
	logs := newTailBuffer(1 << 20)
	const probeLimit = 500 * time.Millisecond
	set, err := NewSet([]ServerConfig{stdio("fx", fixtureServer.Path(t))},
		Options{wedgeProbe: probeLimit, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	if _, err := conn.Tools(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	release, handing := make(chan struct{}), make(chan struct{})
	if _, ok := conn.StartCall(context.Background(), CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"held"}`)}, func(json.RawMessage, error) {
		close(handing)
		<-release // the reader of the server's stdout waits here
	}); !ok {
		t.Fatal("StartCall did not begin a call on a ready stdio server")
	}
	<-handing
	_, err = conn.Call(context.Background(), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"seconds":30,"steps":1}`), Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("a call with a 300ms limit: %v; want it timed out", err)
	}
	time.Sleep(4 * probeLimit)
	if st := conn.State(); st.Status != StatusReady {
		t.Errorf("while dispatch held the ping's answer: %+v; want the server kept", st)
	}
	close(release)
	waitFor(t, "the ping to be answered", func() bool { return strings.Contains(logs.Tail(100, 1<<20), "answered ping") })
	if st := conn.State(); st.Status != StatusReady {
		t.Errorf("once dispatch read the ping's answer: %+v; want the server kept", st)
	}
}

// waitFor waits up to 10 s for cond, failing the test if it never holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// A server that serves one call at a time (the Python SDK's sync tools)
// and is still inside a call that outran the short limit its caller chose
// answers the probe's ping only when that call ends: it is busy, not
// wedged, and is kept (its state with it) as long as a call of it may run
// by configuration (--timeout). With the probe's first bound, 5 s, it was
// stopped 5 s after the timeout, and an agent asking short limits could
// have a shared server stopped on every call.
func TestConn_SerialServerFinishingALongCallIsKept(t *testing.T) {
	serialLog := filepath.Join(t.TempDir(), "serial.log")
	logs := newTailBuffer(1 << 20)
	set, err := NewSet([]ServerConfig{stdio("fx", fixtureServer.Path(t), "--serial", "--serial-log", serialLog)},
		Options{CallTimeout: time.Minute, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	_, err = conn.Call(context.Background(), CallRequest{Tool: "block", Arguments: json.RawMessage(`{"ms":6500}`), Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrCallTimeout) {
		t.Fatalf("a call past the limit its caller chose: %v; want its time limit", err)
	}
	// The ping is read, and answered, once the long call ends.
	waitFor(t, "the server to read the probe's ping", func() bool {
		data, _ := os.ReadFile(serialLog)
		return strings.Contains(string(data), "\nping ")
	})
	raw, err := conn.Call(context.Background(), CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"still me"}`)})
	if err != nil || !strings.Contains(string(raw), "still me") {
		t.Fatalf("echo after the long call: %v %s", err, raw)
	}
	data, _ := os.ReadFile(serialLog)
	if starts := strings.Count(string(data), "start "); starts != 1 {
		t.Errorf("the server was started %d times; want once (kept, not stopped as wedged):\n%s", starts, data)
	}
	if strings.Contains(logs.Tail(100, 1<<20), "wedged") {
		t.Errorf("the log says the busy server was wedged:\n%s", logs.Tail(100, 1<<20))
	}
}
