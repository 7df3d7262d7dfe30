//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeRunSteps is the steps file the README shows for dispatch run.
func readmeRunSteps(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	at := strings.Index(text, "`dispatch run STEPS.json` (or JSON lines on stdin")
	if at < 0 {
		t.Fatal("README has no paragraph on dispatch run")
	}
	_, block, ok := strings.Cut(text[at:], "```json\n")
	if !ok {
		t.Fatal("README's dispatch run paragraph has no JSON example")
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("README's dispatch run example does not end")
	}
	return block
}

// demoFiles is what list_files of the demo server answers, called alone.
func demoFiles(t *testing.T, count int) []struct {
	Path string
	Size int
} {
	t.Helper()
	out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--demo"), "call", "list_files", mustJSON(map[string]any{"count": count}))
	var files []struct {
		Path string
		Size int
	}
	if err := json.Unmarshal([]byte(out), &files); code != 0 || err != nil || len(files) != count {
		t.Fatalf("list_files alone: exit %d (%v)\n%.300s\n%s", code, err, out, stderr)
	}
	return files
}

// The README's example works as a steps file from the shell against the
// server it names, and each reference takes what the README says.
func TestRunCLI_ReadmeExampleAgainstTheDemoServer(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	file := filepath.Join(t.TempDir(), "steps.json")
	writeFile(t, file, readmeRunSteps(t))
	out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--demo"), "run", file)
	if code != 0 {
		t.Fatalf("README example: exit %d\n%.2000s\n%s", code, out, stderr)
	}
	got := parseSteps(t, out)
	if len(got) != 3 {
		t.Fatalf("%d step lines, want 3:\n%.2000s", len(got), out)
	}
	for _, s := range got {
		if s.Error != "" {
			t.Errorf("step %d: %s", s.Step, s.Error)
		}
	}
	var grep struct{ Value string }
	if err := json.Unmarshal(got[1].Response, &grep); err != nil || !strings.Contains(grep.Value, `.md"`) {
		t.Errorf("grep step = %.500s (%v)", got[1].Response, err)
	}
	want := ""
	for _, f := range demoFiles(t, 2000) {
		if f.Size > 20000 {
			want = f.Path
			break
		}
	}
	if text := stepLineText(t, got[2].Response); want == "" || text != want {
		t.Errorf(`echo of "$files.value.#(size>20000).path" = %q, want %q`, text, want)
	}
}

// stepLineText is the text of a step line's inline call answer.
func stepLineText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var call struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(raw, &call); err != nil || len(call.Content) != 1 {
		t.Fatalf("step answer %.300s has no text (%v)", raw, err)
	}
	return call.Content[0].Text
}

// A run the checks refuse runs nothing, from the shell as over MCP, and
// both say the same.
func TestRunCLI_RefusedBeforeAnyStepRuns(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture("--demo"))
	first := map[string]any{"id": "files", "action": "call", "tool": "list_files", "arguments": map[string]any{"count": 50}, "resultToFile": true}
	echo := func(msg string) map[string]any {
		return map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": msg}}
	}
	for _, c := range []struct {
		name string
		bad  map[string]any
		want string
	}{
		{"unknown field", echo("$files.content.0"), `step 2: "$files.content.0": a step's answer has no "content.0"`},
		{"unknown step", echo("$nope.value"), `step 2: "$nope.value" refers to "nope", which is no step of this run`},
		{"later step", echo("$step3.value"), `step 2: "$step3.value" refers to step 3, which does not come before step 2`},
		{"bad path", echo("$files.value.a["), `step 2: "$files.value.a[":`},
		{"nested run", map[string]any{"action": "run", "steps": []any{echo("x")}}, "step 2: a run cannot hold another run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			steps := []map[string]any{first, c.bad, echo("last")}
			results := t.TempDir()
			out, stderr, code := runCLI(t, "", "--no-cache", "--log-level", "info", "--spill-dir", results, "--mcp", fixture("--demo"), "run", writeSteps(t, steps))
			if code != exitUsage || out != "" || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %.300q, stderr %q; want exit 2, nothing printed, %q", code, out, stderr, c.want)
			}
			// Step 1 would have saved its result here, and logged its call.
			if saved, err := os.ReadDir(results); err != nil || len(saved) != 0 {
				t.Errorf("a refused run saved %d files (%v): step 1 ran", len(saved), err)
			}
			if strings.Contains(stderr, "msg=call") {
				t.Errorf("a refused run called a tool:\n%s", stderr)
			}
			r := tc.mustCall(map[string]any{"action": "run", "steps": steps})
			if !r.IsError || !strings.Contains(r.text(), c.want) {
				t.Errorf("over MCP: %s; want %q", r.text(), c.want)
			}
		})
	}
}

// "$ID.value" of a call saved to a file is what the file holds, and
// "$ID.resultFile" the file's path; a call answered inline has no file.
// The shell and MCP resolve them alike.
func TestRunCLI_ValueAndResultFileOfASavedResult(t *testing.T) {
	steps := []map[string]any{
		{"id": "files", "action": "call", "tool": "list_files", "arguments": map[string]any{"count": 50}, "resultToFile": true},
		{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$files.resultFile"}},
		{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$files.value.3.path"}},
		{"action": "call", "tool": "add", "arguments": map[string]any{"a": "$files.value.#", "b": "$files.value.0.size"}},
		{"id": "small", "action": "call", "tool": "echo", "arguments": map[string]any{"message": "inline"}},
		{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$small.resultFile"}},
		{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$small.value"}},
	}
	files := demoFiles(t, 50)
	check := func(t *testing.T, got []stepLine) {
		t.Helper()
		if len(got) != len(steps) {
			t.Fatalf("%d steps, want %d", len(got), len(steps))
		}
		var saved spillAnswer
		if err := json.Unmarshal(got[0].Response, &saved); err != nil || saved.Spill == nil {
			t.Fatalf("step 1 was not saved to a file: %.300s (%v)", got[0].Response, err)
		}
		data, err := os.ReadFile(saved.Spill.ResultFile)
		if err != nil {
			t.Fatal(err)
		}
		var held []struct {
			Path string
			Size int
		}
		if err := json.Unmarshal(data, &held); err != nil || len(held) != 50 || held[3].Path != files[3].Path {
			t.Fatalf("result file holds %.200s (%v)", data, err)
		}
		if text := stepLineText(t, got[1].Response); text != saved.Spill.ResultFile {
			t.Errorf(`"$files.resultFile" = %q, want %q`, text, saved.Spill.ResultFile)
		}
		if text := stepLineText(t, got[2].Response); text != held[3].Path {
			t.Errorf(`"$files.value.3.path" = %q, want %q`, text, held[3].Path)
		}
		var sum struct{ StructuredContent struct{ Sum int } }
		if err := json.Unmarshal(got[3].Response, &sum); err != nil || sum.StructuredContent.Sum != 50+held[0].Size {
			t.Errorf(`add("$files.value.#", "$files.value.0.size") = %.300s, want %d`, got[3].Response, 50+held[0].Size)
		}
		want := `"$small.resultFile": step small's result came inline, not saved to a file`
		if !strings.Contains(got[5].Error, want) || !strings.Contains(got[5].Error, `"$small.value"`) {
			t.Errorf("resultFile of an inline result: %q, want %q", got[5].Error, want)
		}
		if text := stepLineText(t, got[6].Response); text != "inline" {
			t.Errorf(`"$small.value" = %q`, text)
		}
	}
	t.Run("dispatch run", func(t *testing.T) {
		out, stderr, code := runCLI(t, "", "--no-cache", "--spill-dir", t.TempDir(), "--mcp", fixture("--demo"), "run", writeSteps(t, steps))
		if code != exitUsage || !strings.Contains(stderr, "step 6: ") {
			t.Errorf("exit %d, stderr %q; want 2 and step 6 named", code, stderr)
		}
		check(t, parseSteps(t, out))
	})
	t.Run("action run", func(t *testing.T) {
		tc := startDispatch(t, nil, "--mcp", fixture("--demo"))
		a := decodeRun(t, tc.mustCall(map[string]any{"action": "run", "steps": steps}))
		var got []stepLine
		for _, s := range a.Steps {
			got = append(got, stepLine{Step: s.Step, ID: s.ID, Action: s.Action, Response: s.Response, Error: s.Error, FailedDependency: s.FailedDependency})
		}
		check(t, got)
	})
}
