package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// At info, each call logs one line: connection, tool, duration, bytes,
// whether the result went to a file (and which), and the error if any.
func TestCallLog_OneLinePerCall(t *testing.T) {
	spill := t.TempDir()
	base := []string{"--mcp", fixture(), "--log-level", "info", "--spill-dir", spill}

	_, stderr, code := runCLI(t, "", append(base, "--log-format", "json", "--threshold", "100", "call", "large", `{"bytes":2000}`)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var calls []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a --log-format json line is not JSON: %q: %v", line, err)
		}
		if rec["msg"] == "call" {
			calls = append(calls, rec)
		}
	}
	if len(calls) != 1 {
		t.Fatalf("%d call lines, want 1:\n%s", len(calls), stderr)
	}
	rec := calls[0]
	if rec["level"] != "INFO" || rec["connection"] != "c1" || rec["tool"] != "large" || rec["saved"] != true || rec["isError"] != false {
		t.Errorf("call line = %v", rec)
	}
	if b, _ := rec["bytes"].(float64); b < 2000 {
		t.Errorf("bytes = %v, want the result's size", rec["bytes"])
	}
	if file, _ := rec["file"].(string); filepath.Dir(file) != spill {
		t.Errorf("file = %v, want a result file in %s", rec["file"], spill)
	}
	if d, _ := rec["duration"].(string); d == "" {
		t.Errorf("no duration in %v", rec)
	}

	_, stderr, code = runCLI(t, "", append(base, "call", "fail", `{"message":"nope"}`)...)
	if code != exitToolError {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkText(t, "text call line", stderr, []string{"level=INFO msg=call connection=c1 tool=fail duration=", "saved=false isError=true"}, nil)

	_, stderr, _ = runCLI(t, "", append(base, "call", "ecko", `{}`)...)
	checkText(t, "unknown tool's call line", stderr, []string{`msg=call connection="" tool=ecko`, `error="no tool named \"ecko\"`}, nil)

	_, stderr, _ = runCLI(t, "", "--mcp", fixture(), "call", "echo", `{"message":"quiet"}`)
	checkText(t, "default level", stderr, nil, []string{"msg=call"})
}
