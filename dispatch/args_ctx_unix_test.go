//go:build unix

package dispatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// A read that blocks (here a real FIFO whose writer never writes, as a
// file on a stalled mount would) does not hold the call: it is answered
// when its context ends, by cancel or by its time limit.
func TestAnswerBy_BlockingReadEndsWithContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "stalled")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Hold both ends so the read blocks in read(2), not in open(2).
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); r.Close() })
	blockingRead := func() (gjson.Result, error) {
		_, err := r.Read(make([]byte, 1))
		return gjson.Result{}, err
	}

	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want string
	}{
		{"time limit", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, "deadline exceeded"},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, "canceled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			answered := make(chan error, 1)
			go func() {
				_, err := answerBy(ctx, "stalled", blockingRead)
				answered <- err
			}()
			select {
			case err := <-answered:
				var usage *UsageError
				if !errors.As(err, &usage) || !strings.Contains(err.Error(), "argumentsFile stalled: not read before the call ended") || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("blocked read answered %v, want a usage error saying it was not read (%s)", err, tt.want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("a blocked argumentsFile read was never answered")
			}
		})
	}
	// The reads left behind end once the file answers.
	if _, err := w.Write([]byte("xx")); err != nil {
		t.Fatal(err)
	}
}
