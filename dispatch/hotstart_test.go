package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"dispatch/connections"
)

// panickingHandler is a log handler that panics on logCall's line: the
// bookkeeping after a call's answer failing.
type panickingHandler struct{ slog.Handler }

func (panickingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (panickingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "call" {
		panic("log handler failed")
	}
	return nil
}

// answers records what a call's HotAnswer got.
type answers struct {
	answered, panicked int
	why                any
}

func (a *answers) Answer([]byte)                 { a.answered++ }
func (a *answers) Panic(r any)                   { a.panicked++; a.why = r }
func (a *answers) Batch() *connections.SendBatch { return nil }

// A panic after a call was answered (in its logging, say) does not answer
// it a second time: the caller frees the call's slot on each answer.
func TestStartedCall_PanicAfterAnswerAnswersOnce(t *testing.T) {
	set, err := connections.NewSet([]connections.ServerConfig{{Transport: connections.TransportStdio, Command: "unused-server"}}, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(set, Options{Logger: slog.New(panickingHandler{})})
	to := &answers{}
	c := &startedCall{s: s, conn: set.Conns()[0], req: Request{Action: "call", Tool: "echo"}, to: to,
		which: func() string { return "--timeout" }, ctx: context.Background(), timeout: time.Minute, started: time.Now()}
	c.finish(nil, errors.New("the server went away"), fileVerdict{})
	if to.answered != 1 || to.panicked != 0 {
		t.Errorf("Answer called %d times, Panic %d times; want Answer once, Panic never (%v)", to.answered, to.panicked, to.why)
	}
}
