package dispatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"dispatch/connections"
)

// testCatalogs builds one catalog per list of tool names, on connections
// c1..cN that are never started.
func testCatalogs(t *testing.T, tools ...[]string) []catalog {
	t.Helper()
	configs := make([]connections.ServerConfig, len(tools))
	for i := range tools {
		configs[i] = connections.ServerConfig{Transport: connections.TransportStdio, Command: "unused-server", Args: []string{strings.Repeat("x", i+1)}}
	}
	set, err := connections.NewSet(configs, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cats := make([]catalog, len(tools))
	for i, names := range tools {
		cats[i].conn = set.Conns()[i]
		for _, n := range names {
			cats[i].tools = append(cats[i].tools, toolDef{Name: n})
		}
	}
	return cats
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"read_file", "read_fil", 1},
		{"read_file", "reed_file", 1},
		{"read_file", "raed_file", 2},
		{"read_file", "write_file", 4},
		{"a", "b", 1},
		{"ab", "ba", 2},
		{"intention", "execution", 5},
		{"é", "e", 2}, // bytes, not runes
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := editDistance(tt.a, tt.b); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := editDistance(tt.b, tt.a); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestTokenOverlap(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"read_file", "read_file", 1},
		{"read_file", "file-read", 1},
		{"read_file", "read_dir", 0.5},
		{"get_issue", "list_pull_requests", 0},
		{"a.b/c d", "a_b_c_d", 1},
		{"", "read", 0},
		{"___", "read", 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := tokenOverlap(tt.a, tt.b); got != tt.want {
				t.Errorf("tokenOverlap(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	fs := []string{"read_file", "write_file", "list_directory", "search_files", "move_file"}
	gh := []string{"create_issue", "get_issue", "list_issues", "create_pull_request", "read_file"}
	tests := []struct {
		name  string
		want  string
		tools [][]string
		n     int
		exp   []string
	}{
		{name: "typo", want: "read_fil", tools: [][]string{fs}, n: 5, exp: []string{"c1/read_file", "c1/search_files", "c1/write_file"}},
		{name: "case insensitive", want: "READ_FILE", tools: [][]string{fs}, n: 1, exp: []string{"c1/read_file"}},
		{name: "same name on two connections", want: "read_file", tools: [][]string{fs, gh}, n: 2, exp: []string{"c1/read_file", "c2/read_file"}},
		{name: "substring", want: "issue", tools: [][]string{gh}, n: 5, exp: []string{"c1/get_issue", "c1/create_issue", "c1/list_issues"}},
		{name: "prefixed name", want: "github_create_issue", tools: [][]string{gh}, n: 1, exp: []string{"c1/create_issue"}},
		// move_file and read_file score the same; the name breaks the tie.
		{name: "limit", want: "file", tools: [][]string{fs}, n: 2, exp: []string{"c1/move_file", "c1/read_file"}},
		{name: "zero wanted", want: "read_file", tools: [][]string{fs}, n: 0, exp: nil},
		{name: "nothing close", want: "take_screenshot", tools: [][]string{fs, gh}, n: 5, exp: nil},
		{name: "no tools", want: "read_file", tools: [][]string{{}}, n: 5, exp: nil},
		{name: "no catalogs", want: "read_file", tools: nil, n: 5, exp: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cats := testCatalogs(t, tt.tools...)
			got := suggest(tt.want, cats, tt.n)
			if !reflect.DeepEqual(got, tt.exp) {
				t.Errorf("suggest(%q, %d) = %q, want %q", tt.want, tt.n, got, tt.exp)
			}
			if len(got) > tt.n {
				t.Errorf("suggest returned %d names, limit %d", len(got), tt.n)
			}
		})
	}
}

func TestSuggest_Deterministic(t *testing.T) {
	// Equal scores are ordered by name, so the same catalogs always give
	// the same suggestions.
	cats := testCatalogs(t, []string{"get_b", "get_a", "get_c"}, []string{"get_a"})
	want := []string{"c1/get_a", "c1/get_b", "c1/get_c", "c2/get_a"}
	for range 20 {
		if got := suggest("get_x", cats, 10); !reflect.DeepEqual(got, want) {
			t.Fatalf("suggest = %q, want %q", got, want)
		}
	}
}

func TestToolNotFoundError_Error(t *testing.T) {
	tests := []struct {
		name string
		err  ToolNotFoundError
		want string
	}{
		{
			name: "suggestions",
			err:  ToolNotFoundError{Tool: "read_fil", Suggestions: []string{"c1/read_file", "c2/read_file"}},
			want: `no tool named "read_fil"; did you mean c1/read_file, c2/read_file?`,
		},
		{
			name: "no suggestions",
			err:  ToolNotFoundError{Tool: "x"},
			want: `no tool named "x"; use {"action":"search","query":"..."} to find one`,
		},
		{
			name: "unreachable servers",
			err:  ToolNotFoundError{Tool: "x", Unreachable: []string{"c2: connect: refused", "c3: connect: timed out"}},
			want: `could not reach c2, c3 to look for tool "x" there, so it may yet exist: c2: connect: refused; c3: connect: timed out`,
		},
		{
			name: "unreachable servers and suggestions",
			err:  ToolNotFoundError{Tool: "read_fil", Suggestions: []string{"c1/read_file"}, Unreachable: []string{"c2: connect: refused"}},
			want: `could not reach c2 to look for tool "read_fil" there, so it may yet exist: c2: connect: refused; among the tools reached, did you mean c1/read_file?`,
		},
		{
			name: "cached catalogs",
			err:  ToolNotFoundError{Tool: "new_tool", Suggestions: []string{"c1/old_tool"}, Cached: []string{"c1", "c3"}},
			want: `no tool named "new_tool"; did you mean c1/old_tool? (the tool lists of c1, c3 come from the catalog cache, not from the running servers: ` +
				`if the tool is new, refresh them with {"action":"list","refresh":true}, or dispatch list --refresh)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error = &tt.err
			if got := err.Error(); got != tt.want {
				t.Errorf("Error() =\n  %s\nwant\n  %s", got, tt.want)
			}
			var nf *ToolNotFoundError
			if !errors.As(err, &nf) || IsUsage(err) {
				t.Errorf("errors.As = %v, IsUsage = %v", errors.As(err, &nf), IsUsage(err))
			}
		})
	}
}
