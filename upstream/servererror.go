package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"dispatch/connections"
)

// A server's JSON-RPC error to a request passed through (--transparent
// resources/read, prompts/get, completion/complete) must reach the agent
// with the server's code, message and data, as from a direct connection.
// mcp-go answers any error a handler returns with -32603 and the error's
// text: the handler records the server's error in the request's context
// (passServerError) and the transport puts it back in the answer
// (serverErrors.answer).

type serverErrorsKey struct{}

// serverErrors holds the server's error to one request.
type serverErrors struct {
	mu  sync.Mutex
	err *connections.RPCError
}

// withServerErrors is ctx for one request whose answer can carry a
// server's own error.
func withServerErrors(ctx context.Context) (context.Context, *serverErrors) {
	e := &serverErrors{}
	return context.WithValue(ctx, serverErrorsKey{}, e), e
}

// passServerError records err for the request of ctx when it is (or
// wraps) a server's JSON-RPC error, and returns err.
func passServerError(ctx context.Context, err error) error {
	var rpc *connections.RPCError
	if !errors.As(err, &rpc) {
		return err
	}
	if e, ok := ctx.Value(serverErrorsKey{}).(*serverErrors); ok {
		e.mu.Lock()
		e.err = rpc
		e.mu.Unlock()
	}
	return err
}

// answer is resp with the recorded server error in place of mcp-go's.
func (e *serverErrors) answer(resp mcp.JSONRPCMessage) mcp.JSONRPCMessage {
	failed, ok := resp.(mcp.JSONRPCError)
	if !ok {
		return resp
	}
	e.mu.Lock()
	rpc := e.err
	e.mu.Unlock()
	if rpc == nil {
		return resp
	}
	var data any
	if len(rpc.Data) > 0 {
		data = json.RawMessage(rpc.Data)
	}
	failed.Error = mcp.NewJSONRPCErrorDetails(rpc.Code, rpc.Message, data)
	return failed
}
