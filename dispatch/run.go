package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"dispatch/connections"
	"dispatch/rawjson"
)

// DefaultRunConcurrency bounds the steps of one run that are in flight at
// once (Options.RunConcurrency, --run-concurrency).
const DefaultRunConcurrency = 4

// RunResponse answers action run: every step's short answer, in order.
type RunResponse struct {
	Steps     []StepResult `json:"steps"`
	Succeeded int          `json:"succeeded"`
	Failed    int          `json:"failed"` // failed, or not run because a step it uses failed
	// Hint says once how to use result files, instead of in every step.
	Hint string `json:"hint,omitempty"`
}

// StepResult is the outcome of one step of a run.
type StepResult struct {
	Step     int    `json:"step"`
	ID       string `json:"id,omitempty"`
	Action   string `json:"action,omitempty"`
	Response any    `json:"response,omitempty"`
	Error    string `json:"error,omitempty"`
	// FailedDependency names the step whose failure kept this one from
	// running.
	FailedDependency string `json:"failedDependency,omitempty"`
	// Err is the step's error for the caller (not serialized).
	Err error `json:"-"`
}

// SavedTo describes the file the step's answer was saved to, or is nil.
func (r StepResult) SavedTo() *SpillInfo { return stepSpill(r.Response) }

// ToolError means a tool ran and answered with isError: the call itself
// worked, so the CLI exits 1 rather than with a server or usage code.
type ToolError struct{ Tool string }

func (e *ToolError) Error() string { return "tool " + e.Tool + " returned an error" }

// runFilesHint is a run's Hint when a step's result was saved to a file.
const runFilesHint = `Results saved to a file are not in your context: read one with {"action":"readresult","resultFile":PATH,"op":"head"} (or grep, slice, query), or feed it to a call as "argumentsFile"; in a run, "$ID.resultFile" and "$ID.value.PATH" do this.`

// errRunCancelled is the cause when the agent cancels a run.
var errRunCancelled = errors.New("the run was cancelled")

// errNestedRun refuses a run inside a run.
var errNestedRun = usagef("Put its steps in the outer run's steps instead", "a run cannot hold another run")

// runKey marks a context as inside a run.
type runKey struct{}

func markRun(ctx context.Context) context.Context { return context.WithValue(ctx, runKey{}, true) }

func withinRun(ctx context.Context) bool { return ctx.Value(runKey{}) != nil }

// runTimeoutError is the cause when a run's time limit runs out.
type runTimeoutError struct {
	limit time.Duration
	which string
}

func (e *runTimeoutError) Error() string {
	return fmt.Sprintf("the run's time limit of %s ran out (%s)", e.limit, e.which)
}

// Unwrap makes the run's time limit a deadline, as a call's is, for
// those that tell a deadline from other failures (dispatch run's exit
// code).
func (e *runTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// Run answers action run: every step's short answer, with the hint on
// result files said once for the whole run.
func (s *Service) Run(ctx context.Context, req Request) (*RunResponse, error) {
	resp, err := s.RunEach(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	for _, res := range resp.Steps {
		if info := stepSpill(res.Response); info != nil {
			info.Hint = ""
			resp.Hint = runFilesHint
		}
	}
	return resp, nil
}

// RunEach runs the steps of a run request, the engine of action run and
// of dispatch run: every step is checked before any runs, then each runs
// as soon as the steps it refers to have answered, at most
// Options.RunConcurrency at once, all within one time limit. A step that
// fails fails only the steps that use it, and a run inside a run is
// refused. emit, when not nil, is handed each step's result in the order
// of the steps, as soon as that step and every one before it has ended
// (dispatch run prints them so); when it fails, the run is cancelled and
// its error returned.
func (s *Service) RunEach(ctx context.Context, req Request, emit func(StepResult) error) (*RunResponse, error) {
	if withinRun(ctx) {
		// A step's action can come from a reference, or a run can reach
		// the service again through a step: refused here, whatever the path.
		return nil, errNestedRun
	}
	ctx = markRun(ctx)
	plan, index, err := s.planRun(ctx, req.Steps)
	if err != nil {
		return nil, err
	}
	limit, which := s.runLimit(req)
	runCtx, cancel := context.WithTimeoutCause(ctx, limit, &runTimeoutError{limit: limit, which: which})
	defer cancel()

	r := &runState{
		svc:     s,
		plan:    plan,
		index:   index,
		results: make([]StepResult, len(plan)),
		answers: make([]*stepAnswer, len(plan)),
		done:    make([]chan struct{}, len(plan)),
		slots:   make(chan struct{}, s.runConcurrency()),
	}
	for i := range r.done {
		r.done[i] = make(chan struct{})
	}
	// One goroutine per step, at most MaxRunSteps: each waits for the
	// earlier steps it uses, then for a slot or the end of runCtx, so all
	// of them end.
	var wg sync.WaitGroup
	for i := range plan {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(r.done[i])
			r.runStep(runCtx, ctx, i)
		}()
	}
	var emitErr error
	for i := range plan {
		<-r.done[i]
		if emit == nil || emitErr != nil {
			continue
		}
		if emitErr = emit(r.results[i]); emitErr != nil {
			cancel() // no one is left to hear the other steps
		}
	}
	wg.Wait()
	if emitErr != nil {
		return nil, emitErr
	}

	resp := &RunResponse{Steps: r.results}
	for _, res := range r.results {
		if res.Error != "" {
			resp.Failed++
		} else {
			resp.Succeeded++
		}
	}
	return resp, nil
}

// Err is the error of the first step that failed, named by its number,
// or nil when every step succeeded: dispatch run's exit code comes from
// it. Steps that were not run because of it come after it.
func (r *RunResponse) Err() error {
	for _, res := range r.Steps {
		if res.Err != nil {
			return fmt.Errorf("step %d: %w", res.Step, res.Err)
		}
	}
	return nil
}

// runLimit is the whole run's time limit: its "timeout", else --timeout.
func (s *Service) runLimit(req Request) (time.Duration, string) {
	if req.Timeout != nil {
		return max(time.Duration(*req.Timeout*float64(time.Second)), time.Nanosecond),
			`set by the run's "timeout"; pass a larger one`
	}
	return s.opts.CallTimeout, `the limit is --timeout; pass the run a "timeout" in seconds for more`
}

func (s *Service) runConcurrency() int {
	if s.opts.RunConcurrency > 0 {
		return s.opts.RunConcurrency
	}
	return DefaultRunConcurrency
}

// runState is one run in progress. results[i] and answers[i] are written
// only by step i's goroutine before it closes done[i], and read by others
// only after.
type runState struct {
	svc     *Service
	plan    []plannedStep
	index   map[string]int // a step's names (id, stepN) to its index
	results []StepResult
	answers []*stepAnswer // nil: the step failed or did not run
	done    []chan struct{}
	slots   chan struct{}
}

// runStep runs step i once the steps it uses have answered. parent is
// the agent's context, to tell its cancellation from the run's timeout.
func (r *runState) runStep(ctx, parent context.Context, i int) {
	p := &r.plan[i]
	res := &r.results[i]
	res.Step, res.ID, res.Action = p.n, p.id, p.action
	fail := func(err error) {
		res.Err, res.Error = err, err.Error()
	}
	for _, d := range p.deps {
		// No select on ctx here: once ctx ends, every earlier step ends
		// soon (its call and its own waits watch ctx), and waiting for it
		// lets this step name the failure it depended on.
		<-r.done[d]
		if r.answers[d] == nil {
			dep := r.plan[d].name()
			res.FailedDependency = dep
			fail(fmt.Errorf("not run: it uses step %d (%s), which failed", d+1, dep))
			return
		}
	}
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		fail(notRun(ctx, parent))
		return
	}
	defer func() { <-r.slots }()
	if ctx.Err() != nil {
		fail(notRun(ctx, parent))
		return
	}
	resp, answer, err := r.execute(ctx, p)
	res.Response = resp
	if err != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			// The run's limit, not the step's own, ended it.
			err = fmt.Errorf("%w: %w", context.Cause(ctx), err)
		}
		fail(err)
		return
	}
	r.answers[i] = answer
}

// notRun says why a step never started once the run's context ended.
func notRun(ctx, parent context.Context) error {
	if parent.Err() != nil {
		return fmt.Errorf("not run: %w", errRunCancelled)
	}
	return fmt.Errorf("not run: %w", context.Cause(ctx))
}

// execute resolves p's references and runs it.
func (r *runState) execute(ctx context.Context, p *plannedStep) (any, *stepAnswer, error) {
	var refErr error
	// What references put into one step is bounded like an argumentsFile:
	// it all travels in one message, and a step could repeat a reference
	// to a large value thousands of times.
	budget := r.svc.opts.MaxArgumentsFileBytes
	resolved, err := mapStrings(p.fields, func(x string) (any, error) {
		if literal, ok := stringLiteral(x); ok {
			return literal, nil
		}
		ref, ok := parseReference(x)
		if !ok {
			return x, nil
		}
		// planRun checked the name, and runStep that the step answered.
		d := r.index[ref.name]
		if refErr != nil {
			return x, nil
		}
		raw, err := r.svc.resolve(ctx, ref, r.answers[d], r.plan[d].name())
		if budget -= int64(len(raw)); err == nil && budget < 0 {
			err = usagef(`Feed large values whole with "argumentsFile":"$ID.resultFile" instead, or raise --max-args-file`,
				"the references of this step add up to more than %s (--max-args-file)", humanize.IBytes(uint64(r.svc.opts.MaxArgumentsFileBytes)))
		}
		refErr = err
		return raw, nil
	})
	if err == nil {
		err = refErr
	}
	if err != nil {
		return nil, nil, err
	}
	data, err := marshalJSON(resolved)
	if err != nil {
		return nil, nil, fmt.Errorf("encode step: %w", err)
	}
	if !rawjson.NestingWithin(data, connections.MaxRequestNesting) {
		// Parse would say only that the step is not a JSON object.
		return nil, nil, usagef(tooDeepHint,
			"the values this step's references put in it nest arrays and objects more than %d levels deep in the step, deeper than a call's arguments may nest (%d: the request that carries them adds %d levels, and a request may nest at most %d, the limit, MaxRequestNesting), so it was not run",
			connections.MaxRequestNesting, connections.MaxParamsMemberNesting, connections.RequestEnvelopeNesting, connections.MaxRequestNesting)
	}
	req, err := r.svc.Parse(ctx, data)
	if err != nil {
		return nil, nil, err
	}
	// The value later steps see is the result as the server sent it;
	// --toon's form, if smaller, is applied to the answer afterwards.
	req.AsSent = true
	resp, err := r.svc.Do(ctx, req, Hooks{})
	if err == nil {
		resp, err = r.svc.answerToFile(ctx, req, resp)
	}
	if err != nil {
		return nil, nil, err
	}
	call, isCall := resp.(*CallResponse)
	var inline *callResult
	if isCall {
		inline = &callResult{Content: call.Content, StructuredContent: call.StructuredContent, IsError: call.IsError}
	}
	answer, err := answerOf(resp, inline)
	if err != nil {
		return resp, nil, err
	}
	if isCall && call.Spill == nil && r.svc.opts.Toon && !call.IsError {
		r.svc.preferTOON(call, inline)
	}
	if isCall && call.IsError {
		return resp, nil, &ToolError{Tool: call.Tool}
	}
	return resp, answer, nil
}

// stepSpill is the description of the file a step's answer was saved to,
// or nil.
func stepSpill(resp any) *SpillInfo {
	switch r := resp.(type) {
	case *CallResponse:
		return r.Spill
	case *SavedAnswer:
		return r.Spill
	}
	return nil
}

// stringLiteral turns "$$..." into the literal "$...".
func stringLiteral(x string) (string, bool) {
	if len(x) >= 2 && x[0] == '$' && x[1] == '$' {
		return x[1:], true
	}
	return "", false
}
