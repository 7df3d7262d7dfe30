// Command contextbudget prints what dispatch costs an agent's context —
// its tool definition and its list, search and info answers — against the
// tool definitions of the real catalogs it replaces:
//
//	go run ./scripts/contextbudget [-catalogs testdata/catalogs] [-servers 16]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"dispatch/dispatch"
)

func main() {
	dir := flag.String("catalogs", "testdata/catalogs", "directory of catalogs from scripts/collect-catalogs.sh")
	servers := flag.Int("servers", 16, "servers in the default list")
	flag.Parse()
	queries := []string{
		"take a screenshot of the page", "create a pull request", "send a message to a channel",
		"list files in a directory", "run a sql query", "search the web", "scale a deployment",
		"remember a fact about a person",
	}
	b, err := dispatch.MeasureBudget(context.Background(), *dir, *servers, queries)
	if err != nil {
		fmt.Fprintln(os.Stderr, "contextbudget:", err)
		os.Exit(1)
	}
	fmt.Print(b)
}
