package toolsearch

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestDebugQuery prints the top hits of $TOOLSEARCH_QUERY (queries separated
// by ';') with each concept's contribution, over the catalogs named in
// $TOOLSEARCH_SERVERS (comma-separated) or all. It is skipped unless set.
func TestDebugQuery(t *testing.T) {
	qs := os.Getenv("TOOLSEARCH_QUERY")
	if qs == "" {
		t.Skip("TOOLSEARCH_QUERY not set")
	}
	cats, docs, err := LoadCatalogs(catalogDir)
	if err != nil {
		t.Fatal(err)
	}
	if only := os.Getenv("TOOLSEARCH_SERVERS"); only != "" {
		// As an eval set's servers: "everything,filesystem,memory".
		if _, docs, err = onlyServers(cats, docs, strings.Split(only, ",")); err != nil {
			t.Fatal(err)
		}
	}
	ix := New(docs)
	for _, q := range strings.Split(qs, ";") {
		cs := ix.parseQuery(q)
		fmt.Printf("== %q\n", q)
		for _, c := range cs {
			fmt.Printf("   concept %s: %v\n", c.labels, c.variants)
		}
		for _, h := range ix.Search(q, 8) {
			d := docs[h.Doc]
			var parts []string
			for _, c := range cs {
				bestS, bestT := 0.0, ""
				for _, v := range c.variants {
					e := ix.terms[v.term]
					if e == nil {
						continue
					}
					for _, p := range e.posts {
						s := v.weight * min(e.idf, c.idfCap) * p.tf
						if int(p.doc) == h.Doc && s > bestS {
							bestS, bestT = s, v.term
						}
					}
				}
				if bestS > 0 {
					parts = append(parts, fmt.Sprintf("%s=%s:%.2f", strings.Join(c.labels, "+"), bestT, bestS))
				}
			}
			fmt.Printf("  %6.2f %s/%s  %s\n", h.Score, d.Connection, d.Name, strings.Join(parts, " "))
		}
	}
}
