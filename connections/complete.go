package connections

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Limits of a completion/complete answer that dispatch keeps.
const (
	// MaxCompletionValues is how many values of one answer are kept: the
	// spec caps an answer at 100, a hostile server need not.
	MaxCompletionValues = 100
	// MaxCompletionValueBytes cuts a longer value: completions are shown
	// to the agent, whose context is the budget.
	MaxCompletionValueBytes = 256
)

// CompleteRequest asks for the values an argument of a prompt or a
// resource template may take (completion/complete).
type CompleteRequest struct {
	// Exactly one of Prompt (a prompt's name) and URITemplate.
	Prompt      string
	URITemplate string
	Argument    string
	Value       string            // what is typed so far; "" for every value
	Context     map[string]string // arguments already resolved
	Timeout     time.Duration     // bounds the request; 0: only ctx
}

// Completion is a server's answer, masked and bounded.
type Completion struct {
	Values []string `json:"values"`
	// Total is the number of values the server says there are, when it
	// says so; HasMore that there are more than Values.
	Total   int  `json:"total,omitempty"`
	HasMore bool `json:"hasMore,omitempty"`
}

// Complete sends completion/complete, starting the server if needed. A
// server that did not declare the completions capability is not asked:
// the error says so.
func (c *Conn) Complete(ctx context.Context, req CompleteRequest) (Completion, error) {
	op := "complete " + req.Argument
	sess, err := c.ensure(ctx)
	if err != nil {
		return Completion{}, err
	}
	if caps, ok := c.Capabilities(); ok && !caps.Completions {
		return Completion{}, c.fail(op, fmt.Errorf("the server does not offer completions (no completions capability)"), false)
	}
	ref := map[string]any{"type": "ref/prompt", "name": req.Prompt}
	if req.URITemplate != "" {
		ref = map[string]any{"type": "ref/resource", "uri": req.URITemplate}
	}
	params := map[string]any{"ref": ref, "argument": map[string]any{"name": req.Argument, "value": req.Value}}
	if len(req.Context) > 0 {
		params["context"] = map[string]any{"arguments": req.Context}
	}
	mark := sess.unattributedMark()
	raw, _, expired, err := c.send(ctx, sess, req.Timeout, "completion/complete", params)
	if err != nil {
		timedOut := c.timedOut(sess, mark, "completion/complete answer", req.Timeout)
		return Completion{}, c.wrapRequestErr(op, ctx, expired, timedOut, err)
	}
	var result struct {
		Completion struct {
			Values  []json.RawMessage `json:"values"`
			Total   int               `json:"total"`
			HasMore bool              `json:"hasMore"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return Completion{}, c.fail(op, fmt.Errorf("invalid completion/complete result: %w", err), false)
	}
	out := Completion{Values: []string{}, Total: result.Completion.Total, HasMore: result.Completion.HasMore}
	for i, v := range result.Completion.Values {
		if i == MaxCompletionValues {
			out.HasMore = true
			break
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return Completion{}, c.fail(op, fmt.Errorf("invalid completion/complete result: value %d is not a string", i+1), false)
		}
		out.Values = append(out.Values, cutValue(c.opts.Redactor.String(s)))
	}
	if out.Total < 0 {
		out.Total = 0
	}
	return out, nil
}

// cutValue bounds a completion value, on a rune boundary, marking the cut.
func cutValue(s string) string {
	if len(s) <= MaxCompletionValueBytes {
		return s
	}
	return textStart(s, MaxCompletionValueBytes) + "…"
}
