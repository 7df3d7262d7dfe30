package toon

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// benchRand is a small deterministic generator (xorshift) so benchmark
// documents are the same on every run.
type benchRand uint64

func (r *benchRand) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = benchRand(x)
	return x
}

func (r *benchRand) intn(n int) int { return int(r.next() % uint64(n)) }

var benchWords = []string{"fast", "tiny", "json", "toon", "proxy", "server", "cli", "kit", "lib", "tool", "web", "data", "api", "go", "rust", "react", "vue", "cloud", "edge", "lite"}

// reposJSON returns a GitHub-repositories-like list of n flat objects, the
// shape of the TOON project's own "GitHub repos" benchmark.
func reposJSON(n int) []byte {
	r := benchRand(42)
	var b bytes.Buffer
	b.WriteString(`{"repositories":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		w1, w2 := benchWords[r.intn(len(benchWords))], benchWords[r.intn(len(benchWords))]
		owner := benchWords[r.intn(len(benchWords))]
		fmt.Fprintf(&b, `{"id":%d,"name":"%s-%s","repo":"%s/%s-%s","description":"A %s %s for %s, with %s support","createdAt":"20%02d-%02d-%02dT%02d:%02d:%02dZ","updatedAt":"2025-%02d-%02dT10:00:00Z","stars":%d,"watchers":%d,"forks":%d,"defaultBranch":"%s","archived":%t}`,
			28457823+r.intn(900000000), w1, w2, owner, w1, w2, w1, w2, benchWords[r.intn(len(benchWords))], benchWords[r.intn(len(benchWords))],
			10+r.intn(15), 1+r.intn(12), 1+r.intn(28), r.intn(24), r.intn(60), r.intn(60), 1+r.intn(12), 1+r.intn(28),
			r.intn(400000), r.intn(9000), r.intn(80000), []string{"main", "master", "develop"}[r.intn(3)], r.intn(10) == 0)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// tabularJSON returns a uniform table of about size bytes of JSON.
func tabularJSON(size int) []byte {
	r := benchRand(7)
	var b bytes.Buffer
	b.WriteString(`{"rows":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"%s %s","email":"user%d@example.com","age":%d,"score":%d.%02d,"active":%t,"tag":"%s"}`,
			i, benchWords[r.intn(len(benchWords))], benchWords[r.intn(len(benchWords))], i, 18+r.intn(60), r.intn(1000), 1+r.intn(99), r.intn(2) == 0, benchWords[r.intn(len(benchWords))])
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func benchmarkEncode(b *testing.B, data []byte) {
	v, err := ParseJSON(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Encode(io.Discard, v, EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkEncodeJSON(b *testing.B, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer() // building data is not part of the measure
	for i := 0; i < b.N; i++ {
		if err := EncodeJSON(io.Discard, bytes.NewReader(data), EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode_* encode an already parsed Value; BenchmarkEncodeJSON_*
// include reading the JSON. Bytes/s are of JSON input.
func BenchmarkEncode_Repos100(b *testing.B)        { benchmarkEncode(b, reposJSON(100)) }
func BenchmarkEncodeJSON_Repos100(b *testing.B)    { benchmarkEncodeJSON(b, reposJSON(100)) }
func BenchmarkEncode_Tabular10MB(b *testing.B)     { benchmarkEncode(b, tabularJSON(10<<20)) }
func BenchmarkEncodeJSON_Tabular10MB(b *testing.B) { benchmarkEncodeJSON(b, tabularJSON(10<<20)) }

func BenchmarkParseJSON_Tabular10MB(b *testing.B) {
	data := tabularJSON(10 << 20)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseJSON(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode_Tabular10MB(b *testing.B) {
	var doc bytes.Buffer
	if err := EncodeJSON(&doc, bytes.NewReader(tabularJSON(10<<20)), EncodeOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(doc.Len()))
	for i := 0; i < b.N; i++ {
		if _, err := Decode(doc.Bytes(), DefaultDecodeOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseJSON_TreeSize reports how much live heap the parsed Value
// of the 10 MB table holds, as a multiple of the JSON size (tree-x).
func BenchmarkParseJSON_TreeSize(b *testing.B) {
	data := tabularJSON(10 << 20)
	var before, after runtime.MemStats
	var v Value
	for i := 0; i < b.N; i++ {
		v = Value{}
		runtime.GC()
		runtime.ReadMemStats(&before)
		var err error
		if v, err = ParseJSON(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(data)), "tree-x")
	runtime.KeepAlive(v)
}
