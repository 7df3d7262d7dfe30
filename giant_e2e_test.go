package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// giantAnswer is dispatch's answer when a list, search or info answer went
// to a result file.
type giantAnswer struct {
	Action string `json:"action"`
	Bytes  int64  `json:"bytes"`
	Spill  struct {
		ResultFile  string `json:"resultFile"`
		AutoSpilled bool   `json:"autoSpilled"`
		Saved       string `json:"saved"`
	} `json:"spill"`
}

// giantDescription is larger than the default --threshold (50 KiB).
const giantDescription = 200_000

// A tool whose definition is larger than --threshold does not flood the
// agent: info, in either spelling, saves it to a result file and answers
// with the file, as a large call result does; small answers stay inline.
func TestServe_LargeAnswersGoToFiles(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture("--giant-description", "200000"))

	saved := func(t *testing.T, r toolResult) giantAnswer {
		t.Helper()
		if r.IsError {
			t.Fatalf("isError: %s", r.text())
		}
		if n := len(r.text()); n > 4000 {
			t.Fatalf("answer is %d bytes inline; want a result file", n)
		}
		var a giantAnswer
		decodeText(t, r, &a)
		if a.Spill.ResultFile == "" || a.Spill.Saved != "answer" {
			t.Fatalf("no result file in %s", r.text())
		}
		data, err := os.ReadFile(a.Spill.ResultFile)
		if err != nil {
			t.Fatalf("result file: %v", err)
		}
		if !strings.Contains(string(data), strings.Repeat("x", giantDescription)) {
			t.Fatalf("result file %s (%d bytes) does not hold the whole description", a.Spill.ResultFile, len(data))
		}
		return a
	}

	t.Run("info", func(t *testing.T) {
		a := saved(t, tc.mustCall(map[string]any{"action": "info", "tool": "giant"}))
		if !a.Spill.AutoSpilled || a.Action != "info" || a.Bytes <= giantDescription {
			t.Errorf("answer %+v: want autoSpilled info of more than %d bytes", a, giantDescription)
		}
	})
	t.Run("proxy extension info", func(t *testing.T) {
		saved(t, tc.mustCall(map[string]any{"action": "info", "type": "tool", "path": "giant"}))
	})
	t.Run("proxy extension list", func(t *testing.T) {
		saved(t, tc.mustCall(map[string]any{"action": "list", "type": "tool"}))
	})
	t.Run("list with schemas", func(t *testing.T) {
		saved(t, tc.mustCall(map[string]any{"action": "list", "connection": "c1", "includeInputSchema": true, "format": "detail", "limit": 500}))
	})
	t.Run("readresult reads it", func(t *testing.T) {
		a := saved(t, tc.mustCall(map[string]any{"action": "info", "tool": "giant"}))
		r := tc.mustOK(map[string]any{"action": "readresult", "resultFile": a.Spill.ResultFile, "op": "grep", "pattern": `"name": "giant"`})
		if !strings.Contains(r.text(), "giant") {
			t.Errorf("readresult grep: %s", r.text())
		}
	})
	t.Run("run step", func(t *testing.T) {
		r := tc.mustCall(map[string]any{"action": "run", "steps": []any{
			map[string]any{"id": "g", "action": "info", "tool": "giant"},
			map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$g.value.tool.name"}},
		}})
		var run struct {
			Steps []struct {
				Response struct {
					Spill   *struct{ ResultFile string } `json:"spill"`
					Content []struct{ Text string }      `json:"content"`
				} `json:"response"`
			} `json:"steps"`
		}
		decodeText(t, r, &run)
		if r.IsError || len(r.text()) > 4000 || len(run.Steps) != 2 || run.Steps[0].Response.Spill == nil ||
			len(run.Steps[1].Response.Content) != 1 || run.Steps[1].Response.Content[0].Text != "giant" {
			t.Fatalf("run: isError %v, %d bytes: %.2000s", r.IsError, len(r.text()), r.text())
		}
	})
	t.Run("small answers stay inline", func(t *testing.T) {
		r := tc.mustOK(map[string]any{"action": "info", "tool": "echo"})
		var info struct {
			Tool json.RawMessage `json:"tool"`
		}
		decodeText(t, r, &info)
		if len(info.Tool) == 0 {
			t.Fatalf("info echo: want the definition inline, got %s", r.text())
		}
	})
	t.Run("resultToFile", func(t *testing.T) {
		r := tc.mustCall(map[string]any{"action": "info", "tool": "echo", "resultToFile": true})
		if r.IsError {
			t.Fatalf("resultToFile: %s", r.text())
		}
		var a giantAnswer
		decodeText(t, r, &a)
		if a.Spill.ResultFile == "" || a.Spill.AutoSpilled {
			t.Fatalf("resultToFile: want a result file saved on request, got %s", r.text())
		}
	})
	t.Run("resultSizeThreshold 0 keeps it inline", func(t *testing.T) {
		r := tc.mustCall(map[string]any{"action": "info", "tool": "giant", "resultSizeThreshold": 0})
		if r.IsError || len(r.text()) <= giantDescription {
			t.Fatalf("resultSizeThreshold 0: want the whole answer inline, got %d bytes", len(r.text()))
		}
	})
}

// A server publishing more objects than --max-catalog-items (across
// pages), or more bytes than --max-catalog-size, has its first ones kept:
// list says so and names the option, info of a tool past the cut says it
// may be there, and the tools kept work as usual.
func TestServe_CatalogBound(t *testing.T) {
	for _, tt := range []struct {
		name, flag, value, option string
	}{
		{"items", "--max-catalog-items", "120", "--max-catalog-items"},
		{"bytes", "--max-catalog-size", "16KiB", "--max-catalog-size"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := startDispatch(t, nil, "--no-cache", tt.flag, tt.value, "--mcp", fixture("--tools", "400", "--page-size", "50"))
			var list struct {
				Connections []struct {
					ToolCount int      `json:"toolCount"`
					Warnings  []string `json:"warnings"`
				} `json:"connections"`
			}
			decodeText(t, tc.mustOK(map[string]any{"action": "list"}), &list)
			if len(list.Connections) != 1 {
				t.Fatalf("list: %+v", list)
			}
			c := list.Connections[0]
			if c.ToolCount == 0 || c.ToolCount > 120 || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], tt.option) {
				t.Fatalf("list: toolCount %d, warnings %q: want at most 120 tools and a warning naming %s", c.ToolCount, c.Warnings, tt.option)
			}
			r := tc.mustCall(map[string]any{"action": "info", "tool": "tool_0399"})
			if !r.IsError || !strings.Contains(r.text(), tt.option) {
				t.Errorf("info of a tool past the cut: isError %v, %s; want an error naming %s", r.IsError, r.text(), tt.option)
			}
			tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "hi"}})
		})
	}
}
