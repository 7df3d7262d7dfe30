package dispatch

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"dispatch/connections"
)

func TestParseToolDef(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		want   toolDef // Raw and Annotations are checked separately
		wantOK bool
	}{
		{
			name: "params in schema order",
			raw: `{"name":"write_file","description":"Write a file.","inputSchema":{"type":"object",
				"properties":{"path":{"type":"string"},"content":{"type":"string"},"mode":{"type":"integer"},"append":{"type":"boolean"}},
				"required":["content","path"]}}`,
			want: toolDef{Name: "write_file", Description: "Write a file.", Params: []paramDef{
				{Name: "path", Type: "string", Required: true},
				{Name: "content", Type: "string", Required: true},
				{Name: "mode", Type: "integer"},
				{Name: "append", Type: "boolean"},
			}},
			wantOK: true,
		},
		{
			name: "reverse alphabetical order kept",
			raw:  `{"name":"t","inputSchema":{"properties":{"z":{},"m":{},"a":{}}}}`,
			want: toolDef{Name: "t", Params: []paramDef{{Name: "z"}, {Name: "m"}, {Name: "a"}}}, wantOK: true,
		},
		{
			name: "union types",
			raw: `{"name":"t","inputSchema":{"properties":{
				"a":{"type":["string","null"]},"b":{"type":["null","integer"]},"c":{"type":["string","number"]},
				"d":{"type":["null"]},"e":{"anyOf":[{"type":"string"}]},"f":{"type":"array","items":{"type":"string"}},"g":{"type":"object"}}}}`,
			want: toolDef{Name: "t", Params: []paramDef{
				{Name: "a", Type: "string"}, {Name: "b", Type: "integer"}, {Name: "c", Type: "string|number"},
				{Name: "d", Type: ""}, {Name: "e", Type: ""}, {Name: "f", Type: "array"}, {Name: "g", Type: "object"},
			}},
			wantOK: true,
		},
		{
			name: "required names absent from properties are ignored",
			raw:  `{"name":"t","inputSchema":{"properties":{"a":{"type":"string"}},"required":["a","ghost"]}}`,
			want: toolDef{Name: "t", Params: []paramDef{{Name: "a", Type: "string", Required: true}}}, wantOK: true,
		},
		{
			name: "title",
			raw:  `{"name":"t","title":"Top Title","annotations":{"title":"Annotated Title"}}`,
			want: toolDef{Name: "t", Title: "Top Title"}, wantOK: true,
		},
		{
			name: "title from annotations",
			raw:  `{"name":"t","annotations":{"title":"Annotated Title","readOnlyHint":true}}`,
			want: toolDef{Name: "t", Title: "Annotated Title"}, wantOK: true,
		},
		{
			name: "annotation title not a string",
			raw:  `{"name":"t","annotations":{"title":5}}`,
			want: toolDef{Name: "t"}, wantOK: true,
		},
		{name: "no schema", raw: `{"name":"ping"}`, want: toolDef{Name: "ping"}, wantOK: true},
		{name: "empty properties", raw: `{"name":"t","inputSchema":{"type":"object","properties":{}}}`, want: toolDef{Name: "t"}, wantOK: true},
		{name: "properties not an object", raw: `{"name":"t","inputSchema":{"properties":[1,2]}}`, want: toolDef{Name: "t"}, wantOK: true},
		{
			name: "property schemas not objects keep their names",
			raw:  `{"name":"t","inputSchema":{"properties":{"a":"string","b":{"type":"integer"}}}}`,
			want: toolDef{Name: "t", Params: []paramDef{{Name: "a"}, {Name: "b"}}}, wantOK: true,
		},
		{
			name: "required not a list still names the tool",
			raw:  `{"name":"t","description":"d","inputSchema":{"properties":{"a":{"type":"string"}},"required":"a"}}`,
			want: toolDef{Name: "t", Description: "d", Params: []paramDef{{Name: "a", Type: "string"}}}, wantOK: true,
		},
		{
			name: "boolean schema still names the tool",
			raw:  `{"name":"t","inputSchema":true}`,
			want: toolDef{Name: "t"}, wantOK: true,
		},
		{name: "schema null", raw: `{"name":"t","inputSchema":null}`, want: toolDef{Name: "t"}, wantOK: true},
		{name: "properties null", raw: `{"name":"t","inputSchema":{"properties":null}}`, want: toolDef{Name: "t"}, wantOK: true},
		{name: "no name", raw: `{"description":"x"}`, wantOK: false},
		{name: "empty name", raw: `{"name":""}`, wantOK: false},
		{name: "name not a string", raw: `{"name":1}`, wantOK: false},
		{name: "not JSON", raw: `{"name":`, wantOK: false},
		{name: "not an object", raw: `["t"]`, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseToolDef(json.RawMessage(tt.raw))
			if ok != tt.wantOK {
				t.Fatalf("parseToolDef ok = %v, want %v (def %+v)", ok, tt.wantOK, got)
			}
			if !ok {
				return
			}
			if string(got.Raw) != tt.raw {
				t.Errorf("Raw = %s, want the input unchanged", got.Raw)
			}
			got.Raw, got.Annotations = nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseToolDef =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

func TestToolDef_Signature(t *testing.T) {
	params := []paramDef{
		{Name: "path", Type: "string", Required: true},
		{Name: "content", Type: "string", Required: true},
		{Name: "mode", Type: "integer"},
		{Name: "extra"},
		{Name: "force", Required: true},
	}
	tests := []struct {
		name      string
		params    []paramDef
		withTypes bool
		want      string
	}{
		{name: "no params", params: nil, want: ""},
		{name: "no params with types", params: nil, withTypes: true, want: ""},
		{name: "names", params: params, want: "path, content, mode?, extra?, force"},
		{name: "with types", params: params, withTypes: true, want: "path: string, content: string, mode?: integer, extra?, force"},
		{name: "one optional", params: []paramDef{{Name: "q", Type: "string|null"}}, withTypes: true, want: "q?: string|null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (toolDef{Params: tt.params}).Signature(tt.withTypes); got != tt.want {
				t.Errorf("Signature(%v) = %q, want %q", tt.withTypes, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	long := strings.Repeat("word ", 50) // 250 bytes
	tests := []struct {
		name string
		text string
		max  int
		want string
	}{
		{name: "empty", text: "", max: 20, want: ""},
		{name: "blank", text: " \n\t ", max: 20, want: ""},
		{name: "short", text: "Reads a file", max: 20, want: "Reads a file"},
		{name: "trimmed", text: "  Reads a file  \n", max: 20, want: "Reads a file"},
		{name: "first line", text: "Reads a file\nMore details here.", max: 100, want: "Reads a file"},
		{name: "first line after blank lines", text: "\n\nReads a file\nMore", max: 100, want: "Reads a file"},
		{name: "crlf", text: "Reads a file\r\nMore", max: 100, want: "Reads a file"},
		{name: "first sentence", text: "Reads a file. Returns its content.", max: 100, want: "Reads a file."},
		{name: "e.g. does not end a sentence", text: "Open a PR on GitHub, e.g. for a fix. Needs a token.", max: 100, want: "Open a PR on GitHub, e.g. for a fix."},
		{name: "i.e. does not end a sentence", text: "Size in bytes (default 200 MB), i.e. one line. More.", max: 100, want: "Size in bytes (default 200 MB), i.e. one line."},
		{name: "etc. and initials", text: "Lists files, dirs etc. in the U.S. region. Slow.", max: 100, want: "Lists files, dirs etc. in the U.S. region."},
		{name: "lowercase after a period", text: "Uses v2. see the docs for v1. Returns JSON.", max: 100, want: "Uses v2. see the docs for v1."},
		{name: "period without space", text: "Reads config.json from disk", max: 100, want: "Reads config.json from disk"},
		{name: "trailing period kept", text: "Reads a file.", max: 100, want: "Reads a file."},
		{name: "exactly max", text: "abcd efgh", max: 9, want: "abcd efgh"},
		{name: "cut at a word", text: "alpha beta gamma delta", max: 13, want: "alpha beta…"},
		{name: "cut drops trailing punctuation", text: "alpha beta, gamma delta", max: 13, want: "alpha beta…"},
		{name: "long word cut hard", text: "abcdefghijklmnopqrstuvwxyz", max: 10, want: "abcdefghij…"},
		{name: "space too early is not used", text: "a bcdefghijklmnopqrstuvwxyz", max: 10, want: "a bcdefghi…"},
		{name: "multibyte never split", text: strings.Repeat("é", 20), max: 9, want: "éééé…"},
		{name: "cjk never split", text: strings.Repeat("語", 10), max: 10, want: "語語語…"},
		{name: "emoji never split", text: strings.Repeat("😀", 5), max: 6, want: "😀…"},
		{name: "long description", text: long, max: 160, want: strings.TrimSpace(long[:160]) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(tt.text, tt.max)
			if got != tt.want {
				t.Errorf("summarize(%q, %d) = %q, want %q", tt.text, tt.max, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("summarize(%q, %d) = %q is not valid UTF-8", tt.text, tt.max, got)
			}
			if body := strings.TrimSuffix(got, "…"); len(body) > tt.max {
				t.Errorf("summarize(%q, %d) = %q: %d bytes before the ellipsis", tt.text, tt.max, got, len(body))
			}
			if strings.ContainsAny(got, "\r\n") {
				t.Errorf("summarize(%q, %d) = %q has a line break", tt.text, tt.max, got)
			}
		})
	}
}

func TestSummarize_AllCutsValid(t *testing.T) {
	// Every max on a mixed text gives valid UTF-8 within the bound.
	text := "Lit un fichier 📄 à partir du disque, décode l’UTF-8 et renvoie 日本語 le contenu entier sans rien omettre"
	for max := 1; max <= len(text)+1; max++ {
		got := summarize(text, max)
		if !utf8.ValidString(got) {
			t.Fatalf("summarize(_, %d) = %q is not valid UTF-8", max, got)
		}
		if body := strings.TrimSuffix(got, "…"); len(body) > max {
			t.Fatalf("summarize(_, %d) = %q: %d bytes before the ellipsis", max, got, len(body))
		}
	}
}

func TestToolDef_Summary(t *testing.T) {
	d := toolDef{Description: strings.Repeat("x", 100) + " " + strings.Repeat("y", 100)}
	if got, want := d.Summary(), strings.Repeat("x", 100)+"…"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

func TestToolDefCache_PruneForgetsReplacedConnections(t *testing.T) {
	set, err := connections.NewSet([]connections.ServerConfig{
		{Name: "a", Transport: connections.TransportStdio, Command: "a"},
		{Name: "b", Transport: connections.TransportStdio, Command: "b"},
	}, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	var cache toolDefCache
	raw := []json.RawMessage{json.RawMessage(`{"name":"x","inputSchema":{"type":"object"}}`)}
	for _, c := range set.Conns() {
		cache.tools(c, raw)
	}
	if _, err := set.Update([]connections.ServerConfig{{Name: "a", Transport: connections.TransportStdio, Command: "a"}}); err != nil {
		t.Fatal(err)
	}
	cache.prune(set.Conns())
	if len(cache.entries) != 1 {
		t.Errorf("%d parsed catalogs kept, want only the live connection's", len(cache.entries))
	}
}
