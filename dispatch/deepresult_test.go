package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"dispatch/connections"
	"dispatch/spill"
)

// heldAnswer is a HotAnswer whose Answer waits until release is closed,
// then hands the answer on.
type heldAnswer struct {
	release chan struct{}
	got     chan []byte
}

func (h *heldAnswer) Answer(answer []byte) {
	<-h.release
	h.got <- append([]byte(nil), answer...)
}
func (h *heldAnswer) Panic(r any)                   { panic(r) }
func (h *heldAnswer) Batch() *connections.SendBatch { return nil }

// A result nested too deep to answer inline is saved off the goroutine
// that reads its server's answers, as any saved result is, whatever its
// size: with --threshold 0 nothing is saved on size, and before, a small
// deep result was saved (and answered) on that goroutine, holding up the
// server's other answers for as long as the save took. Answer here holds
// until CallDone has returned, which it could not do were the save (and
// the answer after it) on CallDone's goroutine.
func TestStartedCall_DeepResultSavedOffTheReader(t *testing.T) {
	store, err := spill.Open(spill.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	set, err := connections.NewSet([]connections.ServerConfig{{Transport: connections.TransportStdio, Command: "unused-server"}}, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(set, Options{Spill: store, Threshold: 0})
	req := Request{Action: "call", Tool: "deep", Arguments: json.RawMessage(`{}`)}
	to := &heldAnswer{release: make(chan struct{}), got: make(chan []byte, 1)}
	t.Cleanup(func() {
		select {
		case <-to.release:
		default:
			close(to.release) // frees a CallDone the test gave up on
		}
	})
	c := &startedCall{s: s, conn: set.Conns()[0], req: req, checked: req, to: to,
		ctx: context.Background(), timeout: time.Minute, started: time.Now()}
	const depth = 20000
	raw := json.RawMessage(`{"content":[{"type":"text","text":"deep"}],"structuredContent":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)

	returned := make(chan struct{})
	go func() {
		c.CallDone(raw, nil)
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("CallDone saved and answered the deep result on the reading goroutine: it has not returned while the answer waits")
	}
	close(to.release)
	var answer struct {
		Content []struct{ Text string }
	}
	if err := json.Unmarshal(<-to.got, &answer); err != nil || len(answer.Content) != 1 {
		t.Fatalf("answer: %v", err)
	}
	var resp CallResponse
	if err := json.Unmarshal([]byte(answer.Content[0].Text), &resp); err != nil || resp.Spill == nil || !resp.Spill.AutoSpilled {
		t.Fatalf("want the result saved to a file, got %.300s (%v)", answer.Content[0].Text, err)
	}
}

// discardAnswer is a HotAnswer that keeps nothing.
type discardAnswer struct{}

func (discardAnswer) Answer([]byte)                 {}
func (discardAnswer) Panic(r any)                   { panic(r) }
func (discardAnswer) Batch() *connections.SendBatch { return nil }

// A 1 MiB result the hot path cannot pass through (a member it does not
// know), answered by the general path's code: resultFile's depth scan of
// it runs once, in CallDone (before, once in passThrough and again in
// callResponse).
func BenchmarkStartedCall_CallDoneReshaped(b *testing.B) {
	store, err := spill.Open(spill.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	set, err := connections.NewSet([]connections.ServerConfig{{Transport: connections.TransportStdio, Command: "unused-server"}}, connections.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := New(set, Options{Spill: store, Threshold: 0})
	req := Request{Action: "call", Tool: "big", Arguments: json.RawMessage(`{}`)}
	raw := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}],"extra":1}`)
	c := &startedCall{s: s, conn: set.Conns()[0], req: req, checked: req, to: discardAnswer{},
		ctx: context.Background(), timeout: time.Minute, started: time.Now()}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		c.CallDone(raw, nil)
	}
}
