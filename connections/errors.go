package connections

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"
)

var (
	// ErrUnknownConnection is returned by Set.Lookup for a key that names no
	// connection.
	ErrUnknownConnection = errors.New("unknown connection")
	// ErrServerGone means the server's process or connection ended; the
	// next use starts it again.
	ErrServerGone = errors.New("server connection lost")
	// ErrBackoff means the server failed recently and is not retried yet.
	ErrBackoff = errors.New("server is backing off after failures")
	// ErrTimeout means starting a server (its handshake or its tools/list)
	// outlived the connect timeout.
	ErrTimeout = errors.New("timed out")
	// ErrCallTimeout means a tools/call outlived CallRequest.Timeout.
	ErrCallTimeout = errors.New("timed out")
)

// RPCError is a JSON-RPC error response from a downstream server: the server
// is alive and refused the request (unknown tool, invalid params, ...).
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("server error %d: %s", e.Code, e.Message)
}

// MessageTooLongError is dispatch's refusal of a server's answer longer
// than --max-message: the server sent no error, and stays in use.
type MessageTooLongError struct {
	Size  int64 // the answer's length, or how much was read when it crossed Limit
	Ended bool  // the answer's line ended: Size is its whole length
	Limit int64
}

func (e *MessageTooLongError) Error() string {
	more := ""
	if !e.Ended {
		more = "more than "
	}
	return fmt.Sprintf("the server's answer of %s%s exceeds the limit of %s (--max-message), so dispatch discarded it; raise --max-message to receive it",
		more, humanize.IBytes(uint64(e.Size)), humanize.IBytes(uint64(e.Limit)))
}

// MessageTooDeepError is dispatch's refusal of a server's answer nested
// past MaxAnswerNesting (stdio) or MaxHTTPAnswerNesting (HTTP, SSE): the
// server sent no error, and stays in use.
type MessageTooDeepError struct {
	Limit int
	HTTP  bool // the server's transport is streamable HTTP or SSE
}

func (e *MessageTooDeepError) Error() string {
	if e.HTTP {
		return fmt.Sprintf("the server's answer nests arrays and objects more than %d levels deep (the limit for HTTP and SSE servers, MaxHTTPAnswerNesting: encoding/json reads their answers), so dispatch discarded it; the server stays in use", e.Limit)
	}
	return fmt.Sprintf("the server's answer nests arrays and objects more than %d levels deep (the limit, MaxAnswerNesting), so dispatch discarded it unread", e.Limit)
}

// ConnError is an error about one connection. Its text is already sanitized:
// everything dispatch shows of a connection's failure goes through it.
type ConnError struct {
	Alias string
	Op    string // "connect", "list tools", "call echo", ...
	msg   string // sanitized text of err, with a stderr tail when useful
	err   error
}

func (e *ConnError) Error() string { return e.Alias + ": " + e.Op + ": " + e.msg }
func (e *ConnError) Unwrap() error { return e.err }
