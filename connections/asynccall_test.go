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

// startedFixture is a Set of one fixture server, started and listed, so
// that StartCall can begin calls on it; cancelLog is where the fixture
// notes the calls it saw cancelled.
func startedFixture(t *testing.T) (conn *Conn, cancelLog string) {
	t.Helper()
	cancelLog = filepath.Join(t.TempDir(), "cancelled")
	set, err := NewSet([]ServerConfig{stdio("fx", fixtureServer.Path(t), "--cancel-log", cancelLog)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn = set.Conns()[0]
	if _, ok := conn.StartCall(context.Background(), CallRequest{Tool: "echo"}, func(json.RawMessage, error) {
		t.Error("a call StartCall refused was answered")
	}); ok {
		t.Fatal("StartCall began a call on a server that is not running: it must leave that to Call")
	}
	if st := conn.State().Status; st != StatusIdle {
		t.Fatalf("a refused StartCall started the server (status %s)", st)
	}
	if _, err := conn.Tools(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	return conn, cancelLog
}

// outcome is what a StartCall's done got.
type outcome struct {
	raw json.RawMessage
	err error
}

func startCall(t *testing.T, conn *Conn, req CallRequest) (cancel func(), answers chan outcome) {
	t.Helper()
	answers = make(chan outcome, 2)
	cancel, ok := conn.StartCall(context.Background(), req, func(raw json.RawMessage, err error) {
		answers <- outcome{raw, err}
	})
	if !ok {
		t.Fatal("StartCall did not begin a call on a ready stdio server")
	}
	return cancel, answers
}

func waitOutcome(t *testing.T, answers chan outcome) outcome {
	t.Helper()
	select {
	case got := <-answers:
		return got
	case <-time.After(10 * time.Second):
		t.Fatal("StartCall's call was never answered")
		return outcome{}
	}
}

// noSecondAnswer fails if done is called again.
func noSecondAnswer(t *testing.T, answers chan outcome) {
	t.Helper()
	select {
	case got := <-answers:
		t.Errorf("done was called twice; the second time with %s, %v", got.raw, got.err)
	case <-time.After(200 * time.Millisecond):
	}
}

// waitCancelLogged waits for the fixture to note that it saw the call
// tagged tag cancelled (notifications/cancelled reached it).
func waitCancelLogged(t *testing.T, cancelLog, line string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(cancelLog)
		if strings.Contains(string(data), line) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the server never saw %q: notifications/cancelled did not reach it", line)
}

func TestStartCall_Answers(t *testing.T) {
	conn, _ := startedFixture(t)
	_, answers := startCall(t, conn, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"hi there"}`), Timeout: time.Minute})
	got := waitOutcome(t, answers)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if !strings.Contains(string(got.raw), "hi there") {
		t.Errorf("result = %s, want the echoed message", got.raw)
	}
	noSecondAnswer(t, answers)
	if _, ok := conn.StartCall(context.Background(), CallRequest{Tool: "echo", OnProgress: func(map[string]any) {}}, nil); ok {
		t.Error("StartCall began a call with progress, which only Call relays")
	}
}

func TestStartCall_CancelTellsTheServerAndAnswersOnce(t *testing.T) {
	conn, cancelLog := startedFixture(t)
	cancel, answers := startCall(t, conn, CallRequest{Tool: "hang", Arguments: json.RawMessage(`{"tag":"c1"}`)})
	time.Sleep(100 * time.Millisecond) // let it reach the server
	cancel()
	cancel() // a second cancellation changes nothing
	got := waitOutcome(t, answers)
	if got.err == nil || !errors.Is(got.err, context.Canceled) || !strings.Contains(got.err.Error(), "abandoned: the caller stopped waiting") {
		t.Errorf("error = %v, want Call's for a caller that gave up", got.err)
	}
	waitCancelLogged(t, cancelLog, "cancelled hang c1")
	noSecondAnswer(t, answers)
}

func TestStartCall_TimeoutTellsTheServer(t *testing.T) {
	conn, cancelLog := startedFixture(t)
	_, answers := startCall(t, conn, CallRequest{Tool: "hang", Arguments: json.RawMessage(`{"tag":"t1"}`), Timeout: 300 * time.Millisecond})
	got := waitOutcome(t, answers)
	if !errors.Is(got.err, ErrCallTimeout) {
		t.Errorf("error = %v, want ErrCallTimeout", got.err)
	}
	waitCancelLogged(t, cancelLog, "cancelled hang t1")
	noSecondAnswer(t, answers)
	if conn.State().Status != StatusReady {
		t.Errorf("a timed-out call left the connection %s; the server is fine", conn.State().Status)
	}
}

func TestStartCall_ServerExitAnswers(t *testing.T) {
	conn, _ := startedFixture(t)
	_, answers := startCall(t, conn, CallRequest{Tool: "hang", Arguments: json.RawMessage(`{"tag":"x1"}`)})
	time.Sleep(100 * time.Millisecond)
	conn.mu.Lock()
	sess := conn.sess
	conn.mu.Unlock()
	if err := sess.stdio.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	got := waitOutcome(t, answers)
	if !errors.Is(got.err, ErrServerGone) {
		t.Errorf("error = %v, want ErrServerGone", got.err)
	}
	noSecondAnswer(t, answers)
}

// The calls of a connection share one expiry timer, left armed past their
// answers: a call with a shorter limit than the one armed for must still
// end on time (the timer re-arms earlier), a call answered in time is not
// expired when the timer later fires, and a call begun after the timer
// fired with nothing left to expire is expired too (it re-arms).
func TestStartCall_SharedExpiryClock(t *testing.T) {
	conn, cancelLog := startedFixture(t)
	_, answered := startCall(t, conn, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"in time"}`), Timeout: 400 * time.Millisecond})
	if got := waitOutcome(t, answered); got.err != nil {
		t.Fatalf("a quick call failed: %v", got.err)
	}
	_, long := startCall(t, conn, CallRequest{Tool: "hang", Arguments: json.RawMessage(`{"tag":"long"}`), Timeout: time.Minute})
	began := time.Now()
	_, short := startCall(t, conn, CallRequest{Tool: "hang", Arguments: json.RawMessage(`{"tag":"short"}`), Timeout: 300 * time.Millisecond})
	if got := waitOutcome(t, short); !errors.Is(got.err, ErrCallTimeout) {
		t.Fatalf("the short call ended with %v, want ErrCallTimeout", got.err)
	}
	if waited := time.Since(began); waited > 5*time.Second {
		t.Errorf("the 300ms call expired after %s: it waited for the longer call's deadline", waited)
	}
	waitCancelLogged(t, cancelLog, "cancelled hang short")
	noSecondAnswer(t, answered) // the timer armed for it fired meanwhile
	select {
	case got := <-long:
		t.Fatalf("the call with a minute's limit ended early: %s %v", got.raw, got.err)
	default:
	}
	// The timer has fired with nothing due and re-armed for the long call
	// alone; a new short one must move it earlier again.
	_, again := startCall(t, conn, CallRequest{Tool: "hang", Arguments: json.RawMessage(`{"tag":"again"}`), Timeout: 300 * time.Millisecond})
	if got := waitOutcome(t, again); !errors.Is(got.err, ErrCallTimeout) {
		t.Errorf("the call begun after the timer fired ended with %v, want ErrCallTimeout", got.err)
	}
	waitCancelLogged(t, cancelLog, "cancelled hang again")
}

// A call answered in time leaves its connection's expiry clock: its time
// limit is forgotten after the answer is handed on (answered), and must
// be forgotten then, or the clock would hold every call ever answered.
func TestStartCall_AnsweredCallsLeaveTheExpiryClock(t *testing.T) {
	conn, _ := startedFixture(t)
	for i := range 20 {
		_, answers := startCall(t, conn, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"in time"}`), Timeout: time.Minute})
		if got := waitOutcome(t, answers); got.err != nil {
			t.Fatalf("call %d: %v", i, got.err)
		}
	}
	waiting := func() int {
		conn.expiries.mu.Lock()
		defer conn.expiries.mu.Unlock()
		return len(conn.expiries.calls)
	}
	// The limit is forgotten just after done returns: wait for it.
	for deadline := time.Now().Add(5 * time.Second); waiting() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := waiting(); n > 0 {
		t.Errorf("%d answered calls are still on the expiry clock", n)
	}
}
