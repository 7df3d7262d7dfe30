package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"dispatch/dispatch"
	"dispatch/rawjson"
)

// RunCmd runs action run from the shell: the same engine, checks and
// references, with each step's answer printed as a JSON line.
type RunCmd struct {
	Steps string `arg:"" optional:"" default:"-" help:"A JSON file with an array of requests (or {\"steps\": [...], \"timeout\": SECONDS}, as action run takes), or - for JSON lines on stdin."`
}

// Help is shown under run's usage line.
func (c *RunCmd) Help() string {
	return `Each step's answer is printed as a JSON line. Examples:

    dispatch -m SERVER run steps.json
    printf '%s\n' '{"id":"f","action":"call","tool":"list_files","resultToFile":true}' \
        '{"action":"readresult","resultFile":"$f.resultFile","op":"grep","pattern":"\\.md"}' | dispatch -m SERVER run -`
}

func (c *RunCmd) Run(ctx context.Context, g *Globals) error {
	in, err := readSteps(c.Steps)
	if err != nil {
		return err
	}
	if socket := g.sessionSocket(); socket != "" {
		return runInSession(ctx, socket, in.steps, in.timeout)
	}
	keepFiles := g.SpillDir != ""
	mode := storePrivate
	if keepFiles {
		mode = storeNone // files go to the named directory and are kept
	} else if err := inlineLastStep(in.steps); err != nil {
		return err
	}
	req, err := in.request()
	if err != nil {
		return err
	}
	a, err := g.newApp(mode, userPaths)
	if err != nil {
		return err
	}
	defer a.close()
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	resp, err := a.svc.RunEach(ctx, req, func(r dispatch.StepResult) error {
		if info := r.SavedTo(); info != nil && !keepFiles {
			info.Hint = privateFileHint(r)
		}
		return enc.Encode(r)
	})
	if err != nil {
		return err
	}
	return resp.Err()
}

// privateFileHint is what a step's answer says of its result file when
// the file is deleted as dispatch run ends.
func privateFileHint(r dispatch.StepResult) string {
	name := r.ID
	if name == "" {
		name = fmt.Sprintf("step%d", r.Step)
	}
	return fmt.Sprintf(`This file is deleted when dispatch run ends (run with --spill-dir DIR to keep result files); a later step can use it as "$%s.resultFile", or its data as "$%s.value".`, name, name)
}

// inlineLastStep makes the last step answer whole instead of in a file
// that would be gone when dispatch run has ended; a last step that asks
// for a file is refused before anything runs.
func inlineLastStep(steps []json.RawMessage) error {
	last := len(steps) - 1
	fields, err := decodeObject(steps[last])
	if err != nil {
		return nil // the run's checks say what is wrong with it
	}
	switch fields["action"] {
	case "call", "list", "search", "info":
	default:
		return nil // readresult and the rest are never saved
	}
	if v, ok := fields["resultToFile"].(bool); ok && v {
		return &usageErr{fmt.Errorf("step %d asks for a result file, but without --spill-dir the run's files are deleted when it ends: run with --spill-dir DIR to keep result files, or drop resultToFile from the last step", last+1)}
	}
	fields["resultSizeThreshold"] = 0
	if steps[last], err = rawjson.Marshal(fields); err != nil {
		return fmt.Errorf("encode step: %w", err)
	}
	return nil
}

// decodeObject decodes a JSON object keeping its numbers as written.
func decodeObject(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil {
		return nil, err
	}
	if fields == nil || dec.More() {
		return nil, errors.New("not one JSON object")
	}
	return fields, nil
}

// stepsInput is what dispatch run read: the steps, and the run's time
// limit when the file gave one.
type stepsInput struct {
	steps   []json.RawMessage
	timeout *float64
}

// request is the run request the steps make.
func (in stepsInput) request() (dispatch.Request, error) {
	steps, err := json.Marshal(in.steps)
	if err != nil {
		return dispatch.Request{}, fmt.Errorf("encode steps: %w", err)
	}
	return dispatch.Request{Action: "run", Steps: steps, Timeout: in.timeout}, nil
}

// maxStepsBytes bounds the steps dispatch run reads (a file or stdin).
const maxStepsBytes = 64 << 20

// errorOffset is the input offset where decoding failed: the byte a
// syntax error names (its Offset is just past it), the end of the input
// when it ended early, else the decoder's.
func errorOffset(err error, dec *json.Decoder, size int) int64 {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return max(0, syntax.Offset-1)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return int64(size)
	}
	return dec.InputOffset()
}

// jsonPosition says where offset is in data, as an editor counts: line
// and column (in bytes), both from 1.
func jsonPosition(data []byte, offset int64) string {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := offset - int64(bytes.LastIndexByte(before, '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// readSteps reads the steps of a run: a JSON array, an object with
// "steps" (action run's request itself, its "timeout" too), or JSON
// values one after another (JSON lines).
func readSteps(path string) (stepsInput, error) {
	var in io.Reader = os.Stdin
	if path != "-" {
		f, err := openNamed(path)
		if err != nil {
			return stepsInput{}, &usageErr{fmt.Errorf("steps: %w", err)}
		}
		defer f.Close()
		in = f
	}
	// Read whole, so that an error can say on which line it is.
	data, err := io.ReadAll(io.LimitReader(in, maxStepsBytes+1))
	if err != nil {
		return stepsInput{}, fmt.Errorf("steps: read: %w", err)
	}
	if len(data) > maxStepsBytes {
		return stepsInput{}, &usageErr{fmt.Errorf("steps: more than %d MiB of steps; split the run, or pass large arguments with argumentsFile", maxStepsBytes>>20)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var values []json.RawMessage
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return stepsInput{}, &usageErr{fmt.Errorf("steps: invalid JSON at %s: %w", jsonPosition(data, errorOffset(err, dec, len(data))), err)}
		}
		values = append(values, v)
	}
	var read stepsInput
	if len(values) == 1 {
		trimmed := strings.TrimSpace(string(values[0]))
		if strings.HasPrefix(trimmed, "[") {
			if err := json.Unmarshal(values[0], &values); err != nil {
				return stepsInput{}, &usageErr{fmt.Errorf("steps: %w", err)}
			}
		} else if run, ok, err := runRequest(values[0]); err != nil {
			return stepsInput{}, err
		} else if ok {
			values, read.timeout = run.steps, run.timeout
		}
	}
	if len(values) == 0 {
		return stepsInput{}, &usageErr{fmt.Errorf("steps: no steps given: pass a JSON array of proxy-dispatch requests")}
	}
	read.steps = values
	return read, nil
}

// runRequest reads an object with "steps" as action run's request; ok is
// false for any other object (a run of that one step).
func runRequest(raw json.RawMessage) (stepsInput, bool, error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) != nil || probe["steps"] == nil {
		return stepsInput{}, false, nil
	}
	if _, given := probe["action"]; !given {
		probe["action"] = json.RawMessage(`"run"`)
	}
	data, err := json.Marshal(probe)
	if err != nil {
		return stepsInput{}, false, fmt.Errorf("steps: %w", err)
	}
	req, err := dispatch.ParseRequest(data)
	if err != nil {
		return stepsInput{}, false, fmt.Errorf("steps: %w", err)
	}
	if req.Action != "run" {
		return stepsInput{}, false, &usageErr{fmt.Errorf(`steps: an object with "steps" is a run request; its "action" is "run", not %q`, req.Action)}
	}
	var steps []json.RawMessage
	if err := json.Unmarshal(req.Steps, &steps); err != nil {
		return stepsInput{}, false, &usageErr{fmt.Errorf(`steps: "steps" must be a JSON array of proxy-dispatch requests`)}
	}
	return stepsInput{steps: steps, timeout: req.Timeout}, true, nil
}
