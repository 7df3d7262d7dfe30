package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// savedAnswer is the part of a spilled call's answer that says what the
// file holds.
type savedAnswer struct {
	Spill struct {
		ResultFile string
		Format     string
		Saved      string
		Lines      int64
		Elements   *int64
	}
}

// TestServe_TextWrappedInStructuredContent: a server that sends its text
// both as content and as structuredContent {"content": text} (the
// filesystem server does) gets the text saved, or the JSON the text holds,
// never the one-line wrapper; the answer says which part was saved.
func TestServe_TextWrappedInStructuredContent(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--spill-dir", t.TempDir(), "--mcp", fixture())
	tests := []struct {
		shape      string
		wantFormat string
	}{
		{"text", "text"},
		{"array", "json"},
	}
	for _, tt := range tests {
		t.Run(tt.shape, func(t *testing.T) {
			r := tc.mustOK(map[string]any{"action": "call", "tool": "wrapped_text", "resultToFile": true,
				"arguments": map[string]any{"bytes": 20_000, "shape": tt.shape}})
			var a savedAnswer
			decodeText(t, r, &a)
			if a.Spill.Format != tt.wantFormat || a.Spill.Saved != "text" {
				t.Errorf("format %q saved %q, want %q and \"text\"", a.Spill.Format, a.Spill.Saved, tt.wantFormat)
			}
			if a.Spill.Lines < 100 {
				t.Errorf("file has %d lines, want the text's many lines", a.Spill.Lines)
			}
			grep := tc.mustOK(map[string]any{"action": "readresult", "resultFile": a.Spill.ResultFile, "op": "grep", "pattern": "item-7\\b", "maxMatches": 1})
			if !regexp.MustCompile(`(?m)^\d+:.*item-7`).MatchString(grep.text()) {
				t.Errorf("grep over the saved file: %.300s", grep.text())
			}
			data, err := os.ReadFile(a.Spill.ResultFile)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(`\n`)) {
				t.Errorf("the file holds escaped newlines (the wrapper was saved): %.200s", data)
			}
		})
	}
}

// TestCLI_ResultToFileMatchesCall: call -o saves what call prints.
func TestCLI_ResultToFileMatchesCall(t *testing.T) {
	fx := fixture()
	args := `{"bytes":3000,"shape":"text"}`
	printed, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "call", "wrapped_text", args)
	if code != 0 {
		t.Fatalf("call: exit %d: %s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "out.txt")
	out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "--json", "call", "wrapped_text", args, "-o", path)
	if code != 0 {
		t.Fatalf("call -o: exit %d: %s", code, stderr)
	}
	var saved struct{ Saved, Format string }
	if err := json.Unmarshal([]byte(out), &saved); err != nil || saved.Saved != "text" || saved.Format != "text" {
		t.Errorf("call -o answer: %s (%v); want saved text, format text", out, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimRight(string(data), "\n") != strings.TrimRight(printed, "\n") {
		t.Errorf("call -o wrote %.120q, call printed %.120q", data, printed)
	}
}

// TestServe_ToonLeavesTextAlone: --toon converts objects and arrays of
// data; a text result wrapped in structuredContent stays as the server sent
// it, text and structuredContent both.
func TestServe_ToonLeavesTextAlone(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--toon", "--mcp", fixture())
	r := tc.mustOK(map[string]any{"action": "call", "tool": "wrapped_text", "arguments": map[string]any{"bytes": 300, "shape": "text"}})
	want := tc.mustOK(map[string]any{"action": "call", "tool": "large", "arguments": map[string]any{"bytes": 300, "shape": "text"}}).text()
	if r.text() != want {
		t.Errorf("text with --toon = %.120q, want the text as sent %.120q", r.text(), want)
	}
	var sc struct{ Content string }
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil || sc.Content != want {
		t.Errorf("structuredContent with --toon = %.120s (%v), want the server's", r.StructuredContent, err)
	}
	var meta struct{ Dispatch struct{ Format string } }
	if err := json.Unmarshal(r.Meta, &meta); err != nil || meta.Dispatch.Format == "toon" {
		t.Errorf("_meta = %s, want no TOON", r.Meta)
	}

	// Saved to a file, the text stays text too (not a TOON wrapper line).
	r = tc.mustOK(map[string]any{"action": "call", "tool": "wrapped_text", "arguments": map[string]any{"bytes": 300, "shape": "text"}, "resultToFile": true})
	if !strings.Contains(r.text(), `"format":"text"`) {
		t.Errorf("--toon result file of text: %.300s", r.text())
	}
}

// TestServe_ListMarksCutInstructions: a compact list shows the start of a
// server's instructions and, when it leaves some out, says so and how to
// see them all; detail shows them whole.
func TestServe_ListMarksCutInstructions(t *testing.T) {
	long := strings.Repeat("word ", 80) + "end."
	tests := []struct {
		instructions string
		want         string
	}{
		{"Reads files.", "Reads files."},
		{"Reads files. Also writes them.", "Reads files. …(cut; list format=detail shows all)"},
		{"First line\nsecond line", "First line …(cut; list format=detail shows all)"},
		{long, "…(cut; list format=detail shows all)"},
	}
	var args []string
	for _, tt := range tests {
		args = append(args, "--mcp", fixture("--instructions", "'"+tt.instructions+"'"))
	}
	tc := startDispatch(t, nil, append([]string{"--no-cache"}, args...)...)
	var compact, detail struct {
		Connections []struct{ Alias, Instructions string }
	}
	decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &compact)
	decodeText(t, tc.mustOK(map[string]any{"action": "list", "format": "detail"}), &detail)
	if len(compact.Connections) != len(tests) || len(detail.Connections) != len(tests) {
		t.Fatalf("want %d connections, got %+v", len(tests), compact.Connections)
	}
	for i, tt := range tests {
		got := compact.Connections[i].Instructions
		if got != tt.want && !(strings.HasSuffix(tt.want, ")") && strings.HasPrefix(tt.want, "…") && strings.HasSuffix(got, tt.want)) {
			t.Errorf("%s: compact instructions %q, want %q", compact.Connections[i].Alias, got, tt.want)
		}
		if len(got) > 300+len(" …(cut; list format=detail shows all)") {
			t.Errorf("%s: compact instructions of %d bytes", compact.Connections[i].Alias, len(got))
		}
		if detail.Connections[i].Instructions != tt.instructions {
			t.Errorf("%s: detail instructions %q, want them whole", detail.Connections[i].Alias, detail.Connections[i].Instructions)
		}
	}
}

// TestServe_SearchWithoutHits: no hits is an empty list, never null.
func TestServe_SearchWithoutHits(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture())
	r := tc.mustOK(map[string]any{"action": "search", "query": "zqxjv wvkpq"})
	var resp struct{ Hits json.RawMessage }
	decodeText(t, r, &resp)
	if string(resp.Hits) != "[]" {
		t.Errorf("hits = %s, want []: %s", resp.Hits, r.text())
	}
}
