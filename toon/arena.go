package toon

import "strings"

// arena hands out the pieces of a Value tree from shared chunks instead of
// one heap allocation each. Parsing a large document builds millions of
// small strings, slices and containers; carving them from chunks cuts
// allocation and GC work several times over. A chunk lives as long as any
// piece of it is referenced, which suits a tree that is used as a whole.
type arena struct {
	text  strings.Builder // string bytes; see str
	vals  []Value
	keys  []string
	conts []container
}

// Chunks start small, so small documents stay cheap, and double with each
// new chunk up to these sizes.
const (
	textChunk = 64 << 10
	valsChunk = 1024
	keysChunk = 1024
	contChunk = 256
)

// nextChunk returns the size of the chunk after one of size prev.
func nextChunk(prev, first, limit int) int {
	return min(max(2*prev, first), limit)
}

// str returns b as a string. The bytes are appended to a strings.Builder
// whose String() shares its buffer; as long as the append fits in the
// buffer's capacity, earlier strings are unaffected, and when it would not,
// a new buffer is started, so every returned string stays immutable.
func (a *arena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > textChunk/8 {
		return string(b)
	}
	if a.text.Cap()-a.text.Len() < len(b) {
		size := nextChunk(a.text.Cap(), 1<<10, textChunk)
		a.text.Reset()
		a.text.Grow(size)
	}
	start := a.text.Len()
	a.text.Write(b)
	return a.text.String()[start:]
}

// values returns a zeroed []Value of length and capacity n.
func (a *arena) values(n int) []Value {
	if n > valsChunk/8 {
		return make([]Value, n)
	}
	if cap(a.vals)-len(a.vals) < n {
		a.vals = make([]Value, 0, max(n, nextChunk(cap(a.vals), 16, valsChunk)))
	}
	s := a.vals[len(a.vals) : len(a.vals)+n : len(a.vals)+n]
	a.vals = a.vals[:len(a.vals)+n]
	return s
}

// strings returns a zeroed, non-nil []string of length and capacity n
// (objects tell themselves from arrays by a non-nil key list).
func (a *arena) strings(n int) []string {
	if n == 0 {
		return []string{}
	}
	if n > keysChunk/8 {
		return make([]string, n)
	}
	if cap(a.keys)-len(a.keys) < n {
		a.keys = make([]string, 0, max(n, nextChunk(cap(a.keys), 16, keysChunk)))
	}
	s := a.keys[len(a.keys) : len(a.keys)+n : len(a.keys)+n]
	a.keys = a.keys[:len(a.keys)+n]
	return s
}

// container returns a new zeroed container.
func (a *arena) container() *container {
	if len(a.conts) == cap(a.conts) {
		a.conts = make([]container, 0, nextChunk(cap(a.conts), 8, contChunk))
	}
	a.conts = a.conts[:len(a.conts)+1]
	return &a.conts[len(a.conts)-1]
}
