package upstream

import (
	"io"
	"log/slog"
	"sync"
)

// maxCoalescedBytes bounds what writers may leave for the one writing to
// the agent to write after its own line. A writer that finds it full
// waits its turn, as without coalescing.
const maxCoalescedBytes = 1 << 20

// maxKeptBuffer bounds the buffer kept between bursts for pending lines:
// one grown larger by a burst is left to the collector.
const maxKeptBuffer = 64 << 10

// groupWriter writes whole lines to the agent, never interleaved, with as
// few system calls as the load allows (a group commit): a writer that
// finds another writing appends its line to pending and returns, and the
// one writing writes pending too before it lets go. A lone line goes out
// at once, so no answer waits for company: no timer, no added latency.
type groupWriter struct {
	out io.Writer
	log *slog.Logger

	mu      sync.Mutex
	turn    *sync.Cond // signalled when writing stops
	writing bool       // someone is in out.Write, or about to be
	pending []byte     // lines to write after the current write
	spare   []byte     // the last buffer written, for pending to reuse
}

func newGroupWriter(out io.Writer, log *slog.Logger) *groupWriter {
	w := &groupWriter{out: out, log: log}
	w.turn = sync.NewCond(&w.mu)
	return w
}

// writeLine writes line, line ending included, or leaves it to the
// writer at work. line is not kept past the call.
func (w *groupWriter) writeLine(line []byte) {
	w.mu.Lock()
	if w.writing && len(w.pending)+len(line) <= maxCoalescedBytes {
		w.pending = append(w.pending, line...)
		w.mu.Unlock()
		return
	}
	for w.writing {
		w.turn.Wait()
	}
	w.writing = true
	w.mu.Unlock()
	data, ours := line, false
	for {
		if _, err := w.out.Write(data); err != nil {
			w.log.Debug("write to the agent", "error", err.Error())
		}
		w.mu.Lock()
		if ours && cap(data) <= maxKeptBuffer {
			w.spare = data[:0]
		}
		if len(w.pending) == 0 {
			w.writing = false
			w.turn.Broadcast()
			w.mu.Unlock()
			return
		}
		data, ours = w.pending, true
		w.pending = w.spare
		w.spare = nil
		w.mu.Unlock()
	}
}
