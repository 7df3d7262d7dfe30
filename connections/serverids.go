package connections

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// The ids of a streamable HTTP server's requests, kept exactly. mcp-go's
// client decodes a server's request id into a string, or a float64 kept
// as an int64 when whole, and writes its answer to what it decoded:
// 9007199254740993 (past 2^53) was answered to 9007199254740992, 1.0 to
// 1, -0 to 0, "a<b&c>" to "a\u003cb\u0026c\u003e", and a request with id
// 1e400 was dropped as undecodable and never answered. (Over stdio
// dispatch reads and writes the server's messages itself and keeps ids
// byte for byte.) So httpRoundTripper gives mcp-go such a request under
// a surrogate id of dispatch's, a string it keeps exactly, writes the
// server's id back into the answer mcp-go posts, and makes the server's
// notifications/cancelled of that request name the surrogate.

// serverSurrogatePrefix starts every surrogate of a server's request id.
// A server's own id that starts with it is swapped too, so that no id
// mcp-go sees is both the server's and a surrogate.
const serverSurrogatePrefix = "dispatch-srv-"

// surrogateAnswerHead starts the body mcp-go posts to answer a request
// under a surrogate (transport.JSONRPCResponse's fields, in order).
const surrogateAnswerHead = `{"jsonrpc":"2.0","id":"` + serverSurrogatePrefix

// maxServerIDSwaps bounds the surrogates remembered per session: those
// of the server's requests pending, each forgotten when its answer is
// posted or the server cancels it. A pending request is never forgotten
// (its answer would go to the server under the surrogate): past the
// bound a new request that needs a surrogate is refused (serverIDsFull).
// dispatch answers most requests at once (past MaxServerRequests, with
// an error), so only a server that asks this many at once, never
// cancelling them, meets it.
const maxServerIDSwaps = 256

// serverIDsFullCode and serverIDsFullMessage are the error dispatch
// answers a request with when maxServerIDSwaps requests wait already.
const (
	serverIDsFullCode    = -32603 // internal error, as for MaxServerRequests
	serverIDsFullMessage = "dispatch is busy: 256 requests of this server with ids mcp-go cannot keep exactly already wait for their answer (maxServerIDSwaps); send it again once one is answered or cancelled"
)

// maxPlainIDBytes bounds the ids given to mcp-go as they came.
const maxPlainIDBytes = 128

// serverIDs are one session's surrogates of server request ids.
type serverIDs struct {
	mu    sync.Mutex
	next  uint64
	byNum map[uint64]serverID // by the surrogate's number
	byKey map[string]uint64   // by idKey of the server's id
}

type serverID struct {
	exact []byte // as the server wrote it
	key   string
}

// surrogateFor returns the surrogate, as JSON, of exact, a request id as
// the server wrote it; ok is false when maxServerIDSwaps are pending.
func (s *serverIDs) surrogateFor(exact []byte) (surrogate []byte, ok bool) {
	key := serverIDKey(exact)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byNum == nil {
		s.byNum, s.byKey = map[uint64]serverID{}, map[string]uint64{}
	}
	if len(s.byNum) >= maxServerIDSwaps {
		return nil, false
	}
	s.next++
	s.byNum[s.next] = serverID{exact: append([]byte(nil), exact...), key: key}
	s.byKey[key] = s.next
	return surrogateJSON(s.next), true
}

// serverIDsFull is the error answer, as JSON, to a request with id exact
// refused as maxServerIDSwaps are pending.
func serverIDsFull(exact []byte) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, exact, serverIDsFullCode, serverIDsFullMessage)
}

func surrogateJSON(n uint64) []byte {
	return append(strconv.AppendUint(append([]byte(`"`), serverSurrogatePrefix...), n, 10), '"')
}

func (s *serverIDs) forget(n uint64, id serverID) {
	delete(s.byNum, n)
	if s.byKey[id.key] == n {
		delete(s.byKey, id.key)
	}
}

// cancelled is the surrogate, as JSON, of a request id the server wrote
// and now cancels, while one is remembered; it is forgotten, as the
// server expects no answer (one dispatch sends all the same goes to it
// under the surrogate, which it ignores as an id it never sent).
func (s *serverIDs) cancelled(exact []byte) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.byKey[serverIDKey(exact)]
	if !ok {
		return nil, false
	}
	s.forget(n, s.byNum[n])
	return surrogateJSON(n), true
}

// answered returns the server's id of surrogate number n, and forgets it.
func (s *serverIDs) answered(n uint64) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.byNum[n]
	if ok {
		s.forget(n, id)
	}
	return id.exact, ok
}

// mayBeSwapped is false for a whole message that is neither a request
// nor a cancellation, told quickly: it names no "id", nor "cancelled",
// and has no escape that could spell either. Most of a server's events
// are notifications of its progress or logs.
func mayBeSwapped(data []byte) bool {
	return bytes.Contains(data, []byte(`"id"`)) || bytes.Contains(data, []byte("cancelled")) || bytes.IndexByte(data, '\\') >= 0
}

// serverIDKey is a request id in one form for finding it again: a string
// decoded (a cancellation may spell it otherwise), a number as written
// (9007199254740993 and 9007199254740992 are two requests).
func serverIDKey(id []byte) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	return "n" + string(id)
}

// needsSurrogate reports whether mcp-go would not give id (a request's,
// as the server wrote it) back exactly: anything but an integer that
// survives a float64, written plainly, or a string of printable ASCII
// that encoding/json writes as it is and that is not one of our
// surrogates.
func needsSurrogate(id []byte) bool {
	if len(id) == 0 || len(id) > maxPlainIDBytes {
		return true
	}
	if id[0] == '"' {
		if len(id) < 2 || id[len(id)-1] != '"' || bytes.HasPrefix(id[1:], []byte(serverSurrogatePrefix)) {
			return true
		}
		for _, c := range id[1 : len(id)-1] {
			if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' || c == '<' || c == '>' || c == '&' {
				return true
			}
		}
		return false
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
	}
	// -0 comes back as 0, 007 is no JSON number, and past 15 digits a
	// float64 may not hold it.
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(id) > 1) {
		return true
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return true
		}
	}
	return false
}

// restoreAnswerID returns req, or, when its body is mcp-go's answer to a
// request under a surrogate, a copy of req whose body answers the
// server's id as written. It reads the body through GetBody, which
// mcp-go's requests (bytes in memory) have, so that other requests are
// sent untouched.
func (s *serverIDs) restoreAnswerID(req *http.Request) *http.Request {
	if req.Method != http.MethodPost || req.GetBody == nil || req.ContentLength < int64(len(surrogateAnswerHead)) {
		return req
	}
	body, err := req.GetBody()
	if err != nil {
		return req
	}
	defer body.Close()
	head := make([]byte, len(surrogateAnswerHead))
	if _, err := io.ReadFull(body, head); err != nil || string(head) != surrogateAnswerHead {
		return req
	}
	rest, err := io.ReadAll(body)
	end := bytes.IndexByte(rest, '"')
	if err != nil || end < 0 {
		return req
	}
	n, err := strconv.ParseUint(string(rest[:end]), 10, 64)
	if err != nil {
		return req
	}
	exact, ok := s.answered(n)
	if !ok {
		return req
	}
	const idAt = len(`{"jsonrpc":"2.0","id":`)
	answer := make([]byte, 0, idAt+len(exact)+len(rest)-end)
	answer = append(append(append(answer, surrogateAnswerHead[:idAt]...), exact...), rest[end+1:]...)
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(answer))
	out.ContentLength = int64(len(answer))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(answer)), nil }
	if req.Body != nil {
		req.Body.Close() // a RoundTripper closes the body it was given
	}
	return out
}

// swapEvent looks at data, the data so far of one SSE event (final: all
// of it), which holds one server message. decided is false while more
// of it is needed to tell. Otherwise, when something is to change (ok),
// data[start:end] is to be replaced by replacement: a request's id that
// needs one by a surrogate, or a cancellation's requestId by the
// surrogate of the request it names. An answer (a "result" or "error"
// member) is decided as it starts. A request that needs a surrogate when
// none is free is to be refused: ok is false and refusal is the answer.
func (s *serverIDs) swapEvent(data []byte, final bool) (start, end int, replacement []byte, decided, ok bool, refusal []byte) {
	if final && !mayBeSwapped(data) {
		return 0, 0, nil, true, false, nil
	}
	m := scanMembers(data, "id", "method", "params", "result", "error")
	id, method, params := m.members[0], m.members[1], m.members[2]
	switch {
	case m.members[3].seen || m.members[4].seen:
		return 0, 0, nil, true, false, nil
	case method.complete() && id.complete():
	case !final && !m.done:
		return 0, 0, nil, false, false, nil
	}
	if !method.complete() {
		return 0, 0, nil, true, false, nil
	}
	if id.complete() && string(data[id.start:id.end]) != "null" {
		exact := data[id.start:id.end]
		if !needsSurrogate(exact) {
			return 0, 0, nil, true, false, nil
		}
		surrogate, free := s.surrogateFor(exact)
		if !free {
			return 0, 0, nil, true, false, serverIDsFull(exact)
		}
		return id.start, id.end, surrogate, true, true, nil
	}
	if string(data[method.start:method.end]) != `"notifications/cancelled"` || !params.complete() {
		return 0, 0, nil, true, false, nil
	}
	p := data[params.start:params.end]
	requestID := scanMembers(p, "requestId").members[0]
	if !requestID.complete() {
		return 0, 0, nil, true, false, nil
	}
	exact := p[requestID.start:requestID.end]
	if !needsSurrogate(exact) {
		return 0, 0, nil, true, false, nil
	}
	surrogate, known := s.cancelled(exact)
	if !known {
		return 0, 0, nil, true, false, nil
	}
	return params.start + requestID.start, params.start + requestID.end, surrogate, true, true, nil
}
