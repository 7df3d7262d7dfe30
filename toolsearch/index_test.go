package toolsearch

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

func loadDocs(t testing.TB) []Doc {
	t.Helper()
	_, docs, err := LoadCatalogs(catalogDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no catalogs loaded")
	}
	return docs
}

func TestDocFromRaw(t *testing.T) {
	raw := json.RawMessage(`{
		"name": "create_entities",
		"description": "Create entities",
		"inputSchema": {
			"type": "object",
			"properties": {
				"mode": {"type": "string", "description": "How", "enum": ["fast", "slow", 3]},
				"entities": {"type": "array", "items": {"type": "object", "properties": {
					"name": {"type": "string", "description": "The name"}
				}}}
			}
		},
		"annotations": {"title": "Create Entities", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": true}
	}`)
	got, err := DocFromRaw("c1", raw)
	if err != nil {
		t.Fatal(err)
	}
	want := Doc{
		Connection:  "c1",
		Name:        "create_entities",
		Title:       "Create Entities",
		Description: "Create entities",
		Params: []Param{
			{Name: "entities"},
			{Name: "entities.name", Description: "The name"},
			{Name: "mode", Description: "How fast slow"},
		},
		Annotations: []string{"destructiveHint", "idempotentHint"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DocFromRaw =\n%+v\nwant\n%+v", got, want)
	}

	// A top-level title wins over annotations.title.
	d, err := DocFromRaw("c1", json.RawMessage(`{"name":"x","title":"Top","annotations":{"title":"Ann"}}`))
	if err != nil || d.Title != "Top" {
		t.Errorf("title = %q, %v; want Top", d.Title, err)
	}
	for _, bad := range []string{`{"description":"no name"}`, `[1,2]`, `{`} {
		if _, err := DocFromRaw("c1", json.RawMessage(bad)); err == nil {
			t.Errorf("DocFromRaw(%s): want error", bad)
		}
	}
}

func TestIndex_Search_emptyQuery(t *testing.T) {
	ix := New(loadDocs(t))
	for _, q := range []string{"", "   ", "\t\n"} {
		if hits := ix.Search(q, 5); len(hits) != 0 {
			t.Errorf("Search(%q) = %d hits, want none", q, len(hits))
		}
	}
	if hits := New(nil).Search("anything", 5); len(hits) != 0 {
		t.Errorf("empty index: %d hits", len(hits))
	}
}

// TestIndex_Search_exactNameFirst: a query equal to a tool's name, or to the
// name with its separators replaced by spaces, ranks that tool first (or a
// tool of the same name on another connection).
func TestIndex_Search_exactNameFirst(t *testing.T) {
	docs := loadDocs(t)
	ix := New(docs)
	for _, d := range docs {
		for _, q := range []string{d.Name, normalizeName(d.Name)} {
			hits := ix.Search(q, 1)
			if len(hits) == 0 {
				t.Errorf("Search(%q): no hits", q)
				continue
			}
			if got := docs[hits[0].Doc]; normalizeName(got.Name) != normalizeName(d.Name) {
				t.Errorf("Search(%q) top 1 = %s/%s, want %s/%s", q, got.Connection, got.Name, d.Connection, d.Name)
			}
		}
	}
}

func TestIndex_Search_limitAndMatched(t *testing.T) {
	docs := loadDocs(t)
	ix := New(docs)
	hits := ix.Search("take a screenshot of the page", 3)
	if len(hits) != 3 {
		t.Fatalf("got %d hits, want 3", len(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not best first: %v", hits)
		}
	}
	if !reflect.DeepEqual(hits[0].Matched, []string{"take", "screenshot", "page"}) {
		t.Errorf("Matched = %q", hits[0].Matched)
	}
	if all := ix.Search("take a screenshot of the page", 0); len(all) <= 3 {
		t.Errorf("limit 0 gave %d hits, want all matching", len(all))
	}
}

// TestIndex_Search_missing: a hit lists the query words it does not match,
// so that the best of a catalog with no tool for the task (the memory
// server asked to delete a file) shows what it leaves out; a pasted value's
// words are never asked for, so never listed.
func TestIndex_Search_missing(t *testing.T) {
	var memory []Doc
	for _, d := range loadDocs(t) {
		if d.Connection == "memory" {
			memory = append(memory, d)
		}
	}
	ix := New(memory)
	hits := ix.Search("delete a file", 1)
	if len(hits) != 1 {
		t.Fatalf("got %d hits, want 1", len(hits))
	}
	if !reflect.DeepEqual(hits[0].Matched, []string{"delete"}) || !reflect.DeepEqual(hits[0].Missing, []string{"file"}) {
		t.Errorf("delete a file over memory: %s matched %q, missing %q; want matched [delete], missing [file]",
			memory[hits[0].Doc].Name, hits[0].Matched, hits[0].Missing)
	}
	hits = ix.Search("delete an entity", 1)
	if len(hits) != 1 || len(hits[0].Missing) != 0 {
		t.Errorf("delete an entity: hits %v, want one with nothing missing", hits)
	}
	// The file name stands for its kind (a file), labelled as pasted; its
	// words "notes" and "md" are the task's data.
	hits = ix.Search("delete the file notes.md", 1)
	if len(hits) != 1 || !reflect.DeepEqual(hits[0].Missing, []string{"file", "notes.md"}) {
		t.Errorf("delete the file notes.md: hits %v, want missing [file notes.md]: not the value's words notes, md", hits)
	}
}

func key(docs []Doc, hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		d := docs[h.Doc]
		out[i] = fmt.Sprintf("%s/%s %.12g %v", d.Connection, d.Name, h.Score, h.Matched)
	}
	return out
}

// TestIndex_Search_deterministic: the same query gives the same hits twice,
// and the same hits (same tools, scores and order) when the docs are given
// to New in another order.
func TestIndex_Search_deterministic(t *testing.T) {
	docs := loadDocs(t)
	shuffled := append([]Doc(nil), docs...)
	rand.New(rand.NewSource(1)).Shuffle(len(shuffled), func(i, j int) {
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	})
	a, b := New(docs), New(shuffled)
	for _, q := range []string{"create branch", "list files in a directory", "get", "search", "delete", "page", "screenshoot"} {
		first := key(docs, a.Search(q, 0))
		if again := key(docs, a.Search(q, 0)); !reflect.DeepEqual(first, again) {
			t.Errorf("Search(%q) differs between two runs", q)
		}
		if other := key(shuffled, b.Search(q, 0)); !reflect.DeepEqual(first, other) {
			t.Errorf("Search(%q) differs with docs shuffled:\n%q\n%q", q, first[:min(5, len(first))], other[:min(5, len(other))])
		}
	}
}

// TestIndex_Search_tieBreak: identical tools on different connections tie
// and come in connection order.
func TestIndex_Search_tieBreak(t *testing.T) {
	d := Doc{Name: "echo", Description: "Echoes back the input"}
	var docs []Doc
	for _, c := range []string{"c3", "c1", "c2"} {
		d.Connection = c
		docs = append(docs, d)
	}
	hits := New(docs).Search("echo back", 0)
	var got []string
	for _, h := range hits {
		got = append(got, docs[h.Doc].Connection)
	}
	if !reflect.DeepEqual(got, []string{"c1", "c2", "c3"}) {
		t.Errorf("order = %v, want c1 c2 c3", got)
	}
}

func TestIndex_Search_typoAndSynonym(t *testing.T) {
	docs := loadDocs(t)
	ix := New(docs)
	tests := []struct{ query, want string }{
		{"list directroy", "filesystem/list_directory"},
		{"make a new folder", "filesystem/create_directory"},
		{"merge the PR", "github/merge_pull_request"},
		{"open https://example.com in the browser", "playwright/browser_navigate"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 5)
		var got []string
		found := false
		for _, h := range hits {
			s := docs[h.Doc].Connection + "/" + docs[h.Doc].Name
			got = append(got, s)
			found = found || s == tt.want
		}
		if !found {
			t.Errorf("Search(%q) top 5 = %v, want %s among them", tt.query, got, tt.want)
		}
	}
}
