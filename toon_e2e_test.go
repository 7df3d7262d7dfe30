package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServe_ToonInlineWhenSmaller(t *testing.T) {
	tc := startDispatch(t, nil, "--toon", "--mcp", fixture("--demo"), "--mcp", fixture())

	// A uniform array of objects: TOON's table form beats compact JSON.
	r := tc.mustOK(map[string]any{"action": "call", "tool": "list_files", "arguments": map[string]any{"count": 20}})
	if !strings.HasPrefix(r.text(), "[20]{path,type,size,modified,mode}:") {
		t.Fatalf("list_files with --toon = %.200s", r.text())
	}
	var meta struct{ Dispatch struct{ Format string } }
	if err := json.Unmarshal(r.Meta, &meta); err != nil || meta.Dispatch.Format != "toon" {
		t.Errorf("_meta = %s, want dispatch.format toon", r.Meta)
	}
	// The TOON text decodes back to exactly what the server returned.
	plain := startDispatch(t, nil, "--mcp", fixture("--demo"))
	want := plain.mustOK(map[string]any{"action": "call", "tool": "list_files", "arguments": map[string]any{"count": 20}}).text()
	decoded, stderr, code := runCLIWithStdin(t, r.text(), "toon", "--decode", "--indent", "0")
	if code != 0 {
		t.Fatalf("toon --decode: %s", stderr)
	}
	if !jsonEqual(t, decoded, want) {
		t.Errorf("TOON round trip differs:\n%s\nvs\n%s", decoded, want)
	}

	// A content list (five items, an image among them) is never turned
	// into TOON text: the items reach the agent as what they are.
	r = tc.mustOK(map[string]any{"action": "call", "tool": "mixed", "connection": "c2"})
	if len(r.Content) != 5 {
		t.Errorf("mixed with --toon has %d items, want the 5 originals", len(r.Content))
	}
	var mixedMeta struct{ Dispatch struct{ Format string } }
	if err := json.Unmarshal(r.Meta, &mixedMeta); err != nil || mixedMeta.Dispatch.Format != "" {
		t.Errorf("mixed _meta = %s, want no dispatch.format", r.Meta)
	}

	// A JSON object that TOON does not shrink stays JSON, and says so.
	r = tc.mustOK(map[string]any{"action": "call", "tool": "large", "connection": "c2", "arguments": map[string]any{"bytes": 1500, "shape": "object"}})
	var largeMeta struct{ Dispatch struct{ Format string } }
	if err := json.Unmarshal(r.Meta, &largeMeta); err != nil || largeMeta.Dispatch.Format != "json" || !json.Valid([]byte(r.text())) {
		t.Errorf("large object with --toon: _meta = %s, text %.100s; want JSON and dispatch.format json", r.Meta, r.text())
	}
}

func TestServe_ToonSpillFeedsNextCall(t *testing.T) {
	tc := startDispatch(t, nil, "--toon", "--mcp", fixture("--demo"))
	r := tc.mustOK(map[string]any{"action": "call", "tool": "list_files", "arguments": map[string]any{"count": 300}, "resultToFile": true})
	var resp struct {
		Spill struct {
			ResultFile, Format string
			Lines              int64
		}
	}
	decodeText(t, r, &resp)
	if resp.Spill.Format != "toon" || filepath.Ext(resp.Spill.ResultFile) != ".toon" || resp.Spill.Lines != 301 {
		t.Fatalf("spill = %+v", resp.Spill)
	}
	data, err := os.ReadFile(resp.Spill.ResultFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "[300]{path,type,size,modified,mode}:\n") {
		t.Errorf("spill file starts %.80q", data)
	}
	// query decodes the TOON file.
	q := tc.mustOK(map[string]any{"action": "readresult", "resultFile": resp.Spill.ResultFile, "op": "query", "path": "1.path"})
	if !strings.Contains(q.text(), "file_0002") {
		t.Errorf("query on TOON spill = %s", q.text())
	}
	// A TOON spill feeds the next call as argumentsFile.
	e := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "argumentsFile": resp.Spill.ResultFile, "argumentsPath": "0.path", "argumentsKey": "message"})
	if !strings.Contains(e.text(), "file_0001") {
		t.Errorf("echo fed from TOON spill = %q", e.text())
	}
}

func TestCLI_Toon(t *testing.T) {
	in := `{"users":[{"id":1,"name":"Ada","admin":true},{"id":2,"name":"Linus","admin":false}],"count":2}`
	out, stderr, code := runCLIWithStdin(t, in, "toon")
	want := "users[2]{id,name,admin}:\n  1,Ada,true\n  2,Linus,false\ncount: 2\n"
	if code != 0 || out != want {
		t.Fatalf("toon = %q (exit %d, %s), want %q", out, code, stderr, want)
	}
	out, _, code = runCLIWithStdin(t, in, "toon", "--delimiter", "pipe")
	if code != 0 || !strings.Contains(out, "users[2|]{id|name|admin}:") {
		t.Errorf("toon --delimiter pipe = %q", out)
	}
	back, stderr, code := runCLIWithStdin(t, want, "toon", "--decode", "--indent", "0")
	if code != 0 || !jsonEqual(t, back, in) {
		t.Errorf("toon --decode = %q (exit %d, %s)", back, code, stderr)
	}
	_, stderr, code = runCLIWithStdin(t, "users[3]{id}:\n  1\n  2\n", "toon", "--decode")
	if code != exitUsage || !strings.Contains(stderr, "line") {
		t.Errorf("bad TOON: exit %d, stderr %q; want a usage error naming the line", code, stderr)
	}
	_, stderr, code = runCLIWithStdin(t, "{not json", "toon")
	if code != exitUsage {
		t.Errorf("bad JSON: exit %d, stderr %q", code, stderr)
	}
}

func runCLIWithStdin(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return runCLI(t, stdin, args...)
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Errorf("not JSON: %v: %.200s", err, a)
		return false
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Errorf("not JSON: %v: %.200s", err, b)
		return false
	}
	da, _ := json.Marshal(va)
	db, _ := json.Marshal(vb)
	return string(da) == string(db)
}
