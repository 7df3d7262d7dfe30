package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"dispatch/spill"
)

// DefaultMaxRunSteps bounds the steps of one run (Options.MaxRunSteps).
const DefaultMaxRunSteps = 50

// stepID is what a step's "id" may be: what a reference can name.
var stepID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`) })

// autoName is the name every step has without an id: step1, step2, ...
var autoName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^step[0-9]+$`) })

// stepRef matches a whole string value that refers to an earlier step's
// answer: "$step2.resultFile", "$fetch.value.items.0" (an id).
var stepRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$([A-Za-z_][A-Za-z0-9_-]*)\.(.+)$`) })

// plannedStep is one step of a run, checked before anything runs.
type plannedStep struct {
	n      int // 1-based position
	id     string
	action string
	fields map[string]any // the request, without "id"
	// deps are the indexes of the earlier steps it refers to, ascending.
	deps []int
}

// name is how messages call the step: its id, else stepN.
func (p *plannedStep) name() string {
	if p.id != "" {
		return p.id
	}
	return "step" + strconv.Itoa(p.n)
}

// stepReference is a parsed "$name.field[.path]" string.
type stepReference struct {
	text  string // as written
	name  string
	field string // "resultFile" or "value"
	path  string // gjson path after "value.", or ""
}

// parseReference parses s if it is a reference; "$$..." is a literal.
func parseReference(s string) (stepReference, bool) {
	if strings.HasPrefix(s, "$$") {
		return stepReference{}, false
	}
	m := stepRef().FindStringSubmatch(s)
	if m == nil {
		return stepReference{}, false
	}
	ref := stepReference{text: s, name: m[1], field: m[2]}
	if rest, ok := strings.CutPrefix(m[2], "value."); ok {
		ref.field, ref.path = "value", rest
	}
	return ref, true
}

const refHint = `A step's answer offers "$ID.resultFile" (the file a call's result was saved to) and "$ID.value" (the result itself), optionally followed by a gjson path: "$ID.value.items.0.name"; write "$$" for a literal "$"`

// planRun decodes and checks every step before any runs: the count, ids,
// nesting, and that each reference names an earlier step and a field a
// step's answer has. A step that refers to nothing is also parsed as a
// request, so that its mistakes are told before other steps do work.
func (s *Service) planRun(ctx context.Context, raw json.RawMessage) ([]plannedStep, map[string]int, error) {
	var steps []json.RawMessage
	if err := json.Unmarshal(raw, &steps); err != nil {
		return nil, nil, usagef(examples["run"], "\"steps\" must be a JSON array of proxy-dispatch requests")
	}
	most := s.maxRunSteps()
	switch {
	case len(steps) == 0:
		return nil, nil, usagef(examples["run"], "\"steps\" is empty: give at least one request")
	case len(steps) > most:
		return nil, nil, usagef("Split the work into several runs, or feed larger inputs through argumentsFile",
			"a run may have at most %d steps, got %d", most, len(steps))
	}
	plan := make([]plannedStep, len(steps))
	index := map[string]int{}
	for i, rawStep := range steps {
		p, err := decodePlannedStep(i+1, rawStep)
		if err != nil {
			return nil, nil, fmt.Errorf("step %d: %w", i+1, err)
		}
		index["step"+strconv.Itoa(i+1)] = i
		if p.id != "" {
			if first, dup := index[p.id]; dup {
				return nil, nil, usagef("Give every step its own id", "step %d: id %q is already step %d's", i+1, p.id, first+1)
			}
			index[p.id] = i
		}
		plan[i] = p
	}
	for i := range plan {
		if err := s.checkStepRefs(ctx, &plan[i], index); err != nil {
			return nil, nil, fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return plan, index, nil
}

func (s *Service) maxRunSteps() int {
	if s.opts.MaxRunSteps > 0 {
		return s.opts.MaxRunSteps
	}
	return DefaultMaxRunSteps
}

// decodePlannedStep decodes one step and takes its id out.
func decodePlannedStep(n int, raw json.RawMessage) (plannedStep, error) {
	fields, err := decodeStep(raw)
	if err != nil {
		return plannedStep{}, err
	}
	p := plannedStep{n: n, fields: fields}
	p.action, _ = fields["action"].(string)
	if p.action == "run" {
		return plannedStep{}, errNestedRun
	}
	if id, given := fields["id"]; given {
		name, ok := id.(string)
		switch {
		case !ok || !stepID().MatchString(name):
			return plannedStep{}, usagef(`An id is a letter or "_" then letters, digits, "_" or "-", e.g. "files"`, "invalid step id %s", describeID(id))
		case autoName().MatchString(name):
			return plannedStep{}, usagef(`Pick another id; without one the step is already "step`+strconv.Itoa(n)+`"`, "step id %q is reserved: stepN names the Nth step", name)
		}
		p.id = name
		delete(fields, "id")
	}
	return p, nil
}

func describeID(id any) string {
	data, err := json.Marshal(id)
	if err != nil {
		return "(not a string)"
	}
	return string(bytes.TrimSpace(data))
}

// checkStepRefs records the steps p refers to, refusing a reference to
// itself, a later step, an unknown name or a field no answer has.
func (s *Service) checkStepRefs(ctx context.Context, p *plannedStep, index map[string]int) error {
	deps := map[int]bool{}
	var refErr error
	// mapStrings walks without changing anything: each string is given back.
	if _, err := mapStrings(p.fields, func(x string) (any, error) {
		ref, ok := parseReference(x)
		if !ok || refErr != nil {
			return x, nil
		}
		refErr = checkReference(ref, p.n, index)
		if refErr == nil {
			deps[index[ref.name]] = true
		}
		return x, nil
	}); err != nil {
		return err
	}
	if refErr != nil {
		return refErr
	}
	for d := range deps {
		p.deps = append(p.deps, d)
	}
	sort.Ints(p.deps)
	if len(p.deps) > 0 {
		return nil
	}
	data, err := marshalJSON(p.fields)
	if err != nil {
		return fmt.Errorf("encode step: %w", err)
	}
	_, err = s.Parse(ctx, data)
	return err
}

// checkReference checks one reference of step n against the names of
// the run's steps.
func checkReference(ref stepReference, n int, index map[string]int) error {
	i, known := index[ref.name]
	switch {
	case !known:
		return usagef(`Refer to an earlier step by its "id", or as stepN (1-based)`, "%q refers to %q, which is no step of this run", ref.text, ref.name)
	case i+1 >= n:
		return usagef("A step can use only the answers of steps before it; move it after step "+strconv.Itoa(i+1), "%q refers to step %d, which does not come before step %d", ref.text, i+1, n)
	}
	switch ref.field {
	case "resultFile", "value":
	default:
		return usagef(refHint, "%q: a step's answer has no %q", ref.text, ref.field)
	}
	if ref.path != "" {
		if err := spill.CheckPath(ref.path); err != nil {
			return usagef("gjson syntax: https://github.com/tidwall/gjson/blob/master/SYNTAX.md", "%q: %v", ref.text, err)
		}
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

// mapStrings replaces every string in v, at any depth, with what replace
// makes of it: a run's references are the strings found this way.
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
