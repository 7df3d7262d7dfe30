package dispatch

import (
	"context"
	"testing"
)

// budgetQueries are agent-style tasks over the collected catalogs.
var budgetQueries = []string{
	"take a screenshot of the page", "create a pull request", "send a message to a channel",
	"list files in a directory", "run a sql query", "search the web", "scale a deployment",
	"remember a fact about a person",
}

// TestContextBudget holds dispatch to its context goals on the real
// catalogs in testdata/catalogs.
func TestContextBudget(t *testing.T) {
	b, err := MeasureBudget(context.Background(), "../testdata/catalogs", 16, budgetQueries)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b)
	if b.Servers < 12 || b.Tools < 200 {
		t.Fatalf("only %d servers and %d tools: the catalogs are missing", b.Servers, b.Tools)
	}
	if share := float64(b.ToolDefBytes) / float64(b.CatalogBytes); share > 0.01 {
		t.Errorf("tool definition is %.2f%% of the catalogs, want at most 1%%", 100*share)
	}
	if tokens := Tokens(b.ListBytes); b.ListServers != 16 || tokens > 2000 {
		t.Errorf("default list of %d servers is ~%d tokens, want at most 2000", b.ListServers, tokens)
	}
	if b.SearchBytes == 0 || b.InfoBytes == 0 {
		t.Errorf("search %d B, info %d B: answers missing", b.SearchBytes, b.InfoBytes)
	}
}
