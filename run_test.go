package main

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// runAnswer is action run's answer as the agent reads it.
type runAnswer struct {
	Steps []struct {
		Step             int             `json:"step"`
		ID               string          `json:"id"`
		Action           string          `json:"action"`
		Response         json.RawMessage `json:"response"`
		Error            string          `json:"error"`
		FailedDependency string          `json:"failedDependency"`
	} `json:"steps"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
}

func decodeRun(t *testing.T, r toolResult) runAnswer {
	t.Helper()
	var a runAnswer
	decodeText(t, r, &a)
	return a
}

// stepText is the first text item of a step's inline call answer.
func stepText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var call struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &call); err != nil || len(call.Content) == 0 {
		t.Fatalf("step answer %s has no text (%v)", raw, err)
	}
	return call.Content[0].Text
}

func TestRun_DependencyChain(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	r := tc.mustOK(map[string]any{"action": "run", "steps": []any{
		map[string]any{"id": "big", "action": "call", "tool": "large", "arguments": map[string]any{"bytes": 300000, "shape": "object"}},
		map[string]any{"id": "first", "action": "call", "tool": "echo", "arguments": map[string]any{"message": "$big.value.items.0.name"}},
		map[string]any{"id": "sum", "action": "call", "tool": "add", "arguments": map[string]any{"a": "$big.value.total", "b": 1}},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$first.value"}},
		map[string]any{"action": "readresult", "resultFile": "$big.resultFile", "op": "query", "path": "total"},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$$big.value is literal"}},
	}})
	a := decodeRun(t, r)
	if a.Succeeded != 6 || a.Failed != 0 {
		t.Fatalf("run = %s", r.text())
	}
	var big struct {
		Bytes int64 `json:"bytes"`
		Spill struct {
			ResultFile string `json:"resultFile"`
		} `json:"spill"`
	}
	if err := json.Unmarshal(a.Steps[0].Response, &big); err != nil || big.Spill.ResultFile == "" {
		t.Fatalf("step big was not saved to a file: %s (%v)", a.Steps[0].Response, err)
	}
	// What the references took must be what the file holds.
	name := tc.mustOK(map[string]any{"action": "readresult", "resultFile": big.Spill.ResultFile, "op": "query", "path": "items.0.name"})
	total := tc.mustOK(map[string]any{"action": "readresult", "resultFile": big.Spill.ResultFile, "op": "query", "path": "total"})
	var nameValue, totalValue struct{ Value json.RawMessage }
	if err := json.Unmarshal(name.StructuredContent, &nameValue); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(total.StructuredContent, &totalValue); err != nil {
		t.Fatal(err)
	}
	var wantName string
	if err := json.Unmarshal(nameValue.Value, &wantName); err != nil {
		t.Fatalf("query items.0.name = %s: %v", name.StructuredContent, err)
	}
	if got := stepText(t, a.Steps[1].Response); got != wantName {
		t.Errorf("echo of $big.value.items.0.name = %q, want %q", got, wantName)
	}
	var sum struct {
		StructuredContent struct{ Sum json.Number } `json:"structuredContent"`
	}
	if err := json.Unmarshal(a.Steps[2].Response, &sum); err != nil {
		t.Fatal(err)
	}
	var wantTotal json.Number
	if err := json.Unmarshal(totalValue.Value, &wantTotal); err != nil {
		t.Fatal(err)
	}
	if n, _ := wantTotal.Int64(); sum.StructuredContent.Sum.String() != fmt.Sprint(n+1) {
		t.Errorf("add $big.value.total + 1 = %s, want %d + 1", sum.StructuredContent.Sum, n)
	}
	if got := stepText(t, a.Steps[3].Response); got != wantName {
		t.Errorf("echo of $first.value (a text result) = %q, want %q", got, wantName)
	}
	if !strings.Contains(string(a.Steps[4].Response), `"value":`+string(totalValue.Value)) {
		t.Errorf("readresult of $big.resultFile = %s", a.Steps[4].Response)
	}
	if got := stepText(t, a.Steps[5].Response); got != "$big.value is literal" {
		t.Errorf(`"$$" = %q, want a literal "$"`, got)
	}
	// The 300 kB went from the server to the next steps, not to the agent.
	if answer := int64(len(r.text())); answer*10 > big.Bytes {
		t.Errorf("run answer is %d bytes for a %d-byte result: the result reached the agent", answer, big.Bytes)
	}
}

func TestRun_IndependentStepsRunConcurrently(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture("--rendezvous"))
	// Each rendezvous call returns only once all three are in the tool at
	// once: run in turn, the first would wait until the run's limit.
	steps := []any{}
	for i := range 3 {
		steps = append(steps, map[string]any{"action": "call", "tool": "rendezvous", "arguments": map[string]any{"group": "all", "count": 3, "tag": fmt.Sprint(i)}})
	}
	a := decodeRun(t, tc.mustOK(map[string]any{"action": "run", "timeout": 60, "steps": steps}))
	for _, s := range a.Steps {
		if s.Error != "" || !strings.Contains(stepText(t, s.Response), `"peak":3`) {
			t.Errorf("step %d: %s %s", s.Step, s.Error, s.Response)
		}
	}
}

func TestRun_ConcurrencyIsBounded(t *testing.T) {
	tc := startDispatch(t, nil, "--run-concurrency", "2", "--mcp", fixture("--rendezvous"))
	// Cohorts of two: with at most two steps in flight, the four steps
	// meet two by two and the tool never holds more than two.
	steps := []any{}
	for i := range 4 {
		steps = append(steps, map[string]any{"action": "call", "tool": "rendezvous", "arguments": map[string]any{"group": "pairs", "count": 2, "tag": fmt.Sprint(i)}})
	}
	a := decodeRun(t, tc.mustOK(map[string]any{"action": "run", "timeout": 60, "steps": steps}))
	for _, s := range a.Steps {
		if s.Error != "" || !strings.Contains(stepText(t, s.Response), `"peak":2`) {
			t.Errorf("step %d: %s %s", s.Step, s.Error, s.Response)
		}
	}
	// A step that waits for another is not holding a slot meanwhile: the
	// dependant of a pair starts once the pair is done.
	a = decodeRun(t, tc.mustOK(map[string]any{"action": "run", "timeout": 60, "steps": []any{
		map[string]any{"id": "x", "action": "call", "tool": "echo", "arguments": map[string]any{"message": "pairs2"}},
		map[string]any{"action": "call", "tool": "rendezvous", "arguments": map[string]any{"group": "$x.value", "count": 2}},
		map[string]any{"action": "call", "tool": "rendezvous", "arguments": map[string]any{"group": "pairs2", "count": 2}},
	}}))
	if a.Failed != 0 {
		t.Errorf("run = %+v", a)
	}
}

func TestRun_FailureFailsOnlyItsDependants(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	r := tc.mustCall(map[string]any{"action": "run", "steps": []any{
		map[string]any{"id": "bad", "action": "call", "tool": "fail", "arguments": map[string]any{"message": "boom"}},
		map[string]any{"id": "uses", "action": "call", "tool": "echo", "arguments": map[string]any{"message": "$bad.value"}},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "independent"}},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$uses.value"}},
		map[string]any{"id": "small", "action": "call", "tool": "echo", "arguments": map[string]any{"message": "inline"}},
		map[string]any{"action": "readresult", "resultFile": "$small.resultFile"},
		// An action taken from an answer cannot smuggle in a nested run.
		map[string]any{"id": "word", "action": "call", "tool": "echo", "arguments": map[string]any{"message": "run"}},
		map[string]any{"action": "$word.value", "steps": []any{map[string]any{"action": "list"}}},
	}})
	if !r.IsError {
		t.Errorf("a run with failed steps should say isError: %s", r.text())
	}
	a := decodeRun(t, r)
	if a.Succeeded != 3 || a.Failed != 5 {
		t.Fatalf("succeeded %d, failed %d: %s", a.Succeeded, a.Failed, r.text())
	}
	checkText(t, "failed step", a.Steps[0].Error+string(a.Steps[0].Response), []string{"tool fail returned an error", "boom"}, nil)
	if s := a.Steps[1]; s.FailedDependency != "bad" || !strings.Contains(s.Error, "step 1 (bad), which failed") {
		t.Errorf("dependant of the failed step: %+v", s)
	}
	if got := stepText(t, a.Steps[2].Response); got != "independent" {
		t.Errorf("independent step = %q", got)
	}
	if s := a.Steps[3]; s.FailedDependency != "uses" || !strings.Contains(s.Error, "step 2 (uses), which failed") {
		t.Errorf("dependant of a step not run: %+v", s)
	}
	checkText(t, "resultFile of an inline result", a.Steps[5].Error, []string{`"$small.resultFile"`, "inline", "$small.value"}, nil)
	checkText(t, "run as a referenced action", a.Steps[7].Error, []string{"cannot hold another run"}, nil)
}

func TestRun_RefusedBeforeAnythingRuns(t *testing.T) {
	cancelLog := filepath.Join(t.TempDir(), "cancel.log")
	tc := startDispatch(t, nil, "--mcp", fixture("--cancel-log", cancelLog))
	// Every run starts with a step that would hang until the run's limit
	// and log its cancellation: a refused run never starts it.
	hang := map[string]any{"id": "h", "action": "call", "tool": "hang", "arguments": map[string]any{"tag": "ran"}}
	echo := func(msg string) map[string]any {
		return map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": msg}}
	}
	tooMany := []any{hang}
	for range 50 {
		tooMany = append(tooMany, echo("x"))
	}
	for _, c := range []struct {
		name  string
		steps any
		want  []string
	}{
		{"unknown id", []any{hang, echo("$nope.value")}, []string{"step 2", `"$nope.value"`, `"nope"`, "no step"}},
		{"later id", []any{hang, echo("$later.value"), map[string]any{"id": "later", "action": "list"}}, []string{"step 2", "step 3", "does not come before"}},
		{"itself", []any{hang, map[string]any{"id": "me", "action": "call", "tool": "echo", "arguments": map[string]any{"message": "$me.value"}}}, []string{"step 2", "does not come before"}},
		{"unknown field", []any{hang, echo("$h.content")}, []string{`"$h.content"`, `no "content"`, "$ID.value"}},
		{"bad path", []any{hang, echo("$h.value.a[")}, []string{`"$h.value.a["`, "gjson"}},
		{"nested run", []any{hang, map[string]any{"action": "run", "steps": []any{echo("x")}}}, []string{"step 2", "cannot hold another run"}},
		{"duplicate id", []any{hang, map[string]any{"id": "h", "action": "list"}}, []string{"step 2", `"h"`, "already step 1"}},
		{"reserved id", []any{hang, map[string]any{"id": "step1", "action": "list"}}, []string{"reserved"}},
		{"bad id", []any{hang, map[string]any{"id": 7, "action": "list"}}, []string{"invalid step id 7"}},
		{"malformed step", []any{hang, echo("x"), map[string]any{"action": "call"}}, []string{"step 3", "call needs a \"tool\""}},
		{"not an object", []any{hang, "list"}, []string{"step 2", "not a JSON object"}},
		{"too many", tooMany, []string{"at most 50 steps, got 51"}},
		{"empty", []any{}, []string{`"steps" is empty`}},
		{"not an array", map[string]any{"a": hang}, []string{`"steps"`, "array"}},
		{"missing", nil, []string{`run needs "steps"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{"action": "run", "timeout": 30}
			if c.steps != nil {
				args["steps"] = c.steps
			}
			r := tc.mustCall(args)
			if !r.IsError {
				t.Fatalf("accepted: %s", r.text())
			}
			checkText(t, c.name, r.text(), c.want, nil)
		})
	}
	if data, err := os.ReadFile(cancelLog); err == nil {
		t.Errorf("a refused run ran a step: %s", data)
	}
}

func TestRun_TimeLimitEndsEveryStep(t *testing.T) {
	cancelLog := filepath.Join(t.TempDir(), "cancel.log")
	tc := startDispatch(t, nil, "--mcp", fixture("--cancel-log", cancelLog))
	r := tc.mustCall(map[string]any{"action": "run", "timeout": 0.5, "steps": []any{
		map[string]any{"id": "h", "action": "call", "tool": "hang", "arguments": map[string]any{"tag": "run-limit"}},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$h.value"}},
	}})
	a := decodeRun(t, r)
	if len(a.Steps) != 2 {
		t.Fatalf("run = %s", r.text())
	}
	checkText(t, "timed-out step", a.Steps[0].Error, []string{"time limit of 500ms ran out", `"timeout"`}, nil)
	if a.Steps[1].FailedDependency != "h" {
		t.Errorf("dependant of the timed-out step: %+v", a.Steps[1])
	}
	testkit.WaitFor(t, "the fixture to log the cancellation", 10*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Contains(string(data), "cancelled hang run-limit")
	})
}

func TestRun_CancellingTheRunCancelsEveryStep(t *testing.T) {
	cancelLog := filepath.Join(t.TempDir(), "cancel.log")
	tc := startDispatch(t, nil, "--mcp", fixture("--cancel-log", cancelLog))
	short, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := tc.call(short, map[string]any{"action": "run", "steps": []any{
		map[string]any{"action": "call", "tool": "hang", "arguments": map[string]any{"tag": "one"}},
		map[string]any{"action": "call", "tool": "hang", "arguments": map[string]any{"tag": "two"}},
	}}, nil)
	if err == nil {
		t.Fatal("the run returned before it was cancelled")
	}
	if err := tc.client.GetTransport().SendNotification(context.Background(), mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/cancelled", Params: mcp.NotificationParams{
			AdditionalFields: map[string]any{"requestId": fmt.Sprintf("t%d", tc.seq.Load()), "reason": "test gave up"}}},
	}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "both steps to be cancelled downstream", 10*time.Second, func() bool {
		data, err := os.ReadFile(cancelLog)
		return err == nil && strings.Contains(string(data), "cancelled hang one") && strings.Contains(string(data), "cancelled hang two")
	})
}

func TestRun_ReferencesOfAStepAreBounded(t *testing.T) {
	tc := startDispatch(t, nil, "--max-args-file", "1MiB", "--mcp", fixture())
	// Each reference is under the limit; four of them are not.
	r := tc.mustCall(map[string]any{"action": "run", "steps": []any{
		map[string]any{"id": "a", "action": "call", "tool": "large", "arguments": map[string]any{"bytes": 300000}},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$a.value.0.name", "m1": "$a.value", "m2": "$a.value", "m3": "$a.value", "m4": "$a.value"}},
		map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "$a.value.0.name", "m1": "$a.value"}},
	}})
	a := decodeRun(t, r)
	if len(a.Steps) != 3 {
		t.Fatalf("run = %s", r.text())
	}
	checkText(t, "step with four large references", a.Steps[1].Error, []string{"add up to more than 1.0 MiB", "--max-args-file", "argumentsFile"}, nil)
	if a.Steps[2].Error != "" {
		t.Errorf("step with one large reference: %s", a.Steps[2].Error)
	}
}

func TestRun_StepsMayComeAsAJSONString(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	a := decodeRun(t, tc.mustOK(map[string]any{"action": "run", "steps": `[{"id":"a","action":"call","tool":"echo","arguments":{"message":"hi"}},{"action":"call","tool":"echo","arguments":{"message":"$a.value"}}]`}))
	if a.Succeeded != 2 || stepText(t, a.Steps[1].Response) != "hi" {
		t.Errorf("run = %+v", a)
	}
}
