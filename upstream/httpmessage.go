package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
)

// postedMessage is what the guard needs to know of a POSTed JSON-RPC message:
// what it is, before mcp-go reads it, and the ids swapHTTP swaps. The body
// is decoded once, here.
type postedMessage struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params struct {
		// A notifications/cancelled's: the request it cancels.
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// parsePosted reads body as one JSON-RPC message; anything else (a
// batch, not JSON) is the zero value, which mcp-go answers. Params that
// are not an object (a request's may be an array) hold no requestId: the
// rest of the message still says what it is.
func parsePosted(body []byte) postedMessage {
	var msg postedMessage
	err := json.Unmarshal(body, &msg)
	var wrongType *json.UnmarshalTypeError
	if err != nil && !(errors.As(err, &wrongType) && wrongType.Field == "params") {
		return postedMessage{}
	}
	return msg
}

// isNotification says whether msg is a notification: a method, no id.
func (m postedMessage) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// isResponse says whether msg answers a request: an id and a result or
// an error, no method.
func (m postedMessage) isResponse() bool {
	return m.Method == "" && len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0)
}

// isControl says whether msg is an answer or a notification: what an
// agent sends to free what it holds (a cancel), to unblock a server (an
// answer), or to report (progress); each is handled at once.
func (m postedMessage) isControl() bool { return m.isNotification() || m.isResponse() }

func (m postedMessage) kind() string {
	switch {
	case m.isNotification():
		return "notification " + m.Method
	case m.isResponse():
		return "response " + string(bytes.TrimSpace(m.ID))
	default:
		return "request " + m.Method
	}
}
