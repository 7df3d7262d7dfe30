//go:build unix

package main

// End-to-end tests of deeply nested results: a hostile server answering
// with thousands of nested arrays must cost a file about the size of its
// answer, not a GiB of disk and minutes of CPU. They use the serial
// fixture's deep tool, which writes nesting encoding/json would refuse.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dispatch/dispatch"
)

func callDeep(depth int, extra map[string]any) map[string]any {
	req := map[string]any{"action": "call", "tool": "deep", "arguments": map[string]any{"depth": depth}}
	for k, v := range extra {
		req[k] = v
	}
	return req
}

// Before: 60,000 levels (120 KB) filled the 1 GiB store and the call never
// answered; 20,000 levels made a 763 MiB file; 5,000 levels 48 MiB.
func TestServe_DeepResultFiles(t *testing.T) {
	// A store of 64 MiB makes the old behaviour fail fast rather than
	// write a GiB.
	tc := startDispatch(t, nil, "--no-cache", "--timeout", "30s", "--spill-max", "64MiB", "--mcp", fixture("--serial"))
	tests := []struct {
		name   string
		depth  int
		extra  map[string]any
		auto   bool
		indent bool
	}{
		{"past the nesting limit, over the threshold", 60000, nil, true, false},
		{"past the nesting limit, resultToFile", 20000, map[string]any{"resultToFile": true}, false, false},
		{"within the nesting limit", 5000, map[string]any{"resultToFile": true}, false, true},
	}
	// No subtests: tc fails the test that started it.
	for _, tt := range tests {
		func() {
			t.Logf("%s: %d levels", tt.name, tt.depth)
			a := spilled(t, tc.mustOK(callDeep(tt.depth, tt.extra)))
			if a.Spill.AutoSpilled != tt.auto {
				t.Errorf("%s: autoSpilled = %v, want %v", tt.name, a.Spill.AutoSpilled, tt.auto)
			}
			data, err := os.ReadFile(a.Spill.ResultFile)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(data)) != a.Spill.Bytes {
				t.Errorf("%s: the answer says %d bytes, the file has %d", tt.name, a.Spill.Bytes, len(data))
			}
			if !tt.indent {
				// Saved whole, as the server sent it.
				if want := brackets(tt.depth) + "\n"; string(data) != want || a.Spill.Lines != 1 {
					t.Errorf("%s: file of %d bytes, %d lines; want the %d-byte answer on one line", tt.name, len(data), a.Spill.Lines, len(want))
				}
				return
			}
			// Indented, at a cost linear in the depth: each of the 2*depth
			// brackets on a line of at most 2*MaxIndentDepth+1 bytes.
			if limit := 2 * tt.depth * (2*dispatch.MaxIndentDepth + 2); len(data) > limit {
				t.Errorf("file of %d bytes for %d levels, more than %d", len(data), tt.depth, limit)
			}
			if a.Spill.Lines < int64(tt.depth) {
				t.Errorf("%d lines for %d levels: not indented one value per line", a.Spill.Lines, tt.depth)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, data); err != nil || compact.String() != brackets(tt.depth) {
				t.Errorf("the file does not hold the answer (%v)", err)
			}
		}()
	}
}

// A server message nested past MaxAnswerNesting fails its call, unparsed,
// and dispatch goes on serving. Before, gjson's validator recursed once
// per level on the server's reading goroutine: 6,000,000 levels (12 MB,
// far under --max-message) grew its stack past Go's 1 GB limit, a fatal
// error that ended dispatch and every connection.
func TestServe_ServerMessageNestedPastTheLimit(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	tc := startDispatch(t, nil, "--no-cache", "--timeout", "30s", "--mcp", fixture("--serial", "--serial-log", log))
	// The second time the id comes after the result: before, such a
	// message was matched to no call, which waited out --timeout.
	for _, idLast := range []bool{false, true} {
		req := callDeep(6_000_000, nil)
		req["arguments"] = map[string]any{"depth": 6_000_000, "idLast": idLast}
		r := tc.mustCall(req)
		if !r.IsError || !strings.Contains(r.text(), "MaxAnswerNesting") || !strings.Contains(r.text(), "100000 levels") {
			t.Fatalf("answer %q (isError %v), want the call failed naming MaxAnswerNesting", r.text(), r.IsError)
		}
		if strings.Contains(r.text(), "connection lost") {
			t.Errorf("dispatch's refusal reads as a lost server: %.300s", r.text())
		}
		if got := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "still here"}}).text(); got != "still here" {
			t.Fatalf("the next call answered %q", got)
		}
	}
	// The server did nothing wrong that a restart would mend: it stays.
	seen, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if starts := strings.Count(string(seen), "start "); starts != 1 {
		t.Errorf("the server started %d times; want once:\n%s", starts, seen)
	}
}

// A file that cannot fit fails before anything is written, with its exact
// size, and the store stays empty.
func TestServe_DeepResultOverSpillMax(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--spill-max", "100KiB", "--mcp", fixture("--serial"))
	tc.mustError(callDeep(9000, map[string]any{"resultToFile": true}),
		"would be 1.1 MiB,", "limit is 100 KiB", "holds 0 B in 0 file(s)", "--spill-max")
	a := spilled(t, tc.mustOK(callDeep(100, map[string]any{"resultToFile": true})))
	if a.Spill.Bytes > 100<<10 {
		t.Errorf("a small file after the refused one: %d bytes", a.Spill.Bytes)
	}
}

// The command line prints a deep but valid answer, and --json, which cannot
// hold nesting past 10,000 levels, says so and what to do instead of an
// error about json.RawMessage (exit 4).
func TestCLI_DeepAnswer(t *testing.T) {
	server := fixture("--serial")
	stdout, stderr, code := runCLI(t, "", "--mcp", server, "call", "deep", "depth=20000")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if want := "deep\n" + brackets(20000) + "\n"; stdout != want {
		t.Errorf("printed %d bytes (%.80q), want the text and the %d-level answer on one line", len(stdout), stdout, 20000)
	}
	for _, flags := range [][]string{{"--json"}, {"--toon", "--json"}} {
		args := append(append([]string{"--mcp", server}, flags...), "call", "deep", "depth=20000")
		stdout, stderr, code := runCLI(t, "", args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%v: exit %d, stdout %.80q; want exit %d and nothing printed", flags, code, stdout, exitUsage)
		}
		checkText(t, strings.Join(flags, " "), stderr, []string{"nested 20000 levels", "MaxIndentedNesting", "leave out --json", "-o FILE"}, []string{"RawMessage", "MarshalJSON"})
	}
	// A _meta past the limit too (before: exit 4, "json: error calling
	// MarshalJSON for type json.RawMessage").
	stdout, stderr, code = runCLI(t, "", "--mcp", server, "--json", "call", "deep", "metaDepth=20000")
	if code != exitUsage || stdout != "" {
		t.Errorf("--json, _meta of 20000 levels: exit %d, stdout %.80q; want exit %d and nothing printed", code, stdout, exitUsage)
	}
	checkText(t, "--json, deep _meta", stderr, []string{"nested 20001 levels", "MaxIndentedNesting", "leave out --json"}, []string{"RawMessage", "MarshalJSON"})
	// Below the limit --json prints it, without indentation growing with
	// the square of the depth (8 MB for 2,000 levels before).
	stdout, stderr, code = runCLI(t, "", "--mcp", server, "--json", "call", "deep", "depth=2000")
	if code != 0 {
		t.Fatalf("--json depth 2000: exit %d, stderr %s", code, stderr)
	}
	var answer struct{ StructuredContent json.RawMessage }
	if err := json.Unmarshal([]byte(stdout), &answer); err != nil || string(answer.StructuredContent) != brackets(2000) {
		t.Errorf("--json depth 2000: %v, %.80q", err, stdout)
	}
	if len(stdout) > 10*2*2000 {
		t.Errorf("--json printed %d bytes for a %d-byte answer", len(stdout), 2*2000)
	}
}

// With --toon, JSON too deep for TOON is saved as JSON: TOON's indentation
// is its syntax and grows with the square of the depth (before: 5,000
// levels made a 24 MiB .toon file from 10 KB). A .toon file asked for by
// name is refused with what to do.
func TestDeepResult_TOON(t *testing.T) {
	server := fixture("--serial")
	tc := startDispatch(t, nil, "--no-cache", "--toon", "--mcp", server)
	a := spilled(t, tc.mustOK(callDeep(5000, map[string]any{"resultToFile": true})))
	if a.Spill.Format != "json" || a.Spill.Bytes > 1<<20 {
		t.Errorf("--toon, 5000 levels: a %s file of %d bytes, want JSON under 1 MiB", a.Spill.Format, a.Spill.Bytes)
	}
	out := t.TempDir() + "/deep.toon"
	_, stderr, code := runCLI(t, "", "--mcp", server, "call", "deep", "depth=5000", "-o", out)
	if code != exitUsage {
		t.Errorf("-o deep.toon: exit %d, want %d; stderr %s", code, exitUsage, stderr)
	}
	checkText(t, "-o deep.toon", stderr, []string{"nested 5000 levels", "MaxIndentDepth", ".json"}, nil)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o deep.toon left a file: %v", err)
	}
}
