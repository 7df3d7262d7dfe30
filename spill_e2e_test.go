//go:build unix

package main

// End-to-end tests of result files: spilling over the threshold, reading
// them back with readresult, confinement, cleanup at shutdown, --spill-max,
// argumentsFile, pipelines and the CLI. They drive the real dispatch binary
// over stdio (or as a one-shot command) in front of the fixture server.

import (
	"bufio"
	"bytes"
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// spilled decodes r as a spilled call's answer and fails unless it is one.
func spilled(t *testing.T, r toolResult) spillAnswer {
	t.Helper()
	var a spillAnswer
	if err := json.Unmarshal([]byte(r.text()), &a); err != nil || a.Spill == nil || a.Spill.ResultFile == "" {
		t.Fatalf("want a spilled answer, got %.300s (%v)", r.text(), err)
	}
	return a
}

// notSpilled fails if r is a spilled call's answer.
func notSpilled(t *testing.T, r toolResult) {
	t.Helper()
	var a spillAnswer
	if json.Unmarshal([]byte(r.text()), &a) == nil && a.Spill != nil {
		t.Fatalf("want an inline result, got a spill to %s", a.Spill.ResultFile)
	}
}

// callLarge is a proxy-dispatch call of the fixture's large tool with extra
// request fields.
func callLarge(n int, shape string, extra map[string]any) map[string]any {
	args := map[string]any{"bytes": n}
	if shape != "" {
		args["shape"] = shape
	}
	req := map[string]any{"action": "call", "tool": "large", "arguments": args}
	for k, v := range extra {
		req[k] = v
	}
	return req
}

// mustError calls and fails unless dispatch answered isError with every
// one of want in its text.
func (tc *testClient) mustError(args map[string]any, want ...string) string {
	tc.t.Helper()
	r := tc.mustCall(args)
	if !r.IsError {
		tc.t.Fatalf("call %v: want isError, got %.300s", args, r.text())
	}
	for _, w := range want {
		if !strings.Contains(r.text(), w) {
			tc.t.Errorf("call %v: error %q lacks %q", args, r.text(), w)
		}
	}
	return r.text()
}

func readJSONFile(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s is not JSON: %v", path, err)
	}
	return v
}

func parseJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v: %.200s", err, s)
	}
	return v
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

var previewMarker = regexp.MustCompile(`…\[\+(\d+) bytes\]$`)

// checkPreview checks that preview is the start of the file, at most 300
// bytes, followed by a marker counting the bytes of the file left out.
func checkPreview(t *testing.T, preview string, file []byte) {
	t.Helper()
	m := previewMarker.FindStringSubmatch(preview)
	if m == nil {
		t.Errorf("preview has no cut marker: %q", preview)
		return
	}
	body := strings.TrimSuffix(preview, m[0])
	if len(body) > 300 || len(body) < 200 {
		t.Errorf("preview holds %d bytes of the file, want 200-300", len(body))
	}
	if !bytes.HasPrefix(file, []byte(body)) {
		t.Errorf("preview %q is not the start of the file", body)
	}
	if left, _ := strconv.Atoi(m[1]); left != len(file)-len(body) {
		t.Errorf("preview marker says %d bytes left out, but the file has %d more", left, len(file)-len(body))
	}
}

func TestServe_SpillOverThreshold(t *testing.T) {
	parent := t.TempDir()
	tc := startDispatch(t, nil, "--no-cache", "--threshold", "50KiB", "--spill-dir", parent, "--mcp", fixture())

	// Under the threshold: the result comes back inline, untouched.
	r := tc.mustOK(callLarge(10_000, "", nil))
	notSpilled(t, r)
	if items, ok := parseJSON(t, r.text()).([]any); !ok || len(items) < 50 {
		t.Fatalf("inline large = %.200s", r.text())
	}

	t.Run("array", func(t *testing.T) {
		a := spilled(t, tc.mustOK(callLarge(200_000, "array", nil)))
		s := a.Spill
		if !s.AutoSpilled || s.Format != "json" || filepath.Ext(s.ResultFile) != ".json" {
			t.Errorf("spill = %+v, want an automatic JSON spill", s)
		}
		if a.Bytes < 200_000 || a.EstimatedTokens != (a.Bytes+3)/4 {
			t.Errorf("answer bytes %d, tokens %d", a.Bytes, a.EstimatedTokens)
		}
		dir := filepath.Dir(s.ResultFile)
		if filepath.Dir(dir) != parent || !strings.HasPrefix(filepath.Base(dir), "dispatch-spill-") {
			t.Errorf("result file %s is not in a private directory under %s", s.ResultFile, parent)
		}
		if m := fileMode(t, s.ResultFile); m != 0o600 {
			t.Errorf("file mode %o, want 600", m)
		}
		if m := fileMode(t, dir); m != 0o700 {
			t.Errorf("directory mode %o, want 700", m)
		}
		data, err := os.ReadFile(s.ResultFile)
		if err != nil {
			t.Fatal(err)
		}
		lines := int64(bytes.Count(data, []byte{'\n'}))
		if s.Bytes != int64(len(data)) || s.Lines != lines || s.EstimatedTokens != (s.Bytes+3)/4 || !strings.HasSuffix(s.Size, "KiB") {
			t.Errorf("spill says %d bytes (%s), %d lines, %d tokens; the file has %d bytes, %d lines",
				s.Bytes, s.Size, s.Lines, s.EstimatedTokens, len(data), lines)
		}
		if lines < 10_000 || !bytes.HasPrefix(data, []byte("[\n  {\n    \"id\": 1,\n")) {
			t.Errorf("file is not indented JSON (%d lines): %.80q", lines, data)
		}
		// The same call inline (per-call threshold 0) gives the same value.
		inline := tc.mustOK(callLarge(200_000, "array", map[string]any{"resultSizeThreshold": 0}))
		notSpilled(t, inline)
		want := parseJSON(t, inline.text())
		if !reflect.DeepEqual(readJSONFile(t, s.ResultFile), want) {
			t.Error("spilled JSON differs from the inline result")
		}
		if s.Elements == nil || *s.Elements != int64(len(want.([]any))) {
			t.Errorf("elements = %v, want %d", s.Elements, len(want.([]any)))
		}
		if !reflect.DeepEqual(s.FirstElementKeys, []string{"id", "name", "size", "tags"}) || len(s.TopLevelKeys) != 0 {
			t.Errorf("firstElementKeys %v, topLevelKeys %v", s.FirstElementKeys, s.TopLevelKeys)
		}
		checkPreview(t, s.Preview, data)
		if !strings.Contains(s.Hint, "readresult") || !strings.Contains(s.Hint, s.ResultFile) {
			t.Errorf("hint = %q", s.Hint)
		}
	})

	t.Run("object", func(t *testing.T) {
		s := spilled(t, tc.mustOK(callLarge(200_000, "object", nil))).Spill
		if !reflect.DeepEqual(s.TopLevelKeys, []string{"items", "total", "next"}) || s.Elements != nil {
			t.Errorf("topLevelKeys %v, elements %v", s.TopLevelKeys, s.Elements)
		}
		data, err := os.ReadFile(s.ResultFile)
		if err != nil {
			t.Fatal(err)
		}
		checkPreview(t, s.Preview, data)
	})

	t.Run("per-call threshold", func(t *testing.T) {
		a := spilled(t, tc.mustOK(callLarge(10_000, "", map[string]any{"resultSizeThreshold": 1000})))
		if !a.Spill.AutoSpilled {
			t.Errorf("resultSizeThreshold spill has autoSpilled=false")
		}
		notSpilled(t, tc.mustOK(callLarge(200_000, "", map[string]any{"resultSizeThreshold": 0})))
	})

	t.Run("resultToFile", func(t *testing.T) {
		a := spilled(t, tc.mustOK(callLarge(100, "", map[string]any{"resultToFile": true})))
		if a.Spill.AutoSpilled {
			t.Error("resultToFile spill has autoSpilled=true")
		}
		inline := tc.mustOK(callLarge(100, "", nil))
		if !reflect.DeepEqual(readJSONFile(t, a.Spill.ResultFile), parseJSON(t, inline.text())) {
			t.Error("resultToFile file differs from the inline result")
		}
	})

	t.Run("text", func(t *testing.T) {
		s := spilled(t, tc.mustOK(callLarge(200_000, "text", nil))).Spill
		if s.Format != "text" || filepath.Ext(s.ResultFile) != ".txt" || s.Elements != nil || len(s.TopLevelKeys) != 0 {
			t.Errorf("text spill = %+v", s)
		}
		inline := tc.mustOK(callLarge(200_000, "text", map[string]any{"resultSizeThreshold": 0}))
		data, err := os.ReadFile(s.ResultFile)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != inline.text() || len(data) != 200_000 {
			t.Errorf("text file (%d bytes) is not the raw text (%d bytes)", len(data), len(inline.text()))
		}
		checkPreview(t, s.Preview, data)
	})

	t.Run("content list", func(t *testing.T) {
		// Several items are written whole, each exactly as the server sent
		// it: "<b>" stays "<b>" (not "\u003cb\u003e"), so grep finds it.
		s := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "mixed", "resultToFile": true})).Spill
		direct := callFixtureDirectly(t, "mixed")
		if !reflect.DeepEqual(readJSONFile(t, s.ResultFile), normalize(t, direct.Content)) {
			t.Error("spill file is not the content list the server sent")
		}
		r := tc.mustOK(map[string]any{"action": "readresult", "resultFile": s.ResultFile, "op": "grep", "pattern": "<b>text</b> & co"})
		if _, texts, _ := numbered(t, r.text()); len(texts) != 1 {
			t.Errorf("grep for the HTML text = %q", r.text())
		}
	})

	t.Run("structuredContent", func(t *testing.T) {
		s := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "large_structured", "arguments": map[string]any{"bytes": 200_000}})).Spill
		inline := tc.mustOK(map[string]any{"action": "call", "tool": "large_structured", "arguments": map[string]any{"bytes": 200_000}, "resultSizeThreshold": 0})
		if len(inline.StructuredContent) == 0 {
			t.Fatal("large_structured returned no structuredContent")
		}
		if !reflect.DeepEqual(readJSONFile(t, s.ResultFile), parseJSON(t, string(inline.StructuredContent))) {
			t.Error("spill file is not the structuredContent")
		}
		if !reflect.DeepEqual(s.TopLevelKeys, []string{"items", "total", "next"}) {
			t.Errorf("topLevelKeys = %v", s.TopLevelKeys)
		}
	})
}

// numbered parses the "N:text" lines of a head/slice/grep answer (sep ':'
// for lines, '-' for grep's context lines) up to the first note.
func numbered(t *testing.T, text string) (nums []int64, texts []string, notes string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "[") || l == "" {
			return nums, texts, strings.Join(lines[i:], "\n")
		}
		if l == "--" {
			continue
		}
		j := strings.IndexAny(l, ":-")
		n, err := strconv.ParseInt(l[:max(j, 0)], 10, 64)
		if j < 0 || err != nil {
			t.Fatalf("line %q is not numbered", l)
		}
		nums = append(nums, n)
		texts = append(texts, l[j+1:])
	}
	return nums, texts, ""
}

func TestServe_ReadresultOps(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--spill-dir", t.TempDir(), "--mcp", fixture())
	file := spilled(t, tc.mustOK(callLarge(100_000, "array", map[string]any{"resultToFile": true}))).Spill.ResultFile
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fileLines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	rr := func(op string, params map[string]any) map[string]any {
		req := map[string]any{"action": "readresult", "resultFile": file, "op": op}
		for k, v := range params {
			req[k] = v
		}
		return req
	}
	// checkLines checks numbered lines against the file.
	checkLines := func(t *testing.T, text string, from, count int) string {
		t.Helper()
		nums, texts, notes := numbered(t, text)
		if len(nums) != count {
			t.Fatalf("%d lines, want %d:\n%s", len(nums), count, text)
		}
		for i, n := range nums {
			if n != int64(from+i) || texts[i] != fileLines[n-1] {
				t.Fatalf("line %d: %d:%q, want %d:%q", i, n, texts[i], from+i, fileLines[from+i-1])
			}
		}
		return notes
	}

	t.Run("stat", func(t *testing.T) {
		text := tc.mustOK(rr("stat", nil)).text()
		for _, want := range []string{fmt.Sprintf("(%d bytes), %d lines", len(data), len(fileLines)), "format: json", "array of", "id, name, size, tags"} {
			if !strings.Contains(text, want) {
				t.Errorf("stat lacks %q:\n%s", want, text)
			}
		}
	})
	t.Run("head", func(t *testing.T) {
		notes := checkLines(t, tc.mustOK(rr("head", nil)).text(), 1, 50)
		if !strings.Contains(notes, "fromLine=51") {
			t.Errorf("head notes %q do not say where to go on", notes)
		}
		checkLines(t, tc.mustOK(rr("head", map[string]any{"lines": 7})).text(), 1, 7)
	})
	t.Run("tail", func(t *testing.T) {
		text := tc.mustOK(rr("tail", map[string]any{"lines": 4})).text()
		want := strings.Join(fileLines[len(fileLines)-4:], "\n") + "\n["
		if !strings.HasPrefix(text, want) {
			t.Errorf("tail = %q, want it to start %q", text, want)
		}
	})
	t.Run("slice", func(t *testing.T) {
		checkLines(t, tc.mustOK(rr("slice", map[string]any{"fromLine": 100, "toLine": 110})).text(), 100, 11)
		tc.mustError(rr("slice", nil), `"fromLine"`)
	})
	t.Run("grep", func(t *testing.T) {
		// Case-insensitive, with context.
		text := tc.mustOK(rr("grep", map[string]any{"pattern": `ITEM-12"`, "context": 2})).text()
		nums, texts, notes := numbered(t, text)
		at := -1
		for i, l := range fileLines {
			if l == `    "name": "item-12",` {
				at = i + 1
			}
		}
		if at < 0 || !reflect.DeepEqual(nums, []int64{int64(at - 2), int64(at - 1), int64(at), int64(at + 1), int64(at + 2)}) ||
			texts[2] != fileLines[at-1] || !strings.Contains(text, fmt.Sprintf("%d:", at)) || !strings.Contains(text, fmt.Sprintf("%d-", at+1)) {
			t.Errorf("grep with context = %q (match expected at line %d)", text, at)
		}
		if !strings.Contains(notes, "1 matching lines in all") {
			t.Errorf("grep notes = %q", notes)
		}
		// maxMatches shows a few and counts all.
		re := regexp.MustCompile(`(?i)"name": "item-1\d\d"`)
		total := 0
		for _, l := range fileLines {
			if re.MatchString(l) {
				total++
			}
		}
		text = tc.mustOK(rr("grep", map[string]any{"pattern": `"name": "item-1\d\d"`, "maxMatches": 3})).text()
		nums, _, notes = numbered(t, text)
		if len(nums) != 3 || total != 100 || !strings.Contains(notes, fmt.Sprintf("%d matching lines in all", total)) ||
			!strings.Contains(notes, fmt.Sprintf("fromLine=%d", nums[2]+1)) {
			t.Errorf("grep maxMatches 3 (of %d) = %q", total, text)
		}
		tc.mustError(rr("grep", map[string]any{"pattern": "item-(1"}), "invalid regular expression")
		tc.mustError(rr("grep", nil), `"pattern"`)
	})
	t.Run("read", func(t *testing.T) {
		text := tc.mustOK(rr("read", map[string]any{"maxBytes": 100})).text()
		want := fmt.Sprintf("[bytes 0-100 of %d; %d bytes remain: continue with offset=100]", len(data), len(data)-100)
		if !strings.HasPrefix(text, string(data[:100])) || !strings.Contains(text, want) {
			t.Errorf("read = %q, want the first 100 bytes and %q", text, want)
		}
		text = tc.mustOK(rr("read", map[string]any{"offset": 100, "maxBytes": 50})).text()
		if !strings.HasPrefix(text, string(data[100:150])) || !strings.Contains(text, "continue with offset=150") {
			t.Errorf("read at 100 = %q", text)
		}
		text = tc.mustOK(rr("read", map[string]any{"offset": len(data) - 10})).text()
		if !strings.HasPrefix(text, string(data[len(data)-10:])) || !strings.Contains(text, "end of file") {
			t.Errorf("read of the end = %q", text)
		}
	})
	t.Run("query", func(t *testing.T) {
		var want []string
		for _, item := range readJSONFile(t, file).([]any) {
			m := item.(map[string]any)
			if m["size"].(float64) > 95000 {
				want = append(want, m["name"].(string))
			}
		}
		text := tc.mustOK(rr("query", map[string]any{"path": "#(size>95000)#.name"})).text()
		value, notes, _ := strings.Cut(text, "\n")
		var got []string
		if err := json.Unmarshal([]byte(value), &got); err != nil || len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("query = %q (%v), want %v", value, err, want)
		}
		if !strings.Contains(notes, fmt.Sprintf("array of %d elements", len(want))) {
			t.Errorf("query notes = %q", notes)
		}
		tc.mustError(rr("query", map[string]any{"path": "nosuchkey"}), "matches nothing", "array of")
		tc.mustError(rr("query", map[string]any{"path": "#(size>"}), "invalid gjson path", "never closed")
	})
	t.Run("structuredContent holds the value without notes", func(t *testing.T) {
		total := int64(strings.Count(string(data), `"name": "item-1`))
		firstMatch := slices.IndexFunc(fileLines, func(l string) bool { return strings.Contains(l, `"name": "item-1`) })
		tests := []struct {
			op        string
			params    map[string]any
			value     any // what value decodes to
			matches   *int64
			truncated bool
		}{
			{"query", map[string]any{"path": "0.name"}, "item-1", nil, false},
			{"query", map[string]any{"path": "#"}, float64(len(readJSONFile(t, file).([]any))), nil, false},
			{"head", map[string]any{"lines": 2}, fileLines[0] + "\n" + fileLines[1] + "\n", nil, true},
			{"slice", map[string]any{"fromLine": 3, "toLine": 3}, fileLines[2] + "\n", nil, true},
			{"read", map[string]any{"maxBytes": 10}, string(data[:10]), nil, true},
			{"grep", map[string]any{"pattern": `"name": "item-1`, "maxMatches": 1}, fileLines[firstMatch] + "\n", &total, true},
		}
		for _, tt := range tests {
			r := tc.mustOK(rr(tt.op, tt.params))
			var got struct {
				Value     any
				Matches   *int64
				Truncated bool
				Notes     string
			}
			if err := json.Unmarshal(r.StructuredContent, &got); err != nil {
				t.Fatalf("%s %v: structuredContent %s: %v", tt.op, tt.params, r.StructuredContent, err)
			}
			if !reflect.DeepEqual(got.Value, tt.value) || got.Truncated != tt.truncated ||
				(tt.matches == nil) != (got.Matches == nil) || (tt.matches != nil && *got.Matches != *tt.matches) {
				t.Errorf("%s %v: structuredContent %s, want value %#v, matches %v, truncated %v", tt.op, tt.params, r.StructuredContent, tt.value, tt.matches, tt.truncated)
			}
			if s, ok := got.Value.(string); ok && strings.Contains(s, "[") && strings.Contains(s, "]\n") && strings.Contains(s, "shown") {
				t.Errorf("%s: value carries notes: %q", tt.op, s)
			}
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		tc.mustError(rr("bogus", nil), `unknown readresult op "bogus"`, "stat, head, tail, slice, grep, read, query")
		tc.mustError(rr("head", map[string]any{"pattern": "x"}), "pattern", "do not apply to op head", "lines")
		tc.mustError(rr("stat", map[string]any{"maxBytes": 10}), "maxBytes", "op stat")
	})
}

func TestServe_ReadresultConfinement(t *testing.T) {
	parent := t.TempDir()
	const canary = "canary-5f1e9a-environ"
	tc := startDispatch(t, []string{"DISPATCH_E2E_CANARY=" + canary}, "--no-cache", "--spill-dir", parent, "--mcp", fixture())
	other := startDispatch(t, nil, "--no-cache", "--spill-dir", parent, "--mcp", fixture())

	mine := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "mine"}, "resultToFile": true})).Spill.ResultFile
	theirs := spilled(t, other.mustOK(map[string]any{"action": "call", "tool": "echo",
		"arguments": map[string]any{"message": "theirs-secret-payload"}, "resultToFile": true})).Spill.ResultFile
	dir := filepath.Dir(mine)
	if filepath.Dir(theirs) == dir {
		t.Fatalf("two dispatch processes share the spill directory %s", dir)
	}
	// The other process can read its own file.
	if r := other.mustOK(map[string]any{"action": "readresult", "resultFile": theirs, "op": "head"}); !strings.Contains(r.text(), "theirs-secret-payload") {
		t.Fatalf("owner cannot read its file: %s", r.text())
	}
	outside := filepath.Join(parent, "outside.json")
	writeFile(t, outside, `{"secret": "outside-secret-payload"}`)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	// A spill file replaced by a symlink after it was written.
	replaced := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "x"}, "resultToFile": true})).Spill.ResultFile
	if err := os.Remove(replaced); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, replaced); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, path string
		leaks      []string
	}{
		{"/etc/passwd", "/etc/passwd", []string{"root:"}},
		{"/proc/self/environ", "/proc/self/environ", []string{canary}},
		{"dot-dot out of the spill dir", dir + "/../outside.json", []string{"outside-secret-payload"}},
		{"relative dot-dot", "../outside.json", []string{"outside-secret-payload"}},
		{"symlink in the spill dir", link, []string{"outside-secret-payload"}},
		{"spill file replaced by a symlink", replaced, []string{"outside-secret-payload"}},
		{"another process's spill file", theirs, []string{"theirs-secret-payload"}},
		{"another process's file by name", filepath.Base(theirs), []string{"theirs-secret-payload"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, op := range []map[string]any{{"op": "head"}, {"op": "read"}, {"op": "grep", "pattern": "."}, {"op": "query", "path": "@this"}} {
				req := map[string]any{"action": "readresult", "resultFile": tt.path}
				for k, v := range op {
					req[k] = v
				}
				text := tc.mustError(req, "not a spill file of this dispatch process")
				for _, leak := range tt.leaks {
					if strings.Contains(text, leak) {
						t.Errorf("%v: the refusal shows %q: %s", op, leak, text)
					}
				}
			}
		})
	}
	// Its own file is still readable.
	if r := tc.mustOK(map[string]any{"action": "readresult", "resultFile": mine, "op": "head"}); !strings.Contains(r.text(), "mine") {
		t.Errorf("own file = %s", r.text())
	}
}

// startDispatchProc is startDispatch with the process exposed and a
// working directory ("" = the test's).
func startDispatchProc(t *testing.T, dir string, env []string, args ...string) (*testClient, *exec.Cmd) {
	t.Helper()
	var cmd *exec.Cmd
	tc := launchDispatch(t, env, mcp.ProtocolVersion20251125, []transport.StdioOption{
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			cmd.Dir = dir
			return cmd, nil
		})}, nil, args...)
	tc.initialize()
	return tc, cmd
}

// childPIDs returns the pids of pid's children.
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// spillingDispatch starts dispatch with its spill directory under parent
// and makes it spill once; it returns the private directory and the pids
// of its server processes.
func spillingDispatch(t *testing.T, parent string) (*testClient, *exec.Cmd, string, []int) {
	t.Helper()
	tc, cmd := startDispatchProc(t, "", nil, "--no-cache", "--spill-dir", parent, "--mcp", fixture())
	file := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "m"}, "resultToFile": true})).Spill.ResultFile
	dir := filepath.Dir(file)
	if filepath.Dir(dir) != parent || !exists(file) {
		t.Fatalf("result file %s not in a private directory of %s", file, parent)
	}
	servers := childPIDs(t, cmd.Process.Pid)
	if len(servers) != 1 {
		t.Fatalf("dispatch has children %v, want the one fixture server", servers)
	}
	return tc, cmd, dir, servers
}

func TestServe_ShutdownDeletesResultFiles(t *testing.T) {
	tests := []struct {
		name string
		sig  syscall.Signal // 0: close stdin
	}{
		{"stdin EOF", 0},
		{"SIGINT", syscall.SIGINT},
		{"SIGTERM", syscall.SIGTERM},
		{"SIGHUP", syscall.SIGHUP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc, cmd, dir, servers := spillingDispatch(t, t.TempDir())
			if tt.sig == 0 {
				if err := tc.tr.Close(); err != nil {
					t.Logf("close: %v", err)
				}
			} else if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			testkit.WaitFor(t, "the private spill directory to go", 15*time.Second, func() bool { return !exists(dir) })
			testkit.WaitFor(t, "the fixture server to go", 15*time.Second, func() bool { return !processAlive(servers[0]) })
			testkit.WaitFor(t, "dispatch to exit", 15*time.Second, func() bool { return !processAlive(cmd.Process.Pid) })
			if tt.sig != 0 {
				if err := tc.tr.Close(); err != nil {
					t.Logf("close: %v", err)
				}
			}
			// It exited by itself (the signal was handled, not fatal), with
			// 0 when the agent went away or a service manager stopped it
			// (SIGTERM), and 130 when another signal interrupted it.
			want := 0
			if tt.sig != 0 && tt.sig != syscall.SIGTERM {
				want = 130
			}
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != want {
				t.Errorf("dispatch ended with %v, want exit status %d\nstderr:\n%s", cmd.ProcessState, want, tc.Stderr())
			}
		})
	}
}

// ownMarker is an owner marker of this (live) test process.
func ownMarker(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return fmt.Sprintf("dispatch-spill-owner v1\npid=%d\nstart=%s\n", os.Getpid(), fields[19])
}

// killedSpillDir starts a dispatch that saves a result file under parent,
// kills it with SIGKILL and returns the private directory it left.
func killedSpillDir(t *testing.T, parent string) string {
	t.Helper()
	tc, cmd, killedDir, servers := spillingDispatch(t, parent)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := tc.tr.Close(); err != nil { // reaps it: a zombie still counts as alive
		t.Logf("close: %v", err)
	}
	testkit.WaitFor(t, "the orphaned fixture server to go", 15*time.Second, func() bool { return !processAlive(servers[0]) })
	if !exists(killedDir) {
		t.Fatal("SIGKILL cannot clean up, yet the spill directory is gone")
	}
	return killedDir
}

// A one-shot command is a start too: it sweeps leftovers where a private
// result directory would go (--spill-dir, else the temp dir), though it
// keeps none itself.
func TestCLI_SweepsDirectoriesOfKilledProcesses(t *testing.T) {
	tests := []struct {
		name   string
		tmpdir bool // the leftover is in $TMPDIR rather than --spill-dir
		args   []string
	}{
		{"call", true, []string{"call", "echo", `{"message":"x"}`}},
		{"list", true, []string{"list"}},
		{"info", true, []string{"info", "echo"}},
		{"call with a kept --spill-dir", false, []string{"call", "echo", `{"message":"x"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			killedDir := killedSpillDir(t, parent)
			args := []string{"--no-cache", "--mcp", fixture()}
			if !tt.tmpdir {
				args = append(args, "--spill-dir", parent)
			}
			cmd := exec.Command(dispatchBin, append(args, tt.args...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+parent)
			if !tt.tmpdir {
				cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("dispatch %v: %v\n%s", tt.args, err, out)
			}
			if exists(killedDir) {
				t.Errorf("dispatch %v did not sweep %s", tt.args, killedDir)
			}
		})
	}
}

func TestServe_SweepsDirectoriesOfKilledProcesses(t *testing.T) {
	parent := t.TempDir()
	killedDir := killedSpillDir(t, parent)

	// Look-alikes that must survive the sweep.
	noMarker := filepath.Join(parent, "dispatch-spill-999999-nomarker")
	live := filepath.Join(parent, fmt.Sprintf("dispatch-spill-%d-live", os.Getpid()))
	wrongPID := filepath.Join(parent, "dispatch-spill-1-wrongpid")
	for _, d := range []string{noMarker, live, wrongPID} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, "keep.json"), "{}")
	}
	writeFile(t, filepath.Join(live, ".owner"), ownMarker(t))
	// A marker whose pid disagrees with the directory name.
	writeFile(t, filepath.Join(wrongPID, ".owner"), ownMarker(t))

	next := startDispatch(t, nil, "--no-cache", "--spill-dir", parent, "--mcp", fixture())
	if exists(killedDir) {
		t.Errorf("the next start did not sweep %s", killedDir)
	}
	for _, d := range []string{noMarker, live, wrongPID} {
		if !exists(filepath.Join(d, "keep.json")) {
			t.Errorf("the sweep removed %s", filepath.Base(d))
		}
	}
	// The next process spills to a fresh directory of its own.
	file := spilled(t, next.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "m"}, "resultToFile": true})).Spill.ResultFile
	if d := filepath.Dir(file); d == killedDir || filepath.Dir(d) != parent {
		t.Errorf("next result file %s", file)
	}
}

func TestServe_SpillMax(t *testing.T) {
	parent := t.TempDir()
	tc := startDispatch(t, nil, "--no-cache", "--threshold", "50KiB", "--spill-max", "100KiB", "--spill-dir", parent, "--mcp", fixture())
	// The error reports what the store really holds, not the refused
	// file's bytes written before the limit was hit.
	tc.mustError(callLarge(200_000, "", nil), "limit is 100 KiB", "holds 0 B in 0 file(s)", "--spill-max")
	dirs, err := filepath.Glob(filepath.Join(parent, "dispatch-spill-*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("spill directories %v (%v), want one", dirs, err)
	}
	listing := func() []string {
		entries, err := os.ReadDir(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	if names := listing(); !reflect.DeepEqual(names, []string{".owner"}) {
		t.Errorf("after a refused spill the directory holds %v, want only .owner", names)
	}
	// The refused bytes were given back: one ~70 KB file still fits, a
	// second would not.
	first := spilled(t, tc.mustOK(callLarge(40_000, "", map[string]any{"resultToFile": true}))).Spill
	if first.Bytes < 51200 || first.Bytes > 100<<10 {
		t.Fatalf("first file has %d bytes; the test wants 50-100 KiB", first.Bytes)
	}
	// The same result again: the error names the size of the file it would
	// have written (the first one's) and the first file as what is held.
	tc.mustError(callLarge(40_000, "", map[string]any{"resultToFile": true}),
		"would be "+first.Size+",", "limit is 100 KiB", "holds "+first.Size+" in 1 file(s)", "--spill-max")
	if names := listing(); len(names) != 2 {
		t.Errorf("directory holds %v, want .owner and the first file", names)
	}
}

func TestServe_ArgumentsFile(t *testing.T) {
	work := t.TempDir()
	argsDir := t.TempDir()
	elsewhere := t.TempDir()
	writeFile(t, filepath.Join(work, "add.json"), `{"a": 1, "b": 2}`)
	writeFile(t, filepath.Join(work, "add.toon"), "a: 1\nb: 2\n")
	writeFile(t, filepath.Join(work, "list.json"), `[1, 2]`)
	writeFile(t, filepath.Join(work, "bad.json"), `{"a": 1,`)
	writeFile(t, filepath.Join(work, "big.json"), `{"a": 1, "b": 2, "pad": "`+strings.Repeat("x", 9000)+`"}`)
	writeFile(t, filepath.Join(work, "big.toon"), "a: 1\nb: 2\npad: "+strings.Repeat("x", 9000)+"\n")
	writeFile(t, filepath.Join(work, "notes.txt"), "line one <b>\nline two & \"three\"\n")
	writeFile(t, filepath.Join(elsewhere, "add.json"), `{"a": 100, "b": 200}`)
	writeFile(t, filepath.Join(argsDir, "add.json"), `{"a": 10, "b": 20}`)
	if err := os.Symlink("/etc/passwd", filepath.Join(work, "passwd.json")); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	tc, _ := startDispatchProc(t, work, nil, "--no-cache", "--max-args-file", "8KiB", "--spill-dir", parent, "--mcp", fixture())
	other := startDispatch(t, nil, "--no-cache", "--spill-dir", parent, "--mcp", fixture())

	sum := func(t *testing.T, req map[string]any) float64 {
		t.Helper()
		req["action"], req["tool"] = "call", "add"
		r := tc.mustOK(req)
		var out struct{ Sum *float64 }
		if err := json.Unmarshal(r.StructuredContent, &out); err != nil || out.Sum == nil {
			t.Fatalf("add = %s %s (%v)", r.text(), r.StructuredContent, err)
		}
		return *out.Sum
	}

	t.Run("spill file of this process", func(t *testing.T) {
		file := spilled(t, tc.mustOK(callLarge(3000, "object", map[string]any{"resultToFile": true}))).Spill.ResultFile
		r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": file, "argumentsPath": "items.1.name", "argumentsKey": "message"})
		if r.text() != "item-2" {
			t.Errorf("echo fed items.1.name = %q", r.text())
		}
		total := readJSONFile(t, file).(map[string]any)["total"].(float64)
		if got := sum(t, map[string]any{"argumentsFile": file, "argumentsPath": "total", "argumentsKey": "a", "arguments": map[string]any{"b": 1}}); got != total+1 {
			t.Errorf("add(total, 1) = %v, want %v", got, total+1)
		}
		// A spilled answer echoes where the arguments came from.
		a := spilled(t, tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": file, "argumentsPath": "items.0.name",
			"argumentsKey": "message", "resultToFile": true}))
		if string(a.Arguments) != mustJSON(map[string]string{"_fromFile": file}) {
			t.Errorf("arguments = %s, want {\"_fromFile\": %q}", a.Arguments, file)
		}
	})
	t.Run("inline answer echoes the file, not its content", func(t *testing.T) {
		r := tc.mustOK(map[string]any{"action": "call", "tool": "add", "argumentsFile": "add.json"})
		var meta struct {
			Dispatch struct{ Arguments json.RawMessage }
		}
		if err := json.Unmarshal(r.Meta, &meta); err != nil || string(meta.Dispatch.Arguments) != mustJSON(map[string]string{"_fromFile": "add.json"}) {
			t.Errorf("_meta = %s (%v), want dispatch.arguments {\"_fromFile\": \"add.json\"}", r.Meta, err)
		}
	})
	t.Run("file in the working directory", func(t *testing.T) {
		if got := sum(t, map[string]any{"argumentsFile": "add.json"}); got != 3 {
			t.Errorf("relative path: sum %v", got)
		}
		if got := sum(t, map[string]any{"argumentsFile": filepath.Join(work, "add.json")}); got != 3 {
			t.Errorf("absolute path: sum %v", got)
		}
	})
	t.Run("arguments override the file", func(t *testing.T) {
		if got := sum(t, map[string]any{"argumentsFile": "add.json", "arguments": map[string]any{"b": 40}}); got != 41 {
			t.Errorf("sum %v, want 41", got)
		}
	})
	t.Run("text file under argumentsKey", func(t *testing.T) {
		r := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": "notes.txt", "argumentsKey": "message"})
		if r.text() != "line one <b>\nline two & \"three\"\n" {
			t.Errorf("echo fed notes.txt = %q", r.text())
		}
		// A text result saved to a file feeds the next call the same way.
		a := spilled(t, tc.mustOK(callLarge(300, "text", map[string]any{"resultToFile": true})))
		if filepath.Ext(a.Spill.ResultFile) != ".txt" || !strings.Contains(a.Spill.Hint, "argumentsKey") {
			t.Errorf("text spill %s, hint %q", a.Spill.ResultFile, a.Spill.Hint)
		}
		want, err := os.ReadFile(a.Spill.ResultFile)
		if err != nil {
			t.Fatal(err)
		}
		r = tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": a.Spill.ResultFile, "argumentsKey": "message"})
		if r.text() != string(want) {
			t.Errorf("echo fed the text spill = %.80q, want %.80q", r.text(), want)
		}
	})
	t.Run("argumentsPath selects from a file over the limit", func(t *testing.T) {
		if got := sum(t, map[string]any{"argumentsFile": "big.json", "argumentsPath": "a", "argumentsKey": "a", "arguments": map[string]any{"b": 5}}); got != 6 {
			t.Errorf("sum %v, want 6", got)
		}
	})
	t.Run("TOON file", func(t *testing.T) {
		if got := sum(t, map[string]any{"argumentsFile": "add.toon"}); got != 3 {
			t.Errorf("sum %v, want 3", got)
		}
	})
	t.Run("refused", func(t *testing.T) {
		theirs := spilled(t, other.mustOK(map[string]any{"action": "call", "tool": "echo",
			"arguments": map[string]any{"message": "theirs"}, "resultToFile": true})).Spill.ResultFile
		tests := []struct {
			name string
			req  map[string]any
			want []string
		}{
			{"outside the roots", map[string]any{"argumentsFile": filepath.Join(elsewhere, "add.json")}, []string{"outside the directories", "--args-dir"}},
			{"symlink out of the roots", map[string]any{"argumentsFile": "passwd.json"}, []string{"outside the directories"}},
			{"dot-dot out of the roots", map[string]any{"argumentsFile": "../" + filepath.Base(elsewhere) + "/add.json"}, []string{"outside the directories"}},
			{"another process's spill file", map[string]any{"argumentsFile": theirs, "argumentsPath": "@this", "argumentsKey": "message"}, []string{"outside the directories"}},
			{"missing", map[string]any{"argumentsFile": "missing.json"}, []string{"missing.json does not exist"}},
			{"missing outside the roots", map[string]any{"argumentsFile": filepath.Join(elsewhere, "missing.json")}, []string{"outside the directories"}},
			{"not an object", map[string]any{"argumentsFile": "list.json"}, []string{"holds a JSON array", "argumentsKey"}},
			{"invalid JSON", map[string]any{"argumentsFile": "bad.json"}, []string{"not valid JSON"}},
			{"too large", map[string]any{"argumentsFile": "big.json"}, []string{"larger than 8.0 KiB", "--max-args-file"}},
			{"path is malformed", map[string]any{"argumentsFile": "add.json", "argumentsPath": "#(a>", "argumentsKey": "a"}, []string{`invalid gjson path "#(a>"`, "never closed", `"op":"stat"`, `"op":"query"`}},
			{"path selects nothing", map[string]any{"argumentsFile": "add.json", "argumentsPath": "nope", "argumentsKey": "a"}, []string{`argumentsPath "nope" selects nothing`, `"op":"stat"`, `"op":"query"`}},
			{"path too long", map[string]any{"argumentsFile": "add.json", "argumentsPath": strings.Repeat("a.", 3000) + "a", "argumentsKey": "a"}, []string{"MaxPathBytes"}},
			{"selected part too large", map[string]any{"argumentsFile": "big.json", "argumentsPath": "pad", "argumentsKey": "a"}, []string{"more than the limit of 8.0 KiB", "--max-args-file"}},
			{"multipath builds too much", map[string]any{"argumentsFile": "big.json", "argumentsPath": "[pad,pad]", "argumentsKey": "a"}, []string{"builds more than 8.0 KiB", "--max-args-file"}},
			{"TOON too large", map[string]any{"argumentsFile": "big.toon"}, []string{"larger than 8.0 KiB", "TOON files are decoded whole", "--max-args-file", `"op":"query"`, "without --toon"}},
			{"TOON too large with argumentsPath", map[string]any{"argumentsFile": "big.toon", "argumentsPath": "a", "argumentsKey": "a"},
				[]string{"larger than 8.0 KiB", "TOON files are decoded whole, with or without argumentsPath", `"op":"query"`, "without --toon"}},
			{"text without argumentsKey", map[string]any{"argumentsFile": "notes.txt"}, []string{"holds text", `"argumentsKey":"NAME"`}},
			{"argumentsPath in text", map[string]any{"argumentsFile": "notes.txt", "argumentsPath": "a", "argumentsKey": "a"}, []string{"holds text, not JSON"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.req["action"], tt.req["tool"] = "call", "add"
				text := tc.mustError(tt.req, tt.want...)
				// Only a part too large is helped by a larger limit.
				tooLarge := strings.Contains(tt.name, "too large") || strings.Contains(tt.name, "too much")
				if strings.Contains(tt.name, "TOON") && strings.Contains(text, "the limit is then on that part") {
					t.Errorf("refusal of a TOON file recommends argumentsPath, which decodes it whole too: %s", text)
				}
				if mentions := strings.Contains(text, "--max-args-file"); mentions != tooLarge {
					t.Errorf("refusal mentions --max-args-file: %v, want %v: %s", mentions, tooLarge, text)
				}
				// The paths named are not content: a temp directory's name
				// may hold "100" by chance.
				shown := text
				for _, dir := range []string{theirs, work, elsewhere, parent} {
					shown = strings.ReplaceAll(shown, dir, "")
				}
				for _, leak := range []string{"root:", "theirs", "100"} {
					if strings.Contains(shown, leak) {
						t.Errorf("refusal shows %q: %s", leak, text)
					}
				}
			})
		}
	})
	t.Run("--args-dir replaces the working directory", func(t *testing.T) {
		tc2, _ := startDispatchProc(t, work, nil, "--no-cache", "--args-dir", argsDir, "--mcp", fixture())
		r := tc2.mustOK(map[string]any{"action": "call", "tool": "add", "argumentsFile": filepath.Join(argsDir, "add.json")})
		if string(r.StructuredContent) != `{"sum":30}` {
			t.Errorf("add from --args-dir = %s", r.StructuredContent)
		}
		tc2.mustError(map[string]any{"action": "call", "tool": "add", "argumentsFile": "add.json"}, "outside the directories")
	})
}

// stepLine is one line of dispatch run's output.
type stepLine struct {
	Step     int
	ID       string
	Action   string
	Response json.RawMessage
	Error    string
	// FailedDependency names the failed step this one used.
	FailedDependency string
}

func parseSteps(t *testing.T, out string) []stepLine {
	t.Helper()
	var steps []stepLine
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s stepLine
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("output line %q is not JSON: %v", sc.Text(), err)
		}
		steps = append(steps, s)
	}
	return steps
}

// noSpillDirs fails if dir holds a dispatch spill directory.
func noSpillDirs(t *testing.T, dir string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, "dispatch-spill-*"))
	if err != nil || len(left) > 0 {
		t.Errorf("spill directories left after exit: %v (%v)", left, err)
	}
}

// A step's "$id.value" is its data alone: the JSON a query selected, the
// text grep matched, never the notes that "text" adds for display; for a
// call saved to a file, what the file holds at the path.
func TestCLI_RunPipelineValues(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	steps := []map[string]any{
		{"id": "fetch", "action": "call", "tool": "large", "arguments": map[string]any{"bytes": 3000, "shape": "object"}, "resultToFile": true},
		{"id": "n", "action": "readresult", "resultFile": "$fetch.resultFile", "op": "query", "path": "items.#"},
		{"action": "call", "tool": "add", "arguments": map[string]any{"a": "$n.value", "b": 1000}},
		{"id": "g", "action": "readresult", "resultFile": "$fetch.resultFile", "op": "grep", "pattern": `"item-2"`},
		{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$g.value"}},
		{"action": "call", "tool": "add", "arguments": map[string]any{"a": "$fetch.value.items.#", "b": 0}},
	}
	out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture(), "run", writeSteps(t, steps))
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	got := parseSteps(t, out)
	if len(got) != len(steps) {
		t.Fatalf("%d output lines, want %d:\n%s", len(got), len(steps), out)
	}
	var count struct{ Value int }
	if err := json.Unmarshal(got[1].Response, &count); err != nil || count.Value == 0 {
		t.Fatalf("query step = %s (%v)", got[1].Response, err)
	}
	var sum struct{ StructuredContent struct{ Sum float64 } }
	if err := json.Unmarshal(got[2].Response, &sum); err != nil || sum.StructuredContent.Sum != float64(count.Value+1000) {
		t.Errorf("add($n.value, 1000) = %s, want %d", got[2].Response, count.Value+1000)
	}
	var echo struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(got[4].Response, &echo); err != nil || len(echo.Content) != 1 || echo.Content[0].Text != "      \"name\": \"item-2\",\n" {
		t.Errorf("echo($g.value) = %s, want the matching line alone", got[4].Response)
	}
	if err := json.Unmarshal(got[5].Response, &sum); err != nil || sum.StructuredContent.Sum != float64(count.Value) {
		t.Errorf("add($fetch.value.items.#, 0) = %s, want %d", got[5].Response, count.Value)
	}
}

// writeSteps writes a pipeline to a file and returns its path.
func writeSteps(t *testing.T, steps []map[string]any) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "steps.json")
	writeFile(t, path, mustJSON(steps))
	return path
}

func TestCLI_RunPipeline(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the private spill directory goes here
	steps := []map[string]any{
		{"id": "fetch", "action": "call", "tool": "large", "arguments": map[string]any{"bytes": 3000, "shape": "object"}, "resultToFile": true},
		{"action": "readresult", "resultFile": "$step1.resultFile", "op": "query", "path": "items.#(id==2).name"},
		{"action": "call", "tool": "echo", "argumentsFile": "$fetch.resultFile", "argumentsPath": "items.2.name", "argumentsKey": "message"},
	}
	check := func(t *testing.T, out, stderr string, code int) {
		t.Helper()
		if code != 0 {
			t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
		}
		got := parseSteps(t, out)
		if len(got) != 3 {
			t.Fatalf("%d output lines, want 3:\n%s", len(got), out)
		}
		var call spillAnswer
		if err := json.Unmarshal(got[0].Response, &call); err != nil || call.Spill == nil || got[0].ID != "fetch" || got[0].Step != 1 {
			t.Fatalf("step 1 = %+v", got[0])
		}
		var read struct{ Text string }
		if err := json.Unmarshal(got[1].Response, &read); err != nil || !strings.HasPrefix(read.Text, `"item-2"`) || got[1].Action != "readresult" {
			t.Errorf("step 2 = %s", got[1].Response)
		}
		var echo struct{ Content []struct{ Text string } }
		if err := json.Unmarshal(got[2].Response, &echo); err != nil || len(echo.Content) != 1 || echo.Content[0].Text != "item-3" {
			t.Errorf("step 3 = %s", got[2].Response)
		}
		if exists(call.Spill.ResultFile) || exists(filepath.Dir(call.Spill.ResultFile)) {
			t.Errorf("%s still exists after run exited", call.Spill.ResultFile)
		}
		if filepath.Dir(filepath.Dir(call.Spill.ResultFile)) != tmp {
			t.Errorf("result file %s not under TMPDIR", call.Spill.ResultFile)
		}
		noSpillDirs(t, tmp)
	}

	t.Run("array file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "steps.json")
		writeFile(t, file, mustJSON(steps))
		out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture(), "run", file)
		check(t, out, stderr, code)
	})
	t.Run("JSON lines on stdin", func(t *testing.T) {
		var lines strings.Builder
		for _, s := range steps {
			lines.WriteString(mustJSON(s) + "\n")
		}
		out, stderr, code := runCLI(t, lines.String(), "--no-cache", "--mcp", fixture(), "run")
		check(t, out, stderr, code)
	})
	t.Run("a failed step fails only the steps that use it", func(t *testing.T) {
		bad := []map[string]any{steps[0], {"action": "readresult", "resultFile": "$step1.resultFile", "op": "grep", "pattern": "("}, steps[2],
			{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$step2.value"}}}
		var lines strings.Builder
		for _, s := range bad {
			lines.WriteString(mustJSON(s) + "\n")
		}
		out, stderr, code := runCLI(t, lines.String(), "--no-cache", "--mcp", fixture(), "run", "-")
		got := parseSteps(t, out)
		if code != exitUsage || len(got) != 4 || got[1].Step != 2 || !strings.Contains(got[1].Error, "invalid regular expression") || len(got[1].Response) > 0 {
			t.Fatalf("run with a bad step 2: exit %d, lines %+v\nstderr: %s", code, got, stderr)
		}
		if !strings.Contains(string(got[2].Response), `"text":"item-3"`) || got[2].Error != "" {
			t.Errorf("step 3, which does not use step 2: %+v", got[2])
		}
		if got[3].FailedDependency != "step2" || !strings.Contains(got[3].Error, "not run") {
			t.Errorf("step 4, which uses step 2: %+v", got[3])
		}
		if !strings.Contains(stderr, "step 2") {
			t.Errorf("stderr %q does not name step 2", stderr)
		}
		noSpillDirs(t, tmp)
	})
	t.Run("a step whose tool answers isError exits 1", func(t *testing.T) {
		out, stderr, code := runCLI(t, `{"action":"call","tool":"fail","arguments":{"message":"nope"}}`, "--no-cache", "--mcp", fixture(), "run")
		if got := parseSteps(t, out); code != exitToolError || len(got) != 1 || !strings.Contains(stderr, "step 1: tool fail returned an error") {
			t.Errorf("isError step: exit %d, %s\nstderr: %s", code, out, stderr)
		}
	})
	t.Run("without --spill-dir the last result is printed whole", func(t *testing.T) {
		big := map[string]any{"action": "call", "tool": "large", "arguments": map[string]any{"bytes": 200_000}}
		out, stderr, code := runCLI(t, mustJSON(big)+"\n"+mustJSON(big)+"\n", "--no-cache", "--threshold", "50KiB", "--mcp", fixture(), "run")
		got := parseSteps(t, out)
		if code != 0 || len(got) != 2 {
			t.Fatalf("exit %d, %d steps\n%s", code, len(got), stderr)
		}
		// Step 1 was saved to a file that is gone now, and its answer said so.
		var first spillAnswer
		if err := json.Unmarshal(got[0].Response, &first); err != nil || first.Spill == nil || !strings.Contains(first.Spill.Hint, "deleted when dispatch run ends") {
			t.Errorf("step 1 = %.400s", got[0].Response)
		}
		var last struct {
			Content []struct{ Text string }
			Spill   json.RawMessage
		}
		if err := json.Unmarshal(got[1].Response, &last); err != nil || last.Spill != nil || len(last.Content) != 1 || len(last.Content[0].Text) < 200_000 {
			t.Errorf("step 2 was not printed whole: %.300s", got[1].Response)
		}
		noSpillDirs(t, tmp)
	})
	t.Run("a last step asking for a file it would lose is refused", func(t *testing.T) {
		out, stderr, code := runCLI(t, `{"action":"call","tool":"echo","arguments":{"message":"x"},"resultToFile":true}`, "--no-cache", "--mcp", fixture(), "run")
		if code != exitUsage || out != "" || !strings.Contains(stderr, "--spill-dir") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
		}
		dir := t.TempDir()
		out, stderr, code = runCLI(t, `{"action":"call","tool":"echo","arguments":{"message":"x"},"resultToFile":true}`, "--no-cache", "--spill-dir", dir, "--mcp", fixture(), "run")
		var a spillAnswer
		if got := parseSteps(t, out); code != 0 || len(got) != 1 || json.Unmarshal(got[0].Response, &a) != nil || a.Spill == nil || !exists(a.Spill.ResultFile) {
			t.Errorf("with --spill-dir: exit %d, %s\n%s", code, out, stderr)
		}
	})
	t.Run("the user's own files and a literal dollar", func(t *testing.T) {
		mine := t.TempDir() // not under the working directory
		writeFile(t, filepath.Join(mine, "add.json"), `{"a": 2, "b": 3}`)
		writeFile(t, filepath.Join(mine, "notes.txt"), "a\nb\n")
		in := mustJSON(map[string]any{"action": "call", "tool": "add", "argumentsFile": filepath.Join(mine, "add.json")}) + "\n" +
			mustJSON(map[string]any{"action": "readresult", "resultFile": filepath.Join(mine, "notes.txt"), "op": "head"}) + "\n" +
			mustJSON(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$$HOME.dir costs $5"}})
		out, stderr, code := runCLI(t, in, "--no-cache", "--mcp", fixture(), "run")
		got := parseSteps(t, out)
		if code != 0 || len(got) != 3 {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
		}
		if !strings.Contains(string(got[0].Response), `"sum":5`) || !strings.Contains(string(got[1].Response), `1:a\n2:b`) ||
			!strings.Contains(string(got[2].Response), `"text":"$HOME.dir costs $5"`) {
			t.Errorf("steps = %s", out)
		}
	})
	t.Run("unknown reference", func(t *testing.T) {
		out, stderr, code := runCLI(t, `{"action":"readresult","resultFile":"$step3.resultFile"}`, "--no-cache", "--mcp", fixture(), "run")
		if code != exitUsage || out != "" || !strings.Contains(stderr, `step 1: "$step3.resultFile" refers to "step3", which is no step of this run`) {
			t.Errorf("unknown reference: exit %d, stdout %q, stderr %q", code, out, stderr)
		}
	})
}

func TestCLI_SpillFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	fx := fixture()

	t.Run("--spill-dir keeps the file", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "results")
		out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "--threshold", "50KiB", "--spill-dir", dir, "--json", "call", "large", `{"bytes":200000}`)
		var a spillAnswer
		if err := json.Unmarshal([]byte(out), &a); code != 0 || err != nil || a.Spill == nil {
			t.Fatalf("exit %d (%v): %.300s\n%s", code, err, out, stderr)
		}
		if filepath.Dir(a.Spill.ResultFile) != dir || !a.Spill.AutoSpilled {
			t.Errorf("result file %s, want it directly in %s", a.Spill.ResultFile, dir)
		}
		data, err := os.ReadFile(a.Spill.ResultFile)
		if err != nil || int64(len(data)) != a.Spill.Bytes {
			t.Fatalf("kept file: %v (%d bytes, spill says %d)", err, len(data), a.Spill.Bytes)
		}
		if m := fileMode(t, a.Spill.ResultFile); m != 0o600 {
			t.Errorf("file mode %o", m)
		}
		// The text form says where it went and how to read it.
		out, _, code = runCLI(t, "", "--no-cache", "--mcp", fx, "--threshold", "50KiB", "--spill-dir", dir, "call", "large", `{"bytes":200000}`)
		if code != 0 || !strings.HasPrefix(out, "result saved to "+dir+"/") || !strings.Contains(out, "dispatch readresult") {
			t.Errorf("text output = %.300s", out)
		}
	})
	t.Run("no --spill-dir prints everything", func(t *testing.T) {
		// Over the default threshold; an explicit --threshold is refused
		// here (TestCLI_CallHabits).
		out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "call", "large", `{"bytes":200000}`)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		items, ok := parseJSON(t, out).([]any)
		if !ok || len(out) < 200_000 || len(items) < 1000 {
			t.Errorf("stdout has %d bytes, want the whole result", len(out))
		}
		noSpillDirs(t, tmp)
	})
	t.Run("--result-to-file and readresult", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "out.json")
		out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "--json", "call", "large", `{"bytes":5000,"shape":"object"}`, "--result-to-file", path)
		var saved struct {
			Path         string
			Bytes, Lines int64
			TopLevelKeys []string
			Preview      string
		}
		if err := json.Unmarshal([]byte(out), &saved); code != 0 || err != nil {
			t.Fatalf("exit %d (%v): %s\n%s", code, err, out, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if saved.Path != path || saved.Bytes != int64(len(data)) || saved.Lines != int64(bytes.Count(data, []byte{'\n'})) ||
			!reflect.DeepEqual(saved.TopLevelKeys, []string{"items", "total", "next"}) {
			t.Errorf("summary %+v; file has %d bytes", saved, len(data))
		}
		checkPreview(t, saved.Preview, data) // its mode: TestCLI_ResultToFileFollowsUmask
		want := readJSONFile(t, path).(map[string]any)
		if len(want["items"].([]any)) < 20 {
			t.Errorf("file holds %v", want)
		}

		out, stderr, code = runCLI(t, "", "readresult", path, "--op", "grep", "--pattern", `ITEM-7"`, "-C", "1")
		if code != 0 || !regexp.MustCompile(`(?m)^\d+:\s+"name": "item-7",$`).MatchString(out) || !strings.Contains(stderr, "1 matching lines in all") || strings.Contains(out, "matching lines") {
			t.Errorf("readresult grep: exit %d\n%s%s", code, out, stderr)
		}
		out, _, code = runCLI(t, "", "readresult", path, "--op", "query", "--path", "total")
		if code != 0 || out != fmt.Sprint(want["total"])+"\n" {
			t.Errorf("readresult query total: exit %d, %q", code, out)
		}
		_, stderr, code = runCLI(t, "", "readresult", path, "--op", "grep", "--pattern", "(")
		if code != exitUsage || !strings.Contains(stderr, "invalid regular expression") {
			t.Errorf("bad pattern: exit %d, %s", code, stderr)
		}
	})
	t.Run("--result-to-file writes what the file name says", func(t *testing.T) {
		dir := t.TempDir()
		asJSON, asTOON, text := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.toon"), filepath.Join(dir, "t.json")
		for _, c := range [][]string{
			{"--toon", "call", "large", `{"bytes":2000,"shape":"object"}`, "-o", asJSON},
			{"call", "large", `{"bytes":2000,"shape":"object"}`, "-o", asTOON},
			{"call", "large", `{"bytes":300,"shape":"text"}`, "-o", text},
		} {
			if out, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--mcp", fx}, c...)...); code != 0 {
				t.Fatalf("%v: exit %d\n%s%s", c, code, out, stderr)
			}
		}
		if data, err := os.ReadFile(asJSON); err != nil || !json.Valid(data) {
			t.Errorf("r.json written with --toon is not JSON: %.100s", data)
		}
		if data, err := os.ReadFile(asTOON); err != nil || !bytes.HasPrefix(data, []byte("items[")) {
			t.Errorf("r.toon is not TOON: %.100s", data)
		}
		for _, f := range []string{asJSON, asTOON} {
			if out, stderr, code := runCLI(t, "", "readresult", f, "--op", "query", "--path", "items.0.id"); code != 0 || out != "1\n" {
				t.Errorf("query %s: exit %d, %q %s", f, code, out, stderr)
			}
		}
		if out, _, code := runCLI(t, "", "--json", "readresult", text); code != 0 || !strings.Contains(out, `format: text`) {
			t.Errorf("stat of a text result named .json: exit %d, %s", code, out)
		}
	})
	t.Run("call -f reads the user's file wherever it is", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "add.json")
		writeFile(t, file, `{"a": 20, "b": 22}`)
		if out, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fx, "--json", "call", "add", "-f", file); code != 0 || !strings.Contains(out, `"sum": 42`) {
			t.Errorf("exit %d: %s %s", code, out, stderr)
		}
	})
}
