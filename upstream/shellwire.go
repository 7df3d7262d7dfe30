package upstream

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"dispatch/dispatch"
)

// The private endpoint of a shell session. A one-shot command sends the
// dispatch.Request it would have run itself and gets the typed answer
// back, which it renders with the same code as without a session. This
// rather than proxy-dispatch over MCP because the MCP tool answers with
// the agent's text form and errors worded for an agent: the command line
// needs the typed answer, the shell wording of errors and the exit code,
// and an MCP round trip would lose all three.
//
// Each message below is one type, written by one side and read by the
// other; ShellClient and the shell server live in this package so that
// the two cannot drift apart.
const (
	shellDoPath     = "/dispatch/v1/do"
	shellSavePath   = "/dispatch/v1/save"
	shellRunPath    = "/dispatch/v1/run"
	shellStatusPath = "/dispatch/v1/status"
	shellStopPath   = "/dispatch/v1/stop"
)

// shellRequest is a request to shellDoPath.
type shellRequest struct {
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

func newShellRequest(req dispatch.Request) shellRequest {
	r := shellRequest{Request: req, SaveTo: req.SaveTo, AsSent: req.AsSent, TimeoutName: req.TimeoutName, WorkDir: req.WorkDir}
	if req.Arguments != nil {
		args := string(req.Arguments)
		r.Arguments, r.Request.Arguments = &args, nil
	}
	return r
}

func (r shellRequest) request() dispatch.Request {
	req := r.Request
	req.SaveTo, req.AsSent, req.TimeoutName, req.WorkDir = r.SaveTo, r.AsSent, r.TimeoutName, r.WorkDir
	if r.Arguments != nil {
		req.Arguments = json.RawMessage(*r.Arguments)
	}
	return req
}

// shellSave asks the session to write a result to the user's file
// (shellSavePath).
type shellSave struct {
	Call   *dispatch.CallResponse   `json:"call,omitempty"`
	Prompt *dispatch.PromptResponse `json:"prompt,omitempty"`
	Path   string                   `json:"path"`
}

// shellAnswer is the session's answer to a do or a save: a typed
// response, or an error already worded for the shell with the exit code
// it means.
type shellAnswer struct {
	Kind     string          `json:"kind,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	// PastEnd is the one answer field the tool's JSON leaves out.
	PastEnd bool        `json:"pastEnd,omitempty"`
	Error   *ShellError `json:"error,omitempty"`
}

// ShellError is a failure a shell session reported, already worded for
// the shell, with the exit code the session's classification gave it
// (ShellOptions.Explain): the command prints it and exits as it would
// have without a session. It is also the failure's form on the wire.
type ShellError struct {
	Message string `json:"message"`
	Exit    int    `json:"exit"`
}

func (e *ShellError) Error() string { return e.Message }

// shellRun is a request to shellRunPath.
type shellRun struct {
	Steps   []json.RawMessage `json:"steps"`
	Timeout *float64          `json:"timeout,omitempty"`
}

// shellRunLine is one line of shellRunPath's answer: a step's result as
// dispatch run prints it, then a last line with End set.
type shellRunLine struct {
	Step  json.RawMessage `json:"step,omitempty"`
	End   bool            `json:"end,omitempty"`
	Error *ShellError     `json:"error,omitempty"`
}

// ShellStatus is shellStatusPath's answer: what dispatch session status
// shows.
type ShellStatus struct {
	PID         int                 `json:"pid"`
	Socket      string              `json:"socket"`
	Started     time.Time           `json:"started"`
	Uptime      string              `json:"uptime"`
	IdleLimit   string              `json:"idleLimit"`
	Idle        string              `json:"idle"`
	Servers     []ShellServerStatus `json:"servers"`
	ResultFiles int                 `json:"resultFiles"`
	ResultBytes int64               `json:"resultBytes"`
	ResultDir   string              `json:"resultDir,omitempty"`
}

// ShellServerStatus is one downstream server of a session's status.
type ShellServerStatus struct {
	Alias    string `json:"alias"`
	Name     string `json:"name,omitempty"`
	Status   string `json:"status"`
	Restarts int    `json:"restarts,omitempty"`
	Error    string `json:"error,omitempty"`
}

// shellStopped is shellStopPath's answer, sent before the session ends.
type shellStopped struct {
	PID int `json:"pid"`
}

// answerKind is one answer type a one-shot command can get: its name on
// the wire, so that the client decodes into the type the renderer knows.
type answerKind struct {
	name string
	typ  reflect.Type
	new  func() any
	// pastEnd points at the response's PastEnd, which its JSON leaves
	// out; nil for a kind without one.
	pastEnd func(any) *bool
}

func kind[T any](name string, pastEnd func(*T) *bool) answerKind {
	k := answerKind{name: name, typ: reflect.TypeFor[*T](), new: func() any { return new(T) }}
	if pastEnd != nil {
		k.pastEnd = func(resp any) *bool { return pastEnd(resp.(*T)) }
	}
	return k
}

// answerKinds is every answer type, the one table both sides read.
var answerKinds = []answerKind{
	kind("list", func(r *dispatch.ListResponse) *bool { return &r.PastEnd }),
	kind("sideList", func(r *dispatch.SideListResponse) *bool { return &r.PastEnd }),
	kind[dispatch.SearchResponse]("search", nil),
	kind[dispatch.InfoResponse]("info", nil),
	kind[dispatch.ResourceInfoResponse]("resourceInfo", nil),
	kind[dispatch.PromptInfoResponse]("promptInfo", nil),
	kind[dispatch.CallResponse]("call", nil),
	kind[dispatch.ResourceResponse]("resource", nil),
	kind[dispatch.PromptResponse]("prompt", nil),
	kind[dispatch.SavedPayload]("saved", nil),
}

func findKind(match func(answerKind) bool) (answerKind, bool) {
	for _, k := range answerKinds {
		if match(k) {
			return k, true
		}
	}
	return answerKind{}, false
}

// encodeAnswer wraps a typed response for the wire.
func encodeAnswer(resp any) (shellAnswer, error) {
	typ := reflect.TypeOf(resp)
	k, ok := findKind(func(k answerKind) bool { return k.typ == typ })
	if !ok {
		return shellAnswer{}, fmt.Errorf("session: no wire form for %T", resp)
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return shellAnswer{}, fmt.Errorf("session: encode %s answer: %w", k.name, err)
	}
	ans := shellAnswer{Kind: k.name, Response: data}
	if k.pastEnd != nil {
		ans.PastEnd = *k.pastEnd(resp)
	}
	return ans, nil
}

// decodeAnswer is encodeAnswer's inverse.
func decodeAnswer(ans shellAnswer) (any, error) {
	if ans.Error != nil {
		return nil, ans.Error
	}
	k, ok := findKind(func(k answerKind) bool { return k.name == ans.Kind })
	if !ok {
		return nil, fmt.Errorf("session answered with an unknown kind %q; is it a dispatch of another version? restart it with dispatch session stop and start", ans.Kind)
	}
	resp := k.new()
	if err := json.Unmarshal(ans.Response, resp); err != nil {
		return nil, fmt.Errorf("session: decode %s answer: %w", ans.Kind, err)
	}
	if k.pastEnd != nil {
		*k.pastEnd(resp) = ans.PastEnd
	}
	return resp, nil
}
