package toolsearch

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDocFromResourceTemplatePrompt(t *testing.T) {
	r, err := DocFromResource("c1", json.RawMessage(`{"uri":"demo://doc/features.md","name":"features.md","mimeType":"text/markdown"}`))
	if err != nil || r.Kind != KindResource || r.URI != "demo://doc/features.md" || r.MimeType != "text/markdown" {
		t.Fatalf("resource doc = %+v, %v", r, err)
	}
	tm, err := DocFromTemplate("c1", json.RawMessage(`{"uriTemplate":"file:///{+path}{?q,page*}","name":"files"}`))
	if err != nil || tm.Kind != KindTemplate {
		t.Fatalf("template doc = %+v, %v", tm, err)
	}
	var params []string
	for _, p := range tm.Params {
		params = append(params, p.Name)
	}
	if got := strings.Join(params, ","); got != "uri,path,q,page" {
		t.Errorf("template params = %s, want uri,path,q,page", got)
	}
	p, err := DocFromPrompt("c1", json.RawMessage(`{"name":"args-prompt","arguments":[{"name":"city","description":"Name of the city"}]}`))
	if err != nil || p.Kind != KindPrompt || len(p.Params) != 1 || p.Params[0].Name != "city" {
		t.Fatalf("prompt doc = %+v, %v", p, err)
	}
	for _, bad := range []string{`{"name":"x"}`, `[]`, `{"uri":""}`} {
		if _, err := DocFromResource("c1", json.RawMessage(bad)); err == nil {
			t.Errorf("DocFromResource(%s) accepted a resource without uri", bad)
		}
	}
	if _, err := DocFromPrompt("c1", json.RawMessage(`{"description":"no name"}`)); err == nil {
		t.Error("DocFromPrompt accepted a prompt without name")
	}
}

func TestTemplateVariablesBounded(t *testing.T) {
	hostile := strings.Repeat("{a,b,c}", 10000)
	if got := len(templateVariables(hostile)); got != maxTemplateVariables {
		t.Errorf("variables of a hostile template = %d, want the bound %d", got, maxTemplateVariables)
	}
	if got := templateVariables("x://{unclosed"); len(got) != 0 {
		t.Errorf("unclosed expression gave variables %v", got)
	}
}

func kindDocs() []Doc {
	return []Doc{
		{Connection: "s", Name: "read_document", Description: "Read a document from the store"},
		{Connection: "s", Kind: KindResource, URI: "demo://docs/architecture.md", MimeType: "text/markdown",
			Name: "architecture.md", Description: "Static document file: architecture.md"},
		{Connection: "s", Kind: KindPrompt, Name: "architecture-review", Description: "Review the architecture of a project"},
	}
}

func TestSearchKindsFilters(t *testing.T) {
	ix := New(kindDocs())
	all := ix.SearchKinds("architecture document", 10)
	if len(all) < 2 {
		t.Fatalf("mixed search found %d hits, want the resource and the prompt", len(all))
	}
	for _, kind := range []string{KindResource, KindPrompt, KindTool} {
		hits := ix.SearchKinds("architecture document", 10, kind)
		if len(hits) == 0 {
			t.Fatalf("no %q hit", kind)
		}
		for _, h := range hits {
			if got := ix.Doc(h.Doc).Kind; got != kind {
				t.Errorf("SearchKinds(%q) returned a %q", kind, got)
			}
		}
	}
	// A pasted URI names its resource first.
	if hits := ix.Search("demo://docs/architecture.md", 1); len(hits) != 1 || ix.Doc(hits[0].Doc).Kind != KindResource {
		t.Errorf("URI query hits = %v", hits)
	}
}

func TestResourceNameExtensionNotInName(t *testing.T) {
	name, ext := indexedName(kindDocs()[1])
	if name != "architecture" || ext != "md" {
		t.Errorf("indexedName = %q, %q; want architecture, md", name, ext)
	}
	if name, _ := indexedName(Doc{Name: "read.file"}); name != "read.file" {
		t.Errorf("a tool's name lost its dotted part: %q", name)
	}
}

func TestOppositeIntentRanksBelow(t *testing.T) {
	docs := []Doc{
		{Connection: "m", Name: "delete_observations", Description: "Delete specific observations about an entity stored in the memory graph, the observations you remember"},
		{Connection: "m", Name: "add_observations", Description: "Add observations to an entity"},
	}
	hits := New(docs).Search("remember an observation about the entity", 2)
	if len(hits) != 2 || docs[hits[0].Doc].Name != "add_observations" {
		t.Fatalf("hits = %v; want add_observations first for a remember request", hits)
	}
	// Asking for both verbs opposes neither.
	hits = New(docs).Search("delete the old observation and remember a new one", 2)
	if len(hits) != 2 || docs[hits[0].Doc].Name != "delete_observations" {
		t.Errorf("hits = %v; want delete_observations first when the request says delete", hits)
	}
}

func TestJoinPhrases(t *testing.T) {
	docs := []Doc{
		{Connection: "g", Name: "wrap_lines", Description: "Break long lines"},
		{Connection: "g", Name: "wrapup", Description: "Finish: commit and tag"},
	}
	hits := New(docs).Search("wrap up", 1)
	if len(hits) != 1 || docs[hits[0].Doc].Name != "wrapup" {
		t.Errorf("hits = %v; want wrapup for 'wrap up'", hits)
	}
}

func TestSearchReadsBoundedQuery(t *testing.T) {
	ix := New(kindDocs())
	head := strings.Repeat("architecture ", maxQueryChunks)
	long := head + strings.Repeat("greet wrap up remember ", 100000)
	got, want := ix.Search(long, 3), ix.Search(head, 3)
	if len(got) != len(want) {
		t.Fatalf("a query past %d words gave %v, its first %d words %v", maxQueryChunks, got, maxQueryChunks, want)
	}
	for i := range got {
		if got[i].Doc != want[i].Doc || got[i].Score != want[i].Score {
			t.Errorf("hit %d: %v, want %v: words past the bound changed the ranking", i, got[i], want[i])
		}
	}
}
