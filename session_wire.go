package main

import (
	"encoding/json"
	"fmt"

	"dispatch/dispatch"
)

// The private endpoint of a shell session. A one-shot command sends the
// dispatch.Request it would have run itself and gets the typed answer
// back, which it renders with the same code as without a session. This
// rather than proxy-dispatch over MCP because the MCP tool answers with
// the agent's text form and errors worded for an agent: the command line
// needs the typed answer, the shell wording of errors and the exit code,
// and an MCP round trip would lose all three.
const (
	sessionDoPath     = "/dispatch/v1/do"
	sessionSavePath   = "/dispatch/v1/save"
	sessionRunPath    = "/dispatch/v1/run"
	sessionStatusPath = "/dispatch/v1/status"
	sessionStopPath   = "/dispatch/v1/stop"
)

// sessionRequest is a request to sessionDoPath, or with Save set to
// sessionSavePath.
type sessionRequest struct {
	Request dispatch.Request `json:"request"`
	// The Request fields the tool's JSON leaves out, which the CLI sets.
	SaveTo      string `json:"saveTo,omitempty"`
	AsSent      bool   `json:"asSent,omitempty"`
	TimeoutName string `json:"timeoutName,omitempty"`
	WorkDir     string `json:"workDir,omitempty"`
	// Arguments go as text: they may not be JSON at all (a typo on the
	// command line), and the service, not the wire, must say so.
	Arguments *string `json:"arguments,omitempty"`
}

func newSessionRequest(req dispatch.Request) sessionRequest {
	r := sessionRequest{Request: req, SaveTo: req.SaveTo, AsSent: req.AsSent, TimeoutName: req.TimeoutName, WorkDir: req.WorkDir}
	if req.Arguments != nil {
		args := string(req.Arguments)
		r.Arguments, r.Request.Arguments = &args, nil
	}
	return r
}

func (r sessionRequest) request() dispatch.Request {
	req := r.Request
	req.SaveTo, req.AsSent, req.TimeoutName, req.WorkDir = r.SaveTo, r.AsSent, r.TimeoutName, r.WorkDir
	if r.Arguments != nil {
		req.Arguments = json.RawMessage(*r.Arguments)
	}
	return req
}

// sessionSave asks the session to write a result to the user's file.
type sessionSave struct {
	Call   *dispatch.CallResponse   `json:"call,omitempty"`
	Prompt *dispatch.PromptResponse `json:"prompt,omitempty"`
	Path   string                   `json:"path"`
}

// sessionAnswer is the session's answer: a typed response, or an error
// already worded for the shell with the exit code it means.
type sessionAnswer struct {
	Kind     string          `json:"kind,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// PastEnd is the one answer field the tool's JSON leaves out.
	PastEnd bool            `json:"pastEnd,omitempty"`
	Error   *sessionFailure `json:"error,omitempty"`
}

type sessionFailure struct {
	Message string `json:"message"`
	Exit    int    `json:"exit"`
}

// sessionRunLine is one line of sessionRunPath's answer: a step's result
// as dispatch run prints it, then a last line with End set.
type sessionRunLine struct {
	Step  json.RawMessage `json:"step,omitempty"`
	End   bool            `json:"end,omitempty"`
	Error *sessionFailure `json:"error,omitempty"`
}

// sessionRun is a request to sessionRunPath.
type sessionRun struct {
	Steps []json.RawMessage `json:"steps"`
}

// answerKinds names every answer type a one-shot command can get, so the
// client decodes into the type the renderer knows.
var answerKinds = map[string]func() any{
	"list":         func() any { return new(dispatch.ListResponse) },
	"sideList":     func() any { return new(dispatch.SideListResponse) },
	"search":       func() any { return new(dispatch.SearchResponse) },
	"info":         func() any { return new(dispatch.InfoResponse) },
	"resourceInfo": func() any { return new(dispatch.ResourceInfoResponse) },
	"promptInfo":   func() any { return new(dispatch.PromptInfoResponse) },
	"call":         func() any { return new(dispatch.CallResponse) },
	"resource":     func() any { return new(dispatch.ResourceResponse) },
	"prompt":       func() any { return new(dispatch.PromptResponse) },
	"saved":        func() any { return new(dispatch.SavedPayload) },
}

// encodeAnswer wraps a typed response for the wire.
func encodeAnswer(resp any) (sessionAnswer, error) {
	var ans sessionAnswer
	switch r := resp.(type) {
	case *dispatch.ListResponse:
		ans.Kind, ans.PastEnd = "list", r.PastEnd
	case *dispatch.SideListResponse:
		ans.Kind, ans.PastEnd = "sideList", r.PastEnd
	case *dispatch.SearchResponse:
		ans.Kind = "search"
	case *dispatch.InfoResponse:
		ans.Kind = "info"
	case *dispatch.ResourceInfoResponse:
		ans.Kind = "resourceInfo"
	case *dispatch.PromptInfoResponse:
		ans.Kind = "promptInfo"
	case *dispatch.CallResponse:
		ans.Kind = "call"
	case *dispatch.ResourceResponse:
		ans.Kind = "resource"
	case *dispatch.PromptResponse:
		ans.Kind = "prompt"
	case *dispatch.SavedPayload:
		ans.Kind = "saved"
	default:
		return ans, fmt.Errorf("session: no wire form for %T", resp)
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return ans, fmt.Errorf("session: encode %s answer: %w", ans.Kind, err)
	}
	ans.Response = data
	return ans, nil
}

// decodeAnswer is encodeAnswer's inverse.
func decodeAnswer(ans sessionAnswer) (any, error) {
	if ans.Error != nil {
		return nil, &sessionError{msg: ans.Error.Message, exit: ans.Error.Exit}
	}
	newResp, ok := answerKinds[ans.Kind]
	if !ok {
		return nil, fmt.Errorf("session answered with an unknown kind %q; is it a dispatch of another version? restart it with dispatch session stop and start", ans.Kind)
	}
	resp := newResp()
	if err := json.Unmarshal(ans.Response, resp); err != nil {
		return nil, fmt.Errorf("session: decode %s answer: %w", ans.Kind, err)
	}
	switch r := resp.(type) {
	case *dispatch.ListResponse:
		r.PastEnd = ans.PastEnd
	case *dispatch.SideListResponse:
		r.PastEnd = ans.PastEnd
	}
	return resp, nil
}

// failure words err as the command line would, with its exit code.
func failure(err error) *sessionFailure {
	err = shellError(err)
	return &sessionFailure{Message: err.Error(), Exit: classify(err)}
}

// sessionError is an error the session reported, already worded for the
// shell, with the exit code it means.
type sessionError struct {
	msg  string
	exit int
}

func (e *sessionError) Error() string { return e.msg }
