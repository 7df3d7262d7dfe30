package toolsearch

import (
	"reflect"
	"testing"
)

func TestSplitIdent(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"snake_case_name", []string{"snake", "case", "name"}},
		{"kebab-case-name", []string{"kebab", "case", "name"}},
		{"camelCaseName", []string{"camel", "case", "name"}},
		{"PascalCase", []string{"pascal", "case"}},
		{"getURLForPage", []string{"get", "url", "for", "page"}},
		{"HTTPServer", []string{"http", "server"}},
		{"dotted.name.here", []string{"dotted", "name", "here"}},
		{"slash/name", []string{"slash", "name"}},
		{"API-retrieve-a-page", []string{"api", "retrieve", "a", "page"}},
		{"base64 ec2", []string{"base64", "ec2"}},
		{"v2Name", []string{"v2", "name"}},
		{"  Take a Screenshot! ", []string{"take", "a", "screenshot"}},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := splitIdent(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitIdent(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeName(t *testing.T) {
	for _, s := range []string{"browser_take_screenshot", "browser-take-screenshot", "browserTakeScreenshot", "Browser Take Screenshot", "browser.take.screenshot"} {
		if got := normalizeName(s); got != "browser take screenshot" {
			t.Errorf("normalizeName(%q) = %q", s, got)
		}
	}
}

// TestStem checks that inflections of a word meet at one stem and that
// different words stay apart.
func TestStem(t *testing.T) {
	same := [][]string{
		{"send", "sends", "sending", "sent"},
		{"list", "lists", "listing", "listed"},
		{"query", "queries"},
		{"create", "creates", "creating", "created", "creation"},
		{"file", "files"},
		{"search", "searches", "searching", "searched"},
		{"run", "runs", "running", "ran"},
		{"get", "gets", "getting", "got"},
		{"delete", "deletes", "deleting", "deleted", "deletion"},
		{"directory", "directories"},
		{"address", "addresses"},
		{"stop", "stopped", "stopping"},
		{"add", "adds", "added", "adding"},
		{"pull", "pulls", "pulled"},
		{"log", "logs", "logging"},
		{"entity", "entities"},
		{"reply", "replies"},
		{"make", "made", "making"},
	}
	for _, words := range same {
		want := stem(words[0])
		for _, w := range words[1:] {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, want %q (as stem(%q))", w, got, want, words[0])
			}
		}
	}
	apart := [][2]string{
		{"news", "new"},
		{"status", "state"},
		{"process", "proces"},
		{"analysis", "analyze"},
		{"class", "clas"},
	}
	for _, p := range apart {
		if stem(p[0]) == stem(p[1]) {
			t.Errorf("stem(%q) == stem(%q) == %q, want different", p[0], p[1], stem(p[0]))
		}
	}
}

func TestTerms_dropsStopWordsAndNumbers(t *testing.T) {
	got := terms("Please take a screenshot of the page 42 for me")
	want := []string{"tak", "screenshot", "pag"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"directory", "directroy", 1}, // swap
		{"screenshot", "screenshoot", 1},
		{"search", "serch", 1},
		{"kitten", "sitting", 3},
		{"same", "same", 0},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, 5); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if got := editDistance("kitten", "sitting", 1); got != 2 {
		t.Errorf("editDistance with max 1 = %d, want 2 (max+1)", got)
	}
}
