package upstream

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// A call is answered once, whatever mix of Answer and Panic reaches it: a
// second answer would reach the agent, and would free the call's slot and
// end its handler a second time (a negative WaitGroup is a crash).
func TestHotStart_AnswersOnce(t *testing.T) {
	for _, order := range []string{"answer,panic", "panic,answer", "answer,answer"} {
		t.Run(order, func(t *testing.T) {
			var out bytes.Buffer
			s := &stdioServer{
				out:      newGroupWriter(&out, slog.New(slog.DiscardHandler)),
				log:      slog.New(slog.DiscardHandler),
				slots:    make(chan struct{}, 2),
				inFlight: map[string]canceller{},
			}
			// This call's slot and handler, and another call's.
			s.slots <- struct{}{}
			s.slots <- struct{}{}
			s.handlers.Add(2)
			h := &hotStart{s: s, id: []byte(`7`), key: "7"}
			for _, step := range strings.Split(order, ",") {
				if step == "answer" {
					h.Answer([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}`))
				} else {
					h.Panic(errors.New("boom"))
				}
			}
			if lines := strings.Count(out.String(), "\n"); lines != 1 {
				t.Errorf("%d answers written; want 1:\n%s", lines, out.String())
			}
			if len(s.slots) != 1 {
				t.Errorf("%d slots taken after the call's end; want 1, the other call's", len(s.slots))
			}
		})
	}
}
