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
}

func BenchmarkSearch1000(b *testing.B) {
	ix := New(docs1000(b, 1000))
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
