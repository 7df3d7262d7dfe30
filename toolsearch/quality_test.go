package toolsearch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	catalogDir = "../testdata/catalogs"
	evalFile   = "../testdata/search-eval.json"
	// resourceEvalFile holds the requests for resources and prompts.
	resourceEvalFile = "../testdata/search-eval-resources.json"
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

// TestSearchQualityResources runs requests for real servers' resources,
// resource templates and prompts over every kind together (as a search
// without a type does) and fails below the issue's gate: top-3 >= 90%.
func TestSearchQualityResources(t *testing.T) {
	r, err := Evaluate(catalogDir, resourceEvalFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", r)
	if r.Others < 15 || r.Queries < 20 {
		t.Fatalf("evaluation data too small: %d resources/templates/prompts, %d queries (want >= 15, 20)", r.Others, r.Queries)
	}
	if r.Top3Rate() < 0.90 {
		t.Errorf("top-3 hit rate %.1f%% < 90%%", 100*r.Top3Rate())
	}
}

// TestSearchHoldoutIssue12 reports the rates on testdata/search-holdout.json:
// plain-word requests over a different mix of servers, committed before the
// ranker was tuned for issue 12 and never used to tune it. No gate, as for
// TestSearchHoldout.
func TestSearchHoldoutIssue12(t *testing.T) {
	r, err := Evaluate(catalogDir, "../testdata/search-holdout.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", r)
}

// TestSearchQualityReview7 runs review 7's requests over the reviewer's
// configuration (server-everything, filesystem and memory: the set's
// servers) and fails below its gate: top-1 >= 90%, top-3 >= 95%.
func TestSearchQualityReview7(t *testing.T) {
	r, err := Evaluate(catalogDir, "../testdata/search-eval-rev7.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", r)
	if r.Catalogs != 3 || r.Tools != 36 || r.Queries < 30 {
		t.Fatalf("evaluation data: %d catalogs, %d tools, %d queries (want 3, 36, >= 30)", r.Catalogs, r.Tools, r.Queries)
	}
	// The reviewer saw about 24 of 33 first and 30 in the first three.
	if r.Top1Rate() < 0.90 {
		t.Errorf("top-1 hit rate %.1f%% < 90%%", 100*r.Top1Rate())
	}
	if r.Top3Rate() < 0.95 {
		t.Errorf("top-3 hit rate %.1f%% < 95%%", 100*r.Top3Rate())
	}
}

// TestSearchHoldoutReview7 reports testdata/search-holdout-rev7.json: the
// same three servers in other words, never used to tune. No gate.
func TestSearchHoldoutReview7(t *testing.T) {
	r, err := Evaluate(catalogDir, "../testdata/search-holdout-rev7.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", r)
}

// TestEvaluate_UnknownServer: a set naming a server no catalog has is an
// error, not a set measured over nothing.
func TestEvaluate_UnknownServer(t *testing.T) {
	set := filepath.Join(t.TempDir(), "set.json")
	if err := os.WriteFile(set, []byte(`{"servers":["everything","nosuch"],"queries":[{"query":"echo","expect":["everything/echo"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Evaluate(catalogDir, set)
	if err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Fatalf("got %v, want an error naming the server nosuch", err)
	}
}
