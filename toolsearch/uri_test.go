package toolsearch

import (
	"encoding/json"
	"testing"
)

func uriDocs(t *testing.T) []Doc {
	t.Helper()
	var docs []Doc
	add := func(d Doc, err error) {
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	// Tools that share the URI's words, as server-everything's do.
	add(DocFromRaw("s", json.RawMessage(`{"name":"get-resource-links","description":"Returns up to ten resource links that reference different types of resources"}`)))
	add(DocFromRaw("s", json.RawMessage(`{"name":"read_text","description":"Read a text file at a path"}`)))
	add(DocFromResource("s", json.RawMessage(`{"uri":"demo://resource/static/document/features.md","name":"features.md","description":"Static document"}`)))
	add(DocFromTemplate("s", json.RawMessage(`{"uriTemplate":"demo://resource/dynamic/text/{resourceId}","name":"Dynamic Text Resource","description":"Plaintext dynamic resource"}`)))
	add(DocFromTemplate("s", json.RawMessage(`{"uriTemplate":"demo://resource/dynamic/blob/{resourceId}","name":"Dynamic Blob Resource","description":"Binary dynamic resource"}`)))
	// A template that starts with a variable matches every URI, so it
	// names none.
	add(DocFromTemplate("s", json.RawMessage(`{"uriTemplate":"{+uri}","name":"anything","description":"Any resource"}`)))
	return docs
}

// A pasted URI that is an expansion of a template finds that template
// first; so does a pasted resource URI inside a longer request, with the
// quotes and punctuation an agent puts around it.
func TestSearch_PastedURIFindsTemplate(t *testing.T) {
	docs := uriDocs(t)
	ix := New(docs)
	tests := []struct{ query, want string }{
		{"demo://resource/dynamic/text/5", "demo://resource/dynamic/text/{resourceId}"},
		{"demo://resource/dynamic/blob/12", "demo://resource/dynamic/blob/{resourceId}"},
		{"read demo://resource/dynamic/text/5 please", "demo://resource/dynamic/text/{resourceId}"},
		{"what is in `demo://resource/dynamic/blob/7`?", "demo://resource/dynamic/blob/{resourceId}"},
		{"demo://resource/static/document/features.md", "demo://resource/static/document/features.md"},
		{"show me demo://resource/static/document/features.md.", "demo://resource/static/document/features.md"},
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 3)
		if len(hits) == 0 || docs[hits[0].Doc].URI != tt.want {
			var got []string
			for _, h := range hits {
				got = append(got, DocKey(docs[h.Doc]))
			}
			t.Errorf("Search(%q) = %v, want %s first", tt.query, got, tt.want)
		}
	}
	// An expansion that does not fit (a {resourceId} cannot hold a slash)
	// and a catch-all template are not put first.
	for _, q := range []string{"demo://resource/dynamic/text/5/6", "other://resource/dynamic/text/5"} {
		for _, h := range ix.Search(q, 0) {
			if ix.queryTiers(q)[h.Doc] != tierNone {
				t.Errorf("Search(%q): %s ranked as named by the URI", q, DocKey(docs[h.Doc]))
			}
		}
	}
}
