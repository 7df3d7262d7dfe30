package connections

import (
	"bytes"
	"sync"
)

// DefaultStderrLimit bounds how much of a server's stderr is kept. Only the
// tail matters for diagnosis; a server that floods stderr must not grow
// dispatch's memory.
const DefaultStderrLimit = 64 << 10

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	dropped int64
}

func newTailBuffer(limit int) *tailBuffer {
	if limit <= 0 {
		limit = DefaultStderrLimit
	}
	return &tailBuffer{limit: limit}
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.limit {
		t.dropped += int64(len(t.buf) + len(p) - t.limit)
		t.buf = append(t.buf[:0], p[len(p)-t.limit:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.limit; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Tail returns up to the last maxLines complete-looking lines, at most
// maxBytes long.
func (t *tailBuffer) Tail(maxLines, maxBytes int) string {
	t.mu.Lock()
	data := bytes.TrimRight(t.buf, "\r\n\t ")
	if len(data) > maxBytes {
		data = data[len(data)-maxBytes:]
	}
	out := make([]byte, len(data))
	copy(out, data)
	t.mu.Unlock()
	lines := bytes.Split(out, []byte("\n"))
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

func (t *tailBuffer) Reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}
