package toolsearch

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"
)

// evalQueries returns every query of the evaluation sets, the holdouts
// included.
func evalQueries(t testing.TB) []string {
	t.Helper()
	var queries []string
	for _, file := range []string{evalFile, resourceEvalFile, "testdata/holdout-eval.json", "../testdata/search-holdout.json",
		"../testdata/search-eval-rev7.json", "../testdata/search-holdout-rev7.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var set EvalSet
		if err := json.Unmarshal(data, &set); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, q := range set.Queries {
			queries = append(queries, q.Query)
		}
	}
	return queries
}

// A saved and loaded index answers every evaluation query, and every kind
// of query (typos, prefixes, exact names), with the same hits, scores and
// matched words as the index it was saved from.
func TestLoadIndex_SameAnswers(t *testing.T) {
	docs := loadDocs(t)
	built := New(docs)
	data, err := built.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	queries := append(evalQueries(t), "browser_take_screenshot", "screenshoot the pag", "creat isue",
		"read", "github", "DELETE everything", "")
	if len(queries) < 100 {
		t.Fatalf("only %d queries", len(queries))
	}
	for _, q := range queries {
		want, got := built.Search(q, 0), loaded.Search(q, 0)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q: loaded index answers %v, built one %v", q, got, want)
		}
		if want, got := built.SearchKinds(q, 5, KindPrompt), loaded.SearchKinds(q, 5, KindPrompt); !reflect.DeepEqual(got, want) {
			t.Fatalf("query %q, prompts: loaded index answers %v, built one %v", q, got, want)
		}
	}
	if loaded.Len() != built.Len() {
		t.Errorf("loaded index has %d docs, built %d", loaded.Len(), built.Len())
	}
	again, err := loaded.MarshalBinary()
	if err != nil || !reflect.DeepEqual(again, data) {
		t.Errorf("a loaded index saves differently (err %v)", err)
	}
}

func TestLoadIndex_Empty(t *testing.T) {
	data, err := New(nil).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := LoadIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 0 || ix.Search("anything", 5) != nil {
		t.Errorf("empty index loaded as %d docs", ix.Len())
	}
}

// Every truncation of a saved index, and a count or version changed, is
// refused with ErrIndexFormat: never a panic, never a partial index.
func TestLoadIndex_Refuses(t *testing.T) {
	docs := loadDocs(t)[:20]
	data, err := New(docs).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// Every length up to a few hundred bytes, then a spread of them.
	for n := 0; n < len(data); n += 1 + n/64 {
		if _, err := LoadIndex(data[:n]); !errors.Is(err, ErrIndexFormat) {
			t.Fatalf("truncated to %d of %d bytes: err %v, want ErrIndexFormat", n, len(data), err)
		}
	}
	for name, bad := range map[string][]byte{
		"trailing byte": append(append([]byte{}, data...), 0),
		"next version":  append([]byte(persistMagic), append([]byte{persistVersion + 1}, data[len(persistMagic)+1:]...)...),
		"other magic":   append([]byte("x"), data[1:]...),
		"huge doc count": func() []byte {
			b := append([]byte{}, data[:len(persistMagic)+1+8*len(modelNumbers(defaultModel))]...)
			return append(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)
		}(),
	} {
		if _, err := LoadIndex(bad); !errors.Is(err, ErrIndexFormat) {
			t.Errorf("%s: err %v, want ErrIndexFormat", name, err)
		}
	}
	other := defaultModel
	other.k1 = 1.3
	changed, err := newIndex(docs, other).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIndex(changed); !errors.Is(err, ErrIndexFormat) {
		t.Errorf("another model: err %v, want ErrIndexFormat", err)
	}
}

// FuzzLoadIndex: whatever the bytes, LoadIndex returns an error or an
// index that can be searched without panicking.
func FuzzLoadIndex(f *testing.F) {
	docs := []Doc{
		{Connection: "c1", Name: "create_issue", Title: "Create issue", Description: "Open a new issue in a repository."},
		{Connection: "c1", Name: "list_issues", Description: "List the issues of a repository."},
		{Connection: "c2", Kind: KindResource, Name: "readme", URI: "file:///README.md", Description: "The readme."},
	}
	data, err := New(docs).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := LoadIndex(b)
		if err != nil {
			if !errors.Is(err, ErrIndexFormat) {
				t.Fatalf("error %v does not wrap ErrIndexFormat", err)
			}
			return
		}
		for _, q := range []string{"create issue", "readme", "issus", "list"} {
			ix.Search(q, 5)
			ix.SearchKinds(q, 5, KindResource)
		}
	})
}

// A term's postings are read when a query looks the term up, not on load:
// a list that refers to no doc, to docs out of order or to a slot its doc
// has not is read as empty, so the term matches nothing, and the other
// terms answer as before.
func TestLoadIndex_BadPostingsMatchNothing(t *testing.T) {
	docs := []Doc{
		{Connection: "c1", Name: "create_issue", Description: "Open a new issue in a repository."},
		{Connection: "c1", Name: "list_issues", Description: "List the issues of a repository."},
		{Connection: "c2", Name: "send_mail", Description: "Send an email."},
	}
	data, err := New(docs).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	good, err := LoadIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	term := stem("repository")
	i, ok := good.saved.find(term)
	if !ok || good.saved.count[i] != 2 {
		t.Fatalf("term %q: found %v, want 2 postings", term, ok)
	}
	if got := good.Search("repository", 0); len(got) != 2 {
		t.Fatalf("good index: %v", got)
	}
	at := good.saved.at[i]
	for name, change := range map[string]func(b []byte){
		"doc past the docs": func(b []byte) { b[at] = 0x7f },
		"docs out of order": func(b []byte) { b[at] = 1 }, // the second posting is of doc 1 too
		"slot past the doc's": func(b []byte) {
			b[at+1+8] = 0x7f
		},
	} {
		t.Run(name, func(t *testing.T) {
			bad := append([]byte{}, data...)
			change(bad)
			ix, err := LoadIndex(bad)
			if err != nil {
				t.Fatalf("refused on load: %v (postings are read on lookup)", err)
			}
			if got := ix.Search("repository", 0); len(got) != 0 {
				t.Errorf("a bad posting list matched %v", got)
			}
			if got := ix.Search("send mail", 0); len(got) != 1 || got[0].Doc != 2 {
				t.Errorf("another term answers %v, want doc 2", got)
			}
		})
	}
}
