package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestResolve_KeepsNumbersExact(t *testing.T) {
	svc := New(nil, Options{MaxArgumentsFileBytes: 1 << 20})
	answer := &stepAnswer{value: json.RawMessage(`{"id":12345678901234567891,"tags":["a","b"]}`)}
	for ref, want := range map[string]string{
		"$s.value.id":   `12345678901234567891`,
		"$s.value.tags": `["a","b"]`,
		"$s.value":      `{"id":12345678901234567891,"tags":["a","b"]}`,
	} {
		parsed, ok := parseReference(ref)
		if !ok {
			t.Fatalf("%s is not a reference", ref)
		}
		got, err := svc.resolve(context.Background(), parsed, answer, "s")
		if err != nil || string(got) != want {
			t.Errorf("%s = %s (%v), want %s", ref, got, err, want)
		}
	}
	// A step's own numbers go to the tool as written.
	fields, err := decodeStep(json.RawMessage(`{"action":"call","tool":"t","arguments":{"literal":9007199254740993}}`))
	if err != nil {
		t.Fatal(err)
	}
	data, err := marshalJSON(fields)
	if err != nil || !strings.Contains(string(data), `"literal":9007199254740993`) {
		t.Errorf("step = %s (%v)", data, err)
	}
}

func TestDecodeStep_RefusesNonObjects(t *testing.T) {
	for _, raw := range []string{`[]`, `"call"`, `null`, `{"action":"list"} {"action":"list"}`, `{`} {
		if _, err := decodeStep(json.RawMessage(raw)); err == nil {
			t.Errorf("decodeStep(%s) accepted it", raw)
		}
	}
}

func TestRunEach_RefusesARunStepBeforeAnythingRuns(t *testing.T) {
	svc := New(nil, Options{})
	req := Request{Action: "run", Steps: json.RawMessage(`[{"action":"list"},{"action":"run","steps":[{"action":"list"}]}]`)}
	emitted := 0
	_, err := svc.RunEach(context.Background(), req, func(StepResult) error { emitted++; return nil })
	if !IsUsage(err) || !strings.Contains(err.Error(), "step 2: a run cannot hold another run") {
		t.Errorf("RunEach with a run step = %v", err)
	}
	if emitted != 0 {
		t.Errorf("emitted %d answers of a refused run, want none", emitted)
	}
}
