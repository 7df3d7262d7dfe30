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
	Meta map[string]any // forwarded as the request's _meta
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
	Meta       map[string]any
	OnProgress func(params map[string]any)
	Timeout    time.Duration
}

type readParams struct {
	URI  string         `json:"uri"`
	Meta map[string]any `json:"_meta,omitempty"`
}

type promptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Meta      map[string]any    `json:"_meta,omitempty"`
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
		func(meta map[string]any) any { return readParams{URI: req.URI, Meta: meta} })
}

// GetPrompt runs prompts/get and returns the server's raw GetPromptResult,
// as ReadResource does for a resource.
func (c *Conn) GetPrompt(ctx context.Context, req PromptRequest) (json.RawMessage, error) {
	return c.requestWithProgress(ctx, "get prompt "+req.Name, "prompts/get", req.Meta, req.OnProgress, req.Timeout,
		func(meta map[string]any) any {
			return promptParams{Name: req.Name, Arguments: req.Arguments, Meta: meta}
		})
}

// requestWithProgress starts the server if need be and sends one request
// whose params params builds around the _meta it is given (the caller's,
// plus a progress token of ours when onProgress is set).
func (c *Conn) requestWithProgress(ctx context.Context, op, method string, callerMeta map[string]any,
	onProgress func(map[string]any), timeout time.Duration, params func(meta map[string]any) any) (json.RawMessage, error) {
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
	meta, unregister := c.progressMeta(callerMeta, onProgress)
	defer unregister()
	if len(meta) == 0 {
		meta = nil
	}
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

// progressMeta copies the caller's _meta and, when onProgress is set, adds
// a progress token of ours that routes the server's progress notifications
// to it until unregister is called.
func (c *Conn) progressMeta(callerMeta map[string]any, onProgress func(map[string]any)) (map[string]any, func()) {
	meta := make(map[string]any, len(callerMeta)+1)
	for k, v := range callerMeta {
		meta[k] = v
	}
	if onProgress == nil {
		return meta, func() {}
	}
	token := fmt.Sprintf("dispatch-%s-%d", c.Alias, c.seq.Add(1))
	meta["progressToken"] = token
	c.progressMu.Lock()
	c.progress[token] = onProgress
	c.progressMu.Unlock()
	return meta, func() {
		c.progressMu.Lock()
		delete(c.progress, token)
		c.progressMu.Unlock()
	}
}
