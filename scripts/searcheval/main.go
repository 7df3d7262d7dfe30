// Command searcheval prints dispatch's search hit rates on evaluation sets:
// the share of agent-phrased queries whose acceptable tool (or resource,
// template, prompt) ranks first (top-1), within the first three (top-3) and
// within the first five (top-5), with every miss. Without -eval it reports
// the tool set and the resource/prompt set, one after the other:
//
//	go run ./scripts/searcheval [-catalogs testdata/catalogs] [-eval FILE]... [-misses=false]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"dispatch/toolsearch"
)

func main() {
	dir := flag.String("catalogs", "testdata/catalogs", "directory of catalogs")
	var evals evalFiles
	flag.Var(&evals, "eval", "queries with their acceptable docs (repeatable; default: the tool and the resource/prompt sets)")
	misses := flag.Bool("misses", true, "print every miss; -misses=false prints only the rates (for a held-out set)")
	flag.Parse()
	if len(evals) == 0 {
		evals = evalFiles{"testdata/search-eval.json", "testdata/search-eval-resources.json"}
	}
	for _, file := range evals {
		report, err := toolsearch.Evaluate(*dir, file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "searcheval:", err)
			os.Exit(1)
		}
		if !*misses {
			report.Misses = nil
		}
		fmt.Printf("%s: %s", file, report)
	}
}

type evalFiles []string

func (e *evalFiles) String() string     { return strings.Join(*e, ",") }
func (e *evalFiles) Set(s string) error { *e = append(*e, s); return nil }
