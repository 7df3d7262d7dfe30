package toolsearch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unsafe"
)

// An index is saved so that a one-shot search in a new process can answer
// without building it again: building costs far more than loading, and
// most of a warm search's time went there. The format is versioned and
// every count and reference in it is checked on load, so a corrupt or
// hostile file is refused with an error, never trusted.
//
// Loading reads every term but none of their postings: each term's list
// is stored with its size, skipped on load, and read when a query looks
// the term up (savedTerms.lookup), where it is checked as it is read. A
// query reads a few dozen terms of thousands; decoding every posting into
// maps and slices was most of a warm search's work past process start.
// A list that turns out bad then makes its term match nothing (the file
// is checksummed by its caller, so only a forged one can hold such a
// list, and a forger of the cache could as well write a well-formed
// index that ranks as it likes).

// persistMagic starts every saved index; persistVersion changes whenever
// the format does, or anything that decides the index's contents (the
// analyzer, the stop words, related words, the model): an index saved by
// another version is refused and rebuilt.
const (
	persistMagic   = "dispatch-toolsearch-index\n"
	persistVersion = 3
)

// ErrIndexFormat wraps every reason a saved index is refused.
var ErrIndexFormat = errors.New("saved search index unusable")

// MarshalBinary encodes ix for LoadIndex. A loaded index answers every
// search exactly as ix does; its Doc holds only Connection, Kind, Name and
// URI, which is all that searching reads.
func (ix *Index) MarshalBinary() ([]byte, error) {
	w := &indexWriter{}
	w.buf = append(w.buf, persistMagic...)
	w.uint(persistVersion)
	w.model(ix.m)
	w.uint(uint64(len(ix.docs)))
	for _, d := range ix.docs {
		w.str(d.Connection)
		w.str(d.Kind)
		w.str(d.Name)
		w.str(d.URI)
	}
	// Terms in sorted order, so that LoadIndex can rebuild the vocabulary
	// and a term is referred to by its position; each term's postings
	// after their size in bytes, so that LoadIndex can skip them.
	terms := ix.sortedTerms()
	pos := make(map[string]uint64, len(terms))
	w.uint(uint64(len(terms)))
	var posts indexWriter
	for i, t := range terms {
		pos[t] = uint64(i)
		e := ix.lookup(t)
		w.str(t)
		w.float(e.idf)
		w.uint(uint64(len(e.posts)))
		posts.buf = posts.buf[:0]
		for _, p := range e.posts {
			posts.uint(uint64(p.doc))
			posts.float(p.tf)
			// A posting's slot is -1 or one of its doc's own slots.
			if p.slot < 0 {
				posts.uint(0)
			} else {
				posts.uint(uint64(p.slot-ix.slotStart[p.doc]) + 1)
			}
		}
		w.uint(uint64(len(posts.buf)))
		w.buf = append(w.buf, posts.buf...)
	}
	for d := range ix.docs {
		slots := ix.slotTerm[ix.slotStart[d]:ix.slotStart[d+1]]
		w.uint(uint64(len(slots)))
		for _, t := range slots {
			w.uint(pos[t])
		}
		w.float(ix.factor[d])
		w.uint(uint64(ix.rank[d]))
	}
	w.docMap(ix.names)
	w.docMap(ix.titles)
	return w.buf, nil
}

// LoadIndex decodes an index saved by MarshalBinary. Anything that is not
// exactly such an index, of this version and ranking model, is an error
// wrapping ErrIndexFormat.
//
// The index keeps data: its terms and names are strings that point into
// it, not a copy (a warm search loads the whole index, and copying it
// cost a tenth of the load), so data must not change afterwards.
func LoadIndex(data []byte) (*Index, error) {
	r := &indexReader{buf: data, all: unsafe.String(unsafe.SliceData(data), len(data))}
	if !strings.HasPrefix(string(data[:min(len(data), len(persistMagic))]), persistMagic) {
		return nil, fmt.Errorf("%w: not a search index", ErrIndexFormat)
	}
	r.buf = r.buf[len(persistMagic):]
	if v := r.uint(); v != persistVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrIndexFormat, v, persistVersion)
	}
	if m := r.model(); r.err == nil && m != defaultModel {
		return nil, fmt.Errorf("%w: saved with another ranking model", ErrIndexFormat)
	}
	n := r.count(4)
	ix := &Index{m: defaultModel, docs: make([]Doc, n)}
	for i := range ix.docs {
		ix.docs[i] = Doc{Connection: r.str(), Kind: r.str(), Name: r.str(), URI: r.str()}
	}
	nterms := r.count(minTermBytes)
	saved := &savedTerms{data: data, names: make([]string, nterms), idf: make([]float64, nterms),
		at: make([]int, nterms), end: make([]int, nterms), count: make([]int, nterms)}
	terms := saved.names
	ix.saved = saved
	ix.vocab = make([]string, 0, nterms)
	for i := range terms {
		t := r.str()
		if r.err == nil && i > 0 && t <= terms[i-1] {
			r.fail("terms out of order")
		}
		terms[i] = t
		saved.idf[i] = r.float()
		count, size := r.uint(), r.uint()
		if r.err == nil && (size > uint64(len(r.buf)) || count > size/minPostingBytes) {
			r.fail("posting list larger than the data")
		}
		if r.err != nil {
			return nil, r.err
		}
		saved.count[i] = int(count)
		saved.at[i] = len(data) - len(r.buf)
		saved.end[i] = saved.at[i] + int(size)
		r.buf = r.buf[size:]
		if !strings.Contains(t, "_") {
			ix.vocab = append(ix.vocab, t)
		}
	}
	ix.slotStart = make([]int32, n+1)
	ix.nameIdf = make([]float64, n)
	ix.factor = make([]float64, n)
	ix.rank = make([]int, n)
	seenRank := make([]bool, n)
	for d := 0; d < n && r.err == nil; d++ {
		ix.slotStart[d] = int32(len(ix.slotTerm))
		for k := r.count(1); k > 0 && r.err == nil; k-- {
			t := r.uint()
			if t >= uint64(nterms) {
				r.fail("name slot refers to no term")
				break
			}
			idf := saved.idf[t]
			ix.slotTerm = append(ix.slotTerm, terms[t])
			ix.slotIdf = append(ix.slotIdf, idf)
			ix.nameIdf[d] += idf
		}
		ix.factor[d] = r.float()
		rank := r.uint()
		if r.err == nil && (rank >= uint64(n) || seenRank[rank]) {
			r.fail("ranks are not a permutation")
			break
		}
		if r.err == nil {
			ix.rank[d], seenRank[rank] = int(rank), true
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	ix.slotStart[n] = int32(len(ix.slotTerm))
	ix.names = r.docMap(n)
	ix.titles = r.docMap(n)
	if r.err == nil && len(r.buf) != 0 {
		r.fail("trailing bytes")
	}
	if r.err != nil {
		return nil, r.err
	}
	return ix, nil
}

// slabItems is how many doc numbers docMap allocates at once: lists are
// short (a name is one tool's), and one allocation each was most of
// LoadIndex's count.
const slabItems = 4096

// The least a saved term and a saved posting take: a term's name length,
// idf, posting count and size; a posting's doc, tf and slot.
const (
	minTermBytes    = 1 + 8 + 1 + 1
	minPostingBytes = 1 + 8 + 1
)

// savedTerms are a loaded index's terms, sorted, each with its idf and
// where its postings are in the saved bytes (data[at:end], count of them).
type savedTerms struct {
	data    []byte
	names   []string
	idf     []float64
	at, end []int
	count   []int
}

// find returns the position of term t.
func (s *savedTerms) find(t string) (int, bool) {
	i := sort.SearchStrings(s.names, t)
	return i, i < len(s.names) && s.names[i] == t
}

// lookup reads the entry of term t, or is nil when no doc has t.
// slotStart is the index's, to place each posting's name slot. A list
// that is not as MarshalBinary writes it (it refers to no doc, or to
// docs out of order, or to a slot the doc has not) is read as empty: the
// term matches nothing.
func (s *savedTerms) lookup(t string, slotStart []int32) *termEntry {
	i, ok := s.find(t)
	if !ok {
		return nil
	}
	e := &termEntry{idf: s.idf[i]}
	r := &indexReader{buf: s.data[s.at[i]:s.end[i]]}
	posts := make([]posting, s.count[i])
	docs := uint64(len(slotStart) - 1)
	for j := range posts {
		doc, tf, slot := r.uint(), r.float(), r.uint()
		if r.err != nil || doc >= docs || (j > 0 && int32(doc) <= posts[j-1].doc) {
			return e
		}
		p := posting{doc: int32(doc), tf: tf, slot: -1}
		if slot > 0 {
			start, end := slotStart[doc], slotStart[doc+1]
			if slot-1 >= uint64(end-start) {
				return e
			}
			p.slot = start + int32(slot-1)
		}
		posts[j] = p
	}
	if len(r.buf) != 0 {
		return e
	}
	e.posts = posts
	return e
}

// sortedTerms are the index's terms in order.
func (ix *Index) sortedTerms() []string {
	if ix.saved != nil {
		return ix.saved.names
	}
	return sortedKeys(ix.terms)
}

type indexWriter struct{ buf []byte }

func (w *indexWriter) uint(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }
func (w *indexWriter) float(f float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(f))
}
func (w *indexWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.buf = append(w.buf, s...)
}

func (w *indexWriter) model(m model) {
	for _, f := range modelNumbers(m) {
		w.float(f)
	}
}

func (w *indexWriter) docMap(m map[string][]int) {
	keys := sortedKeys(m)
	w.uint(uint64(len(keys)))
	for _, k := range keys {
		w.str(k)
		w.uint(uint64(len(m[k])))
		for _, d := range m[k] {
			w.uint(uint64(d))
		}
	}
}

// modelNumbers lists every parameter of m, in a fixed order.
func modelNumbers(m model) []float64 {
	out := append(append([]float64{}, m.fieldWeight[:]...), m.fieldB[:]...)
	return append(out, m.k1, m.related, m.prefix, m.fuzzy, m.nameCoverage, m.coord, m.deprecated, m.opposite, m.literal, m.modifier)
}

// indexReader decodes what indexWriter wrote. The first problem sticks in
// err; every later read returns zero values.
type indexReader struct {
	buf []byte
	// all is the whole input as one string, sharing its bytes: every
	// string read is a slice of it, no allocation at all.
	all string
	err error
}

func (r *indexReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrIndexFormat, what)
	}
	r.buf = nil
}

func (r *indexReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.fail("truncated")
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

// count reads a number of items each taking at least minBytes, refusing
// one the rest of the data cannot hold: a hostile count must not make
// LoadIndex allocate more than the file's size.
func (r *indexReader) count(minBytes int) int {
	v := r.uint()
	if r.err == nil && v > uint64(len(r.buf)/minBytes) {
		r.fail("count larger than the data")
		return 0
	}
	return int(v)
}

func (r *indexReader) float() float64 {
	if r.err != nil {
		return 0
	}
	if len(r.buf) < 8 {
		r.fail("truncated")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.buf))
	r.buf = r.buf[8:]
	return f
}

func (r *indexReader) str() string {
	n := r.uint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.buf)) {
		r.fail("truncated")
		return ""
	}
	at := len(r.all) - len(r.buf)
	r.buf = r.buf[n:]
	return r.all[at : at+int(n)]
}

func (r *indexReader) model() model {
	var m model
	nums := modelNumbers(m)
	for i := range nums {
		nums[i] = r.float()
	}
	copy(m.fieldWeight[:], nums)
	copy(m.fieldB[:], nums[numFields:])
	rest := nums[2*numFields:]
	m.k1, m.related, m.prefix, m.fuzzy = rest[0], rest[1], rest[2], rest[3]
	m.nameCoverage, m.coord, m.deprecated, m.opposite = rest[4], rest[5], rest[6], rest[7]
	m.literal, m.modifier = rest[8], rest[9]
	return m
}

func (r *indexReader) docMap(n int) map[string][]int {
	keys := r.count(2)
	m := make(map[string][]int, keys)
	var slab []int
	for k := keys; k > 0 && r.err == nil; k-- {
		key := r.str()
		count := r.count(1)
		if count > cap(slab)-len(slab) {
			slab = make([]int, 0, max(count, slabItems))
		}
		docs := slab[len(slab) : len(slab)+count : len(slab)+count]
		slab = slab[:len(slab)+count]
		for i := range docs {
			d := r.uint()
			if r.err == nil && d >= uint64(n) {
				r.fail("name refers to no document")
			}
			docs[i] = int(d)
		}
		m[key] = docs
	}
	return m
}
