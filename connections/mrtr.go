package connections

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
)

// Bounds on multi-round-trip requests (protocol 2026-07-28), where a
// server answers a call with input requests and dispatch calls again with
// the agent's answers.
const (
	// MaxInputRoundTrips bounds how many times one call is retried with
	// answers, as mcp-go's own client does.
	MaxInputRoundTrips = 10
	// MaxInputRequests bounds the input requests one answer may carry.
	MaxInputRequests = 16
)

// inputRequired is a result asking for input before the call can finish.
type inputRequired struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
}

// needsInput reads raw as an input_required result, if it is one.
func needsInput(raw json.RawMessage) (inputRequired, bool) {
	if !mayNeedInput(raw) {
		return inputRequired{}, false
	}
	var r inputRequired
	if json.Unmarshal(raw, &r) != nil || r.ResultType != string(mcp.ResultTypeInputRequired) {
		return inputRequired{}, false
	}
	return r, true
}

// answerInputRequests relays each input request to the agent, as a
// server-initiated request would be, and returns the answers by the ids
// the server gave them. One the agent cannot answer fails the call: the
// server cannot go on without it.
func (c *Conn) answerInputRequests(ctx context.Context, requests map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	if len(requests) > MaxInputRequests {
		return nil, fmt.Errorf("the server asked for %d inputs at once; dispatch relays at most %d (MaxInputRequests)", len(requests), MaxInputRequests)
	}
	ids := make([]string, 0, len(requests))
	for id := range requests {
		ids = append(ids, id)
	}
	sort.Strings(ids) // the agent sees them in a stable order
	answers := make(map[string]json.RawMessage, len(requests))
	for _, id := range ids {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(requests[id], &req); err != nil {
			return nil, fmt.Errorf("input request %q: %w", id, err)
		}
		if req.Method == string(mcp.MethodListRoots) && len(req.Params) == 0 {
			req.Params = json.RawMessage(`{}`)
		}
		result, refusal := c.askAgent(ctx, req.Method, req.Params)
		if refusal != nil {
			return nil, fmt.Errorf("input request %q (%s): %w", id, req.Method, refusal)
		}
		answers[id] = result
	}
	return answers, nil
}

// callWithInput runs tools/call and, while the server answers that it
// needs input, relays its input requests to the agent and calls again with
// the answers. limit bounds each round's request, not the agent's answers.
func (c *Conn) callWithInput(ctx context.Context, sess *session, limit time.Duration, params callParams) (json.RawMessage, bool, error) {
	raw, next, expired, err := c.send(ctx, sess, limit, "tools/call", params)
	if err != nil {
		return nil, expired, err
	}
	return c.inputRounds(ctx, next, limit, params, raw)
}

// inputRounds is callWithInput from the server's first answer, raw, on.
func (c *Conn) inputRounds(ctx context.Context, sess *session, limit time.Duration, params callParams, raw json.RawMessage) (json.RawMessage, bool, error) {
	for round := 0; ; round++ {
		input, ok := needsInput(raw)
		if !ok {
			return raw, false, nil
		}
		if round >= MaxInputRoundTrips {
			return nil, false, c.fail("call "+params.Name, fmt.Errorf("the server still asked for input after %d rounds (MaxInputRoundTrips); dispatch gave up on the call", MaxInputRoundTrips), false)
		}
		answers, err := c.answerInputRequests(ctx, input.InputRequests)
		if err != nil {
			return nil, false, c.fail("call "+params.Name, err, false)
		}
		params.InputResponses, params.RequestState = answers, input.RequestState
		var expired bool
		raw, sess, expired, err = c.send(ctx, sess, limit, "tools/call", params)
		if err != nil {
			return nil, expired, err
		}
	}
}

// mayNeedInput reports whether raw has a top-level member json.Unmarshal
// would read as "resultType". Nearly every result has none: finding that
// out by skimming the keys, instead of decoding the whole result, is most
// of the cost of a small call.
func mayNeedInput(raw json.RawMessage) bool {
	found := false
	gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw))).ForEach(func(key, _ gjson.Result) bool {
		found = strings.EqualFold(key.String(), "resultType")
		return !found
	})
	return found
}
