package upstream

import (
	"bytes"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
)

// heldWriter collects what is written; its first Write waits until
// release is closed, as a write to an agent that is slow to read does.
type heldWriter struct {
	entered chan struct{}
	release chan struct{}
	mu      sync.Mutex
	writes  int
	buf     bytes.Buffer
}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	first := w.writes == 1
	w.buf.Write(p)
	w.mu.Unlock()
	if first {
		close(w.entered)
		<-w.release
	}
	return len(p), nil
}

// Lines written while another is being written are not waited for: they
// go out together, whole, in one more write, after it.
func TestGroupWriter_CoalescesWhileAWriteIsUnderWay(t *testing.T) {
	w := &heldWriter{entered: make(chan struct{}), release: make(chan struct{})}
	g := newGroupWriter(w, slog.New(slog.DiscardHandler))
	first := make(chan struct{})
	go func() {
		g.writeLine([]byte("first\n"))
		close(first)
	}()
	<-w.entered
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() { g.writeLine(fmt.Appendf(nil, "line %d\n", i)) })
	}
	wg.Wait() // all returned while the first write is still held
	close(w.release)
	<-first
	if w.writes != 2 {
		t.Errorf("%d writes for 11 lines, 10 of them written while the first was under way; want 2", w.writes)
	}
	lines := strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
	if len(lines) != 11 || lines[0] != "first" {
		t.Fatalf("written:\n%s", w.buf.String())
	}
	rest := lines[1:]
	sort.Strings(rest)
	for i, l := range rest {
		if l != fmt.Sprintf("line %d", i) {
			t.Errorf("line %q: want every line once, whole", l)
		}
	}
	g.writeLine([]byte("alone\n"))
	if w.writes != 3 || !strings.HasSuffix(w.buf.String(), "alone\n") {
		t.Errorf("a lone line after the burst: %d writes, %q", w.writes, w.buf.String())
	}
}
