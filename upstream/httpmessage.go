package upstream

import (
	"bytes"
	"encoding/json"
)

// postedMessage is what the guard needs to know of a POSTed JSON-RPC message:
// what it is, before mcp-go reads it.
type postedMessage struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// parsePosted reads body as one JSON-RPC message; anything else (a
// batch, not JSON) is the zero value, which mcp-go answers.
func parsePosted(body []byte) postedMessage {
	var msg postedMessage
	if json.Unmarshal(body, &msg) != nil {
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
