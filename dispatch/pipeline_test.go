package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestResolveRefs_KeepsNumbersExact(t *testing.T) {
	fields, err := decodeStep(json.RawMessage(`{"action":"call","tool":"t","arguments":{"id":"$s.id","literal":9007199254740993,"file":"$step1.resultFile","tags":"$s.tags"}}`))
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string][]byte{
		"s":     []byte(`{"id":12345678901234567891,"tags":["a","b"]}`),
		"step1": []byte(`{"spill":{"resultFile":"/tmp/d/r.json"}}`),
	}
	resolved, err := resolveRefs(fields, answers)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(resolved)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"action":"call","arguments":{"file":"/tmp/d/r.json","id":12345678901234567891,"literal":9007199254740993,"tags":["a","b"]},"tool":"t"}`
	if string(got) != want {
		t.Errorf("resolved step = %s\nwant            %s", got, want)
	}
	req, err := ParseRequest(got)
	if err != nil || string(req.Arguments) != `{"file":"/tmp/d/r.json","id":12345678901234567891,"literal":9007199254740993,"tags":["a","b"]}` {
		t.Errorf("request arguments = %s (%v)", req.Arguments, err)
	}
}

func TestDecodeStep_RefusesNonObjects(t *testing.T) {
	for _, raw := range []string{`[]`, `"call"`, `null`, `{"action":"list"} {"action":"list"}`, `{`} {
		if _, err := decodeStep(json.RawMessage(raw)); err == nil {
			t.Errorf("decodeStep(%s) accepted it", raw)
		}
	}
}

func TestRunPipeline_RefusesARunStep(t *testing.T) {
	svc := New(nil, Options{})
	steps := []json.RawMessage{json.RawMessage(`{"action":"run","steps":[{"action":"list"}]}`)}
	ran := 0
	err := svc.RunPipeline(context.Background(), steps, true, func(StepResult) error { ran++; return nil })
	if !IsUsage(err) || !strings.Contains(err.Error(), "cannot hold another run") {
		t.Errorf("RunPipeline of a run step = %v", err)
	}
	if ran != 1 {
		t.Errorf("emitted %d answers, want the one refusal", ran)
	}
}
