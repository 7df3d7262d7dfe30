package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ReadRequest is one resources/read.
type ReadRequest struct {
	URI  string
	Meta json.RawMessage // a JSON object, forwarded as the request's _meta with its numbers as written
	// OnProgress, as in CallRequest: it runs on the read loop and must not
	// block or call back into the connection.
	OnProgress func(params map[string]any)
	// Timeout bounds the resources/read request itself (not starting the
	// server). Zero: no limit but the caller's context.
	Timeout time.Duration
}

// PromptRequest is one prompts/get.
type PromptRequest struct {
	Name string
	// Arguments are the prompt's arguments; MCP defines them as strings.
	Arguments  map[string]string
	Meta       json.RawMessage // as ReadRequest's
	OnProgress func(params map[string]any)
	Timeout    time.Duration
}

type readParams struct {
	URI  string          `json:"uri"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

type promptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Meta      json.RawMessage   `json:"_meta,omitempty"`
}

// ReadResource runs resources/read and returns the server's raw
// ReadResourceResult, starting the server first if need be. It goes the
// way a tools/call goes (see Call): the same size bound on the answer, the
// same restart of a lost session, notifications/cancelled when ctx ends,
// progress relayed, and ErrCallTimeout when req.Timeout runs out. The
// result stays raw: a content kind mcp-go does not know must not fail the
// read.
func (c *Conn) ReadResource(ctx context.Context, req ReadRequest) (json.RawMessage, error) {
	return c.requestWithProgress(ctx, "read "+req.URI, "resources/read", req.Meta, req.OnProgress, req.Timeout,
		func(meta json.RawMessage) any { return readParams{URI: req.URI, Meta: meta} })
}

// GetPrompt runs prompts/get and returns the server's raw GetPromptResult,
// as ReadResource does for a resource.
func (c *Conn) GetPrompt(ctx context.Context, req PromptRequest) (json.RawMessage, error) {
	return c.requestWithProgress(ctx, "get prompt "+req.Name, "prompts/get", req.Meta, req.OnProgress, req.Timeout,
		func(meta json.RawMessage) any {
			return promptParams{Name: req.Name, Arguments: req.Arguments, Meta: meta}
		})
}

// requestWithProgress starts the server if need be and sends one request
// whose params params builds around the _meta it is given (the caller's,
// plus a progress token of ours when onProgress is set).
func (c *Conn) requestWithProgress(ctx context.Context, op, method string, callerMeta json.RawMessage,
	onProgress func(map[string]any), timeout time.Duration, params func(meta json.RawMessage) any) (json.RawMessage, error) {
	// Before the server is started: it could not read the request.
	if err := checkParamsNesting(nil, callerMeta); err != nil {
		return nil, c.fail(op, err, false)
	}
	// Counted like a tool call: a connection a new config removes lets it
	// finish, and the server's requests meanwhile go to this caller's agent.
	c.beginCall()
	defer c.endCall()
	// Not under timeout: a server that takes longer to start than its
	// requests may take would otherwise never start.
	sess, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	defer c.trackCaller(ctx)()
	meta, unregister, err := c.progressMeta(callerMeta, onProgress)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", c.Alias, op, err)
	}
	defer unregister()
	mark := sess.unattributedMark()
	raw, _, expired, err := c.send(ctx, sess, timeout, method, params(meta))
	if err != nil {
		timedOut := c.timedOut(sess, mark, "answer", timeout)
		return nil, c.wrapRequestErr(op, ctx, expired, timedOut, err)
	}
	if len(raw) == 0 {
		return nil, c.fail(op, errors.New("the server answered with no result"), false)
	}
	return raw, nil
}

// progressMeta is the _meta to send: the caller's as it came (its
// numbers as written: decoded, they would be float64s) and, when
// onProgress is set, a progress token of ours in place of any it had,
// which routes the server's progress notifications to onProgress until
// unregister is called. Only the members' values are kept as they came
// then, not the object's spacing or order.
func (c *Conn) progressMeta(callerMeta json.RawMessage, onProgress func(map[string]any)) (json.RawMessage, func(), error) {
	if len(callerMeta) == 0 || string(callerMeta) == "null" {
		callerMeta = nil
	}
	if onProgress == nil {
		return callerMeta, func() {}, nil
	}
	members := map[string]json.RawMessage{}
	if callerMeta != nil {
		if err := json.Unmarshal(callerMeta, &members); err != nil {
			return nil, nil, fmt.Errorf("_meta must be a JSON object: %w", err)
		}
	}
	token := fmt.Sprintf("dispatch-%s-%d", c.Alias, c.seq.Add(1))
	encoded, err := json.Marshal(token)
	if err != nil {
		return nil, nil, fmt.Errorf("encode progress token: %w", err)
	}
	members["progressToken"] = encoded
	meta, err := json.Marshal(members)
	if err != nil {
		return nil, nil, fmt.Errorf("encode _meta: %w", err)
	}
	c.progressMu.Lock()
	c.progress[token] = onProgress
	c.progressMu.Unlock()
	return meta, func() {
		c.progressMu.Lock()
		delete(c.progress, token)
		c.progressMu.Unlock()
	}, nil
}
