package connections

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tidwall/gjson"
)

// envelope is any JSON-RPC message; which fields are set says which kind.
// Params and Result are slices of the line the message came in, not
// copies: a large result is held once while it is handed on.
type envelope struct {
	ID     *mcp.RequestId
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *mcp.JSONRPCErrorDetails
}

// parseEnvelope selects the members of one JSON-RPC message with gjson,
// which neither copies nor decodes the (possibly large) params or result.
// ok is false for a line that is not a JSON object, or whose members have
// the wrong types, as json.Unmarshal into the fields would have said.
// line must nest at most MaxAnswerNesting levels (dispatchLine checks):
// gjson's validator recurses once per level.
func parseEnvelope(line []byte) (msg envelope, ok bool) {
	if len(line) == 0 || line[0] != '{' || !gjson.ValidBytes(line) {
		return envelope{}, false
	}
	// Read-only view of line: gjson's byte functions would copy each
	// value they return, the result included.
	text := unsafe.String(unsafe.SliceData(line), len(line))
	var fields [5]gjson.Result
	found := 0
	gjson.Parse(text).ForEach(func(key, value gjson.Result) bool {
		i := -1
		switch key.Str {
		case "id":
			i = 0
		case "method":
			i = 1
		case "params":
			i = 2
		case "result":
			i = 3
		case "error":
			i = 4
		}
		// Later duplicates win, as with json.Unmarshal.
		if i >= 0 {
			fields[i] = value
			found++
		}
		return true
	})
	if found == 0 {
		return envelope{}, true
	}
	raw := func(v gjson.Result) json.RawMessage {
		if !v.Exists() {
			return nil
		}
		return json.RawMessage(line[v.Index : v.Index+len(v.Raw)])
	}
	id, method, params, result, errv := fields[0], fields[1], fields[2], fields[3], fields[4]
	switch method.Type {
	case gjson.String:
		msg.Method = method.Str
	case gjson.Null:
	default:
		if method.Exists() {
			return envelope{}, false
		}
	}
	if id.Exists() && id.Type != gjson.Null {
		msg.ID = new(mcp.RequestId)
		if plain, ok := plainRequestID(id); ok {
			*msg.ID = plain
		} else if msg.Method != "" && id.Type == gjson.Number {
			*msg.ID = exactRequestID(raw(id))
		} else if json.Unmarshal(raw(id), msg.ID) != nil {
			return envelope{}, false
		}
	}
	msg.Params, msg.Result = raw(params), raw(result)
	if errv.Exists() && errv.Type != gjson.Null {
		msg.Error = new(mcp.JSONRPCErrorDetails)
		if json.Unmarshal(raw(errv), msg.Error) != nil {
			// Its data may be what encoding/json cannot decode (nested past
			// its 10,000 levels): the code and message still answer the
			// request, which would otherwise wait out its time limit.
			code, text, data := errv.Get("code"), errv.Get("message"), errv.Get("data")
			if code.Type != gjson.Number || text.Type != gjson.String || !data.Exists() {
				return envelope{}, false
			}
			*msg.Error = mcp.JSONRPCErrorDetails{Code: int(code.Int()), Message: text.Str + " (its data could not be decoded, and was left out)"}
		}
	}
	return msg, true
}

// exactRequestID reads the numeric id of a server's request that is not
// plain. One mcp.RequestId's UnmarshalJSON would not give back as written
// (past 2^53, whole but written 1.0 or 1e3, out of float64's range) is
// kept as written, a json.RawMessage: the answer must carry the id
// exactly, or the server cannot match it. (An answer's id is read as
// UnmarshalJSON reads it, as dispatch's requests are filed.)
func exactRequestID(raw json.RawMessage) mcp.RequestId {
	var id mcp.RequestId
	if json.Unmarshal(raw, &id) == nil {
		if again, err := json.Marshal(id); err == nil && string(again) == string(raw) {
			return id
		}
	}
	return mcp.NewRequestId(json.RawMessage(bytes.Clone(raw)))
}

// requestIDKey is how a server's request is found by the id its
// notifications/cancelled names, which mcp-go has read as a float64: an
// id kept as written (exactRequestID) is keyed as so read, too.
func requestIDKey(id mcp.RequestId) string {
	if raw, ok := id.Value().(json.RawMessage); ok {
		var read mcp.RequestId
		if json.Unmarshal(raw, &read) == nil {
			return read.String()
		}
	}
	return id.String()
}

// plainRequestID reads the ids dispatch itself sends ("d17") and small
// integers as mcp.RequestId's UnmarshalJSON would, without encoding/json
// (which read every answer's id twice, as a string then as a number). ok
// is false for any other id, which UnmarshalJSON then reads.
func plainRequestID(id gjson.Result) (mcp.RequestId, bool) {
	switch id.Type {
	case gjson.String:
		if strings.IndexByte(id.Raw, '\\') >= 0 {
			return mcp.RequestId{}, false
		}
		return mcp.NewRequestId(strings.Clone(id.Str)), true
	case gjson.Number:
		if len(id.Raw) > 15 || id.Raw == "-0" {
			return mcp.RequestId{}, false // past what a float64 holds exactly, or 0 to mcp-go
		}
		n, err := strconv.ParseInt(id.Raw, 10, 64)
		if err != nil {
			return mcp.RequestId{}, false
		}
		return mcp.NewRequestId(n), true
	}
	return mcp.RequestId{}, false
}
