package connections

import (
	"bytes"
	"strings"
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
	// partial is whether buf starts inside a line whose start was dropped.
	partial bool
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
		if len(p) > t.limit {
			t.partial = p[len(p)-t.limit-1] != '\n'
		} else if len(t.buf) > 0 {
			t.partial = t.buf[len(t.buf)-1] != '\n'
		}
		t.dropped += int64(len(t.buf) + len(p) - t.limit)
		t.buf = append(t.buf[:0], p[len(p)-t.limit:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.limit; over > 0 {
		t.dropped += int64(over)
		t.partial = t.buf[over-1] != '\n'
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Tail returns up to the last maxLines complete-looking lines, at most
// maxBytes long. A first line whose start was cut off is left out when a
// whole line follows it (a fragment of a secret would escape masking), and
// never starts inside a UTF-8 character.
func (t *tailBuffer) Tail(maxLines, maxBytes int) string {
	maxBytes = max(maxBytes, 0)
	t.mu.Lock()
	data := bytes.TrimRight(t.buf, "\r\n\t ")
	partial := t.partial
	if len(data) > maxBytes {
		start := len(data) - maxBytes
		partial = data[start-1] != '\n'
		if partial && strings.IndexByte(wordBoundaries, data[start-1]) >= 0 {
			partial = false // cut between words: nothing was cut in two
		}
		data = data[start:]
	}
	out := make([]byte, len(data))
	copy(out, data)
	t.mu.Unlock()
	if partial {
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		} else if i := bytes.IndexAny(out, wordBoundaries); i >= 0 {
			// One long line cut at its start: the cut may have gone through
			// a secret, and its remaining part no longer matches the secret
			// the redactor looks for, so drop everything up to a boundary.
			out = bytes.TrimLeft(out[i:], " \t")
		} else {
			out = nil
		}
	}
	if len(out) == 0 || maxLines <= 0 {
		return ""
	}
	lines := bytes.Split(out, []byte("\n"))
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// wordBoundaries end a token: secrets (keys, passwords, tokens) do not
// contain them.
const wordBoundaries = " \t\"',;&=<>()[]{}"

func (t *tailBuffer) Reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.partial = false
	t.mu.Unlock()
}
