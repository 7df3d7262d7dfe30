package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// StepResult is the outcome of one pipeline step.
type StepResult struct {
	Step     int    `json:"step"`
	ID       string `json:"id,omitempty"`
	Action   string `json:"action,omitempty"`
	Response any    `json:"response,omitempty"`
	Error    string `json:"error,omitempty"`
	// FailedDependency names the step whose failure kept this one from
	// running (action run).
	FailedDependency string `json:"failedDependency,omitempty"`
	// Err is the step's error for the caller (not serialized).
	Err error `json:"-"`
}

// stepRef matches a whole string value that refers to an earlier step's
// answer: "$step2.resultFile", "$fetch.spill.lines" (an id), with a gjson
// path after the first dot.
var stepRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$([A-Za-z_][A-Za-z0-9_-]*)\.(.+)$`) })

// RunPipeline runs steps in order over one set of connections, so that a
// step can use an earlier step's result file ("argumentsFile":
// "$step1.resultFile") while this process's files still exist. Each step
// is a proxy-dispatch request, optionally with an "id" to refer to it by.
// emit receives every step's result; the pipeline stops at the first
// failed step and returns its error.
//
// With keepFiles false the pipeline's result files are deleted when it
// ends, so none may be the last thing a user is handed: the last step's
// result is printed whole, never saved to a file, and the other steps'
// answers say their file lasts only as long as the pipeline.
func (s *Service) RunPipeline(ctx context.Context, steps []json.RawMessage, keepFiles bool, emit func(StepResult) error) error {
	if !keepFiles && len(steps) > 0 {
		last, err := inlineLastStep(steps[len(steps)-1])
		if err != nil {
			return fmt.Errorf("step %d: %w", len(steps), err)
		}
		steps = append(steps[:len(steps)-1:len(steps)-1], last)
	}
	answers := map[string][]byte{}
	ctx = markRun(ctx) // a step that is a run is refused
	for i, raw := range steps {
		n := i + 1
		res := StepResult{Step: n}
		err := s.runStep(ctx, raw, answers, &res)
		if call, ok := res.Response.(*CallResponse); ok && call.Spill != nil && !keepFiles {
			call.Spill.Hint = fmt.Sprintf(`This file is deleted when the pipeline ends (run with --spill-dir DIR to keep result files); a later step can use it as "$step%d.resultFile" or read it with {"action":"readresult","resultFile":"$step%d.resultFile","op":"head"}.`, n, n)
		}
		if err != nil {
			res.Error = err.Error()
			res.Err = err
		}
		if emitErr := emit(res); emitErr != nil {
			return emitErr
		}
		if err != nil {
			return fmt.Errorf("step %d: %w", n, err)
		}
	}
	return nil
}

// inlineLastStep makes a call step return its result whole instead of in
// a file that would be gone when the pipeline has ended; a step that
// explicitly asks for a file is refused before anything runs.
func inlineLastStep(raw json.RawMessage) (json.RawMessage, error) {
	fields, err := decodeStep(raw)
	if err != nil || fields["action"] != "call" {
		return raw, nil // runStep reports a malformed step where it runs
	}
	if v, ok := fields["resultToFile"].(bool); ok && v {
		return nil, usagef("Run with --spill-dir DIR to keep result files, or drop resultToFile from the last step",
			"the last step asks for a result file, but without --spill-dir the pipeline's files are deleted when it ends")
	}
	fields["resultSizeThreshold"] = 0
	return marshalJSON(fields)
}

func (s *Service) runStep(ctx context.Context, raw json.RawMessage, answers map[string][]byte, res *StepResult) error {
	fields, err := decodeStep(raw)
	if err != nil {
		return err
	}
	if id, ok := fields["id"].(string); ok {
		res.ID = id
		delete(fields, "id")
	}
	resolved, err := resolveRefs(fields, answers)
	if err != nil {
		return err
	}
	data, err := marshalJSON(resolved)
	if err != nil {
		return fmt.Errorf("encode step: %w", err)
	}
	req, err := s.Parse(ctx, data)
	if err != nil {
		return err
	}
	res.Action = req.Action
	resp, err := s.Do(ctx, req, Hooks{})
	if err != nil {
		return err
	}
	res.Response = resp
	answer, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	answers["step"+strconv.Itoa(res.Step)] = answer
	if res.ID != "" {
		answers[res.ID] = answer
	}
	if call, ok := resp.(*CallResponse); ok && call.IsError {
		return &ToolError{Tool: call.Tool}
	}
	return nil
}

// decodeStep decodes a step keeping its numbers as written (json.Number):
// a float64 would change integers past 2^53, such as 64-bit IDs, on their
// way to the tool.
func decodeStep(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil || fields == nil || dec.More() {
		return nil, usagef(`Each step is a proxy-dispatch request object, e.g. {"action":"call","tool":"t","arguments":{}}`, "step is not a JSON object")
	}
	return fields, nil
}

// resolveRefs replaces every string "$step.path" in v, at any depth, with
// the value at path in that step's answer. "resultFile" also finds
// spill.resultFile, since that is what one means when chaining calls.
func resolveRefs(v any, answers map[string][]byte) (any, error) {
	return mapStrings(v, func(x string) (any, error) {
		if strings.HasPrefix(x, "$$") {
			return x[1:], nil // "$$" writes a literal "$"
		}
		m := stepRef().FindStringSubmatch(x)
		if m == nil {
			return x, nil
		}
		answer, ok := answers[m[1]]
		if !ok {
			return nil, usagef("Refer to an earlier step as $stepN (1-based) or by its \"id\"", "%q refers to %q, which is not an earlier step", x, m[1])
		}
		found := gjson.GetBytes(answer, m[2])
		if !found.Exists() {
			found = gjson.GetBytes(answer, "spill."+m[2])
		}
		if !found.Exists() {
			return nil, usagef("Check that step's answer; a call saved to a file has spill.resultFile", "%q: step %s has no %q", x, m[1], m[2])
		}
		if found.Raw != "" {
			// The value exactly as that answer holds it: numbers keep
			// every digit.
			return json.RawMessage(found.Raw), nil
		}
		return found.Value(), nil
	})
}

// mapStrings replaces every string in v, at any depth, with what replace
// makes of it; a pipeline's and a run's references are both strings
// found this way.
func mapStrings(v any, replace func(string) (any, error)) (any, error) {
	switch x := v.(type) {
	case string:
		return replace(x)
	case map[string]any:
		for k, e := range x {
			r, err := mapStrings(e, replace)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
		return x, nil
	case []any:
		for i, e := range x {
			r, err := mapStrings(e, replace)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
		return x, nil
	}
	return v, nil
}

// ToolError means a tool ran and answered with isError: the call itself
// worked, so the CLI exits 1 rather than with a server or usage code.
type ToolError struct{ Tool string }

func (e *ToolError) Error() string { return "tool " + e.Tool + " returned an error" }
