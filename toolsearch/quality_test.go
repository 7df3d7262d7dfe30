package toolsearch

import "testing"

const (
	catalogDir = "../testdata/catalogs"
	evalFile   = "../testdata/search-eval.json"
)

// TestSearchQuality runs the evaluation queries over the real catalogs and
// fails below the quality gate. Run with -v to see the rates and misses.
func TestSearchQuality(t *testing.T) {
	r, err := Evaluate(catalogDir, evalFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", r)
	if r.Catalogs < 12 || r.Tools < 200 || r.Queries < 60 {
		t.Fatalf("evaluation data too small: %d catalogs, %d tools, %d queries (want >= 12, 200, 60)",
			r.Catalogs, r.Tools, r.Queries)
	}
	if r.Top5Rate() < 0.95 {
		t.Errorf("top-5 hit rate %.1f%% < 95%%", 100*r.Top5Rate())
	}
	if r.Top1Rate() < 0.75 {
		t.Errorf("top-1 hit rate %.1f%% < 75%%", 100*r.Top1Rate())
	}
}

// TestSearchHoldout reports the rates on queries that were written after
// the first ranker and never used to tune it. It has no gate: it tells
// whether the tuning on search-eval.json generalizes.
func TestSearchHoldout(t *testing.T) {
	r, err := Evaluate(catalogDir, "testdata/holdout-eval.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", r)
}
