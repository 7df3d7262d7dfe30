// Command searcheval prints dispatch's search hit rates on the evaluation
// set: the share of agent-phrased queries whose acceptable tool ranks
// first (top-1) and within the first five (top-5), with every miss:
//
//	go run ./scripts/searcheval [-catalogs testdata/catalogs] [-eval testdata/search-eval.json]
package main

import (
	"flag"
	"fmt"
	"os"

	"dispatch/toolsearch"
)

func main() {
	dir := flag.String("catalogs", "testdata/catalogs", "directory of tool catalogs")
	eval := flag.String("eval", "testdata/search-eval.json", "queries with their acceptable tools")
	flag.Parse()
	report, err := toolsearch.Evaluate(*dir, *eval)
	if err != nil {
		fmt.Fprintln(os.Stderr, "searcheval:", err)
		os.Exit(1)
	}
	fmt.Print(report)
}
