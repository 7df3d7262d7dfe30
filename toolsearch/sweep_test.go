package toolsearch

import (
	"fmt"
	"os"
	"testing"
)

// TestSweepModel prints the hit rates when each ranking parameter is moved
// away from the default, to check that the default is not balanced on a
// knife edge. Skipped unless TOOLSEARCH_SWEEP is set.
func TestSweepModel(t *testing.T) {
	if os.Getenv("TOOLSEARCH_SWEEP") == "" {
		t.Skip("TOOLSEARCH_SWEEP not set")
	}
	run := func(name string, m model) {
		r, err := evaluate(catalogDir, evalFile, m)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := evaluate(catalogDir, resourceEvalFile, m)
		if err != nil {
			t.Fatal(err)
		}
		r7, err := evaluate(catalogDir, "../testdata/search-eval-rev7.json", m)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%-28s top-1 %5.1f%%  top-5 %5.1f%%  resources top-3 %5.1f%%  review 7 top-1 %5.1f%%\n",
			name, 100*r.Top1Rate(), 100*r.Top5Rate(), 100*rr.Top3Rate(), 100*r7.Top1Rate())
	}
	run("default", defaultModel)
	scale := []float64{0, 0.5, 1.5, 2}
	for f := field(0); f < numFields; f++ {
		for _, k := range scale {
			m := defaultModel
			m.fieldWeight[f] *= k
			run(fmt.Sprintf("fieldWeight[%d] x%.1f", f, k), m)
		}
	}
	for _, b := range []float64{0, 0.25, 0.5, 0.75, 1} {
		m := defaultModel
		m.fieldB[fieldName], m.fieldB[fieldTitle] = b, b
		run(fmt.Sprintf("b name/title %.2f", b), m)
		m = defaultModel
		m.fieldB[fieldDescription] = b
		run(fmt.Sprintf("b description %.2f", b), m)
	}
	for _, v := range []float64{0.6, 1.2, 2, 3} {
		m := defaultModel
		m.k1 = v
		run(fmt.Sprintf("k1 %.1f", v), m)
	}
	for _, v := range []float64{0, 0.3, 0.45, 0.6, 0.8, 1} {
		m := defaultModel
		m.related = v
		run(fmt.Sprintf("related %.2f", v), m)
	}
	for _, v := range []float64{0, 0.3, 0.5, 0.7} {
		m := defaultModel
		m.prefix = v
		run(fmt.Sprintf("prefix %.1f", v), m)
	}
	for _, v := range []float64{0, 0.5, 1, 2, 3} {
		m := defaultModel
		m.nameCoverage = v
		run(fmt.Sprintf("nameCoverage %.1f", v), m)
	}
	for _, v := range []float64{0.3, 0.5, 0.7, 1} {
		m := defaultModel
		m.opposite = v
		run(fmt.Sprintf("opposite %.1f", v), m)
	}
	for _, v := range []float64{0.5, 0.8, 1} {
		m := defaultModel
		m.deprecated = v
		run(fmt.Sprintf("deprecated %.1f", v), m)
	}
	for _, v := range []float64{0.3, 0.5, 0.7, 1} {
		m := defaultModel
		m.literal = v
		run(fmt.Sprintf("literal %.1f", v), m)
	}
	for _, v := range []float64{0.4, 0.6, 0.8, 1} {
		m := defaultModel
		m.modifier = v
		run(fmt.Sprintf("modifier %.1f", v), m)
	}
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		m := defaultModel
		m.coord = v
		run(fmt.Sprintf("coord %.2f", v), m)
	}
}
