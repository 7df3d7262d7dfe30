package upstream

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Ids mcp-go cannot give back exactly. mcp-go decodes a request's id into
// a string, or a float64 kept as an int64 when whole: 9007199254740993
// (past 2^53) came back as 9007199254740992, 1.0 as 1, 1e400 was refused
// with a null id, and a string's escapes came back spelt another way. So
// the agent got an answer it could not match to its request (and a
// cancellation of one id could reach another). A request whose id is not
// plain (plainID: what mcp-go writes back as it came) goes through mcp-go
// under a surrogate, and its answer is given the agent's id again, byte
// for byte.

// validRequestID reports whether id, a request's "id" as sent (empty
// when it has none: a notification), is one MCP allows: a string or a
// number. JSON-RPC 2.0 also allows null, but MCP says a request's id
// must not be null, and mcp-go took such a request for a notification:
// it was run and never answered, so the agent waited for ever. A request
// with any other id (null, an object, an array, a boolean) is answered
// with -32600 Invalid Request and never run, over stdio and HTTP alike.
func validRequestID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return true
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// invalidIDText says why a request with an id validRequestID refuses was
// not run, and what to send instead.
func invalidIDText(id json.RawMessage) string {
	kind := "neither a string nor a number"
	switch gjson.ParseBytes(id).Type {
	case gjson.JSON:
		kind = "an object"
		if bytes.HasPrefix(bytes.TrimSpace(id), []byte("[")) {
			kind = "an array"
		}
	case gjson.True, gjson.False:
		kind = "a boolean"
	case gjson.Null:
		kind = "null"
	}
	return "Invalid Request: this request's id is " + kind + ", and an MCP request's id must be a string or a number; it was not run. Send it again with a string or integer id."
}

// surrogatePrefix starts every surrogate id. An agent's own id that
// starts with it is swapped too, so that no id in flight through mcp-go
// is both the agent's and a surrogate.
const surrogatePrefix = "dispatch-id-"

// idSwaps holds the surrogates of the requests being served. An entry
// lives while its request holds one of the in-flight slots
// (--max-in-flight), so there are never more than that.
type idSwaps struct {
	mu   sync.Mutex
	next uint64
	byID map[string]string // idKey of the agent's id -> the surrogate, as JSON
}

// needsSwap reports whether id (a request's, as sent) must go through
// mcp-go under a surrogate.
func needsSwap(id []byte) bool {
	v := gjson.ParseBytes(id)
	if v.Raw != string(id) || !plainID(v) {
		return true
	}
	return v.Type == gjson.String && strings.HasPrefix(v.Str, surrogatePrefix)
}

// swap returns a surrogate for id, which release forgets.
func (s *idSwaps) swap(id json.RawMessage) (surrogate json.RawMessage, release func()) {
	key := idKey(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	surrogate = json.RawMessage(strconv.Quote(surrogatePrefix + strconv.FormatUint(s.next, 10)))
	if s.byID == nil {
		s.byID = map[string]string{}
	}
	s.byID[key] = string(surrogate)
	return surrogate, func() {
		s.mu.Lock()
		if s.byID[key] == string(surrogate) {
			delete(s.byID, key)
		}
		s.mu.Unlock()
	}
}

// surrogateOf is the surrogate of the agent's id, while its request is
// being served.
func (s *idSwaps) surrogateOf(id json.RawMessage) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sur, ok := s.byID[idKey(id)]
	return json.RawMessage(sur), ok
}

// withMember returns the JSON object msg with its top-level member name
// (in params, when inParams) set to value. Other members are kept as
// they were; their order may change.
func withMember(msg []byte, inParams bool, name string, value json.RawMessage) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		return nil, err
	}
	if inParams {
		params, err := withMember(fields["params"], false, name, value)
		if err != nil {
			return nil, err
		}
		fields["params"] = params
	} else {
		fields[name] = value
	}
	return json.Marshal(fields)
}

// answerPrefix starts every answer mcp-go and dispatch encode (the
// fields of mcp.JSONRPCResponse and mcp.JSONRPCError, in order).
const answerPrefix = `{"jsonrpc":"2.0","id":`

// restoreID returns the encoded answer data with the id written as
// encoded (its JSON as encoding/json wrote it) replaced by exact, the
// bytes the agent sent; data that does not start so is returned as it
// is.
func restoreID(data []byte, encoded, exact []byte) []byte {
	if len(exact) == 0 || !bytes.HasPrefix(data, []byte(answerPrefix)) || !bytes.HasPrefix(data[len(answerPrefix):], encoded) {
		return data
	}
	if bytes.Equal(encoded, exact) {
		return data
	}
	rest := data[len(answerPrefix)+len(encoded):]
	out := make([]byte, 0, len(answerPrefix)+len(exact)+len(rest))
	return append(append(append(out, answerPrefix...), exact...), rest...)
}

// swapHTTP is swap for one POST of dispatch serve, whose body holds one
// message, msg as the guard parsed it (parsePosted): a request whose id
// needs a swap goes to mcp-go under a surrogate, and w gives its answer (a
// JSON body, or an event of an SSE stream) the agent's id again; a
// cancellation names the surrogate. ok is false for a cancellation of an
// id mcp-go cannot read exactly and no request being served has: it must
// not reach mcp-go, which would cancel another request whose id reads the
// same. release forgets the surrogate. What parsePosted could not read
// (msg is the zero value) goes to mcp-go as it is, which answers it.
func (s *idSwaps) swapHTTP(w http.ResponseWriter, r *http.Request, body []byte, msg postedMessage) (_ http.ResponseWriter, _ *http.Request, release func(), ok bool) {
	release = func() {}
	var swapped []byte
	switch {
	case msg.Method == "" || len(msg.ID) > 0 && string(msg.ID) != "null":
		if msg.Method == "" || !needsSwap(msg.ID) {
			return w, r, release, true
		}
		var surrogate json.RawMessage
		surrogate, release = s.swap(msg.ID)
		var err error
		if swapped, err = withMember(body, false, "id", surrogate); err != nil {
			release()
			return w, r, func() {}, true
		}
		w = &idRestorer{ResponseWriter: w, from: []byte(answerPrefix + string(surrogate)), to: []byte(answerPrefix + string(msg.ID))}
	case msg.Method == "notifications/cancelled" && len(msg.Params.RequestID) > 0 && needsSwap(msg.Params.RequestID):
		surrogate, found := s.surrogateOf(msg.Params.RequestID)
		if !found {
			return w, r, release, false
		}
		var err error
		if swapped, err = withMember(body, true, "requestId", surrogate); err != nil {
			return w, r, release, false
		}
	default:
		return w, r, release, true
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(swapped))
	r.ContentLength = int64(len(swapped))
	return w, r, release, true
}

// idRestorer writes an answer's id back as the agent sent it. mcp-go
// writes each message (a JSON body, an SSE event) in one Write, starting
// with answerPrefix and the id.
type idRestorer struct {
	http.ResponseWriter
	from, to []byte
}

func (w *idRestorer) Write(p []byte) (int, error) {
	if _, err := w.ResponseWriter.Write(bytes.Replace(p, w.from, w.to, 1)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *idRestorer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *idRestorer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
