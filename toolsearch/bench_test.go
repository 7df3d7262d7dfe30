package toolsearch

import (
	"fmt"
	"testing"
)

// docs1000 replicates the real catalogs up to n tools, each copy on its own
// connection names, as a proxy with many servers would see them.
func docs1000(b *testing.B, n int) []Doc {
	b.Helper()
	base := loadDocs(b)
	docs := make([]Doc, 0, n)
	for copyN := 0; len(docs) < n; copyN++ {
		for _, d := range base {
			if len(docs) == n {
				break
			}
			d.Connection = fmt.Sprintf("%s-%d", d.Connection, copyN)
			docs = append(docs, d)
		}
	}
	return docs
}

var benchQueries = []string{
	"take a screenshot of the page",
	"create a new branch in the repo",
	"remember that Alice works at Acme",
	"list files in a directory",
	"run a sql query",
	"get driving directions from Boston to New York",
	"kubectl_logs",
	"screenshoot of the page",
	"what is in demo://resource/dynamic/text/5",
	"show me the contents of notes.md",
}

func BenchmarkSearch1000(b *testing.B) {
	ix := New(docs1000(b, 1000))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Search(benchQueries[i%len(benchQueries)], 10)
	}
}

// BenchmarkSearchLoaded1000 is BenchmarkSearch1000 over the index saved
// and loaded, whose postings are read as each query looks its terms up.
func BenchmarkSearchLoaded1000(b *testing.B) {
	data, err := New(docs1000(b, 1000)).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	ix, err := LoadIndex(data)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Search(benchQueries[i%len(benchQueries)], 10)
	}
}

func BenchmarkNew1000(b *testing.B) {
	docs := docs1000(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		New(docs)
	}
}

// BenchmarkLoad1000 loads a saved index of 1000 tools; compare with
// BenchmarkNew1000, which builds it.
func BenchmarkLoad1000(b *testing.B) {
	data, err := New(docs1000(b, 1000)).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := LoadIndex(data); err != nil {
			b.Fatal(err)
		}
	}
}
