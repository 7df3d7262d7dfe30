package toolsearch

import "testing"

// Values in a query (a path, a file name, a name given after "called")
// are split into words that count as evidence only (literal), a question
// word asks for its answer, a phrasal verb means what the phrase means,
// and the words after "between" qualify the object (modifier).
func TestParseQuery_ValuesAndPhrases(t *testing.T) {
	ix := New(loadDocs(t))
	tests := []struct {
		query, label, term string
		literal, modifier  bool
	}{
		// The path's words, not only "path".
		{"resource/dynamic/text/5", "dynamic", "dynamic", true, false},
		{"resource/dynamic/text/5", "text", "text", true, false},
		// A file name is a file; its extension says it holds text.
		{"show notes.md", "notes.md", "fil", false, false},
		{"show notes.md", "text", "text", true, false},
		{"read /tmp/q3.txt", "/tmp/q3.txt", "fil", false, false},
		// The name after "named" is a value, not a request for research.
		{"find files named report", "report", "report", true, false},
		// "when was" asks for a time.
		{"when was this file last modified", "when", "tim", false, false},
		{"look at an image file", "look", "view", false, false},
		{"delete a relation between entities", "entities", "entity", false, true},
	}
	for _, tt := range tests {
		c, ok := findConcept(ix.parseQuery(tt.query), tt.label)
		if !ok {
			t.Errorf("parseQuery(%q) has no concept %q", tt.query, tt.label)
			continue
		}
		if !hasVariant(c.variants, tt.term) || c.literal != tt.literal || c.modifier != tt.modifier {
			t.Errorf("parseQuery(%q) concept %q = %+v; want variant %s, literal %v, modifier %v",
				tt.query, tt.label, c, tt.term, tt.literal, tt.modifier)
		}
	}
	if c, ok := findConcept(ix.parseQuery("report"), "report"); !ok || c.literal || !hasVariant(c.variants, "research") {
		t.Errorf("a plain report is not expanded: %+v", c)
	}
	for _, c := range ix.parseQuery("what happens when the server starts up") {
		if hasVariant(c.variants, "tim") {
			t.Errorf("'what happens when' asked for a time: %+v", c)
		}
	}
}

func findConcept(cs []concept, label string) (concept, bool) {
	for _, c := range cs {
		if contains(c.labels, label) {
			return c, true
		}
	}
	return concept{}, false
}

// Words of a pasted value are not asked of every tool: a tool that does
// what the task says is not marked down for lacking the path's words, and
// one that merely shares them does not win.
func TestSearch_ValueWordsNotAsked(t *testing.T) {
	docs := []Doc{
		{Connection: "s", Name: "read_text_file", Description: "Read a text file"},
		{Connection: "s", Name: "tmp_cleaner", Description: "Clean the tmp directory"},
	}
	ix := New(docs)
	hits := ix.Search("read /tmp/reports/q3.txt", 2)
	if len(hits) == 0 || docs[hits[0].Doc].Name != "read_text_file" {
		t.Fatalf("hits = %v, want read_text_file first", hits)
	}
	concepts := ix.parseQuery("read /tmp/reports/q3.txt")
	asked := askedConcepts(concepts)
	for i, c := range concepts {
		if c.literal == (asked&(1<<uint(i)) != 0) {
			t.Errorf("concept %v: literal %v but asked %v", c.labels, c.literal, asked&(1<<uint(i)) != 0)
		}
	}
}
