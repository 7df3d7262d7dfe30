package upstream

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
)

// maxPendingAnswers bounds the ids a session's pendingAnswers remembers:
// a server's requests in flight to one agent are far fewer; past it the
// oldest is forgotten (its answer then is dropped as unknown).
const maxPendingAnswers = 1024

// pendingAnswers are the ids of the requests mcp-go wrote to a session
// (sampling, elicitation, roots), whose answers it waits for. An answer
// with any other id (to mcp-go's keep-alive pings, which it does not wait
// for, or a duplicate) is answered 202 by the guard and dropped: mcp-go
// would answer 400 and log an ERROR with the session's id each time.
type pendingAnswers struct {
	mu    sync.Mutex
	ids   map[int64]struct{}
	order []int64 // oldest first
}

func (p *pendingAnswers) add(id int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = make(map[int64]struct{})
	}
	if _, ok := p.ids[id]; ok {
		return
	}
	for len(p.order) >= maxPendingAnswers {
		delete(p.ids, p.order[0])
		p.order = p.order[1:]
	}
	p.ids[id] = struct{}{}
	p.order = append(p.order, id)
}

// take says whether id is awaited, and forgets it.
func (p *pendingAnswers) take(id int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.ids[id]; !ok {
		return false
	}
	delete(p.ids, id)
	for i, o := range p.order {
		if o == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	return true
}

// sseRequestPrefix starts every request mcp-go writes to a stream: one
// SSE event per Write, the id (a number) right after jsonrpc.
var (
	sseRequestPrefix = []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":")
	sseRequestKeys   = [][]byte{[]byte(`,"params":`), []byte(`,"method":`)}
	ssePingSuffix    = []byte(`"method":"ping"}` + "\n\n")
)

// requestID is the id of the server-to-client request event is, other
// than a ping; false for anything else (a result, a notification, part
// of one). It looks only at the event's ends: results can be large.
func requestID(event []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(event, sseRequestPrefix)
	if !ok || bytes.HasSuffix(event, ssePingSuffix) {
		return 0, false
	}
	end := 0
	for end < len(rest) && end < 20 && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 {
		return 0, false
	}
	isRequest := false
	for _, key := range sseRequestKeys {
		isRequest = isRequest || bytes.HasPrefix(rest[end:], key)
	}
	if !isRequest {
		return 0, false
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return id, err == nil
}

// answerWatch is a session's stream as mcp-go writes it: the ids of the
// requests it sends the agent are noted as pending.
type answerWatch struct {
	http.ResponseWriter
	pending *pendingAnswers
}

func (a answerWatch) Write(p []byte) (int, error) {
	if id, ok := requestID(p); ok {
		a.pending.add(id)
	}
	return a.ResponseWriter.Write(p)
}

// Flush keeps the stream a stream: mcp-go streams only to a Flusher.
func (a answerWatch) Flush() {
	if f, ok := a.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (a answerWatch) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// awaits says whether the JSON-RPC id of an answer the agent sent is one
// mcp-go waits for, and forgets it.
func (s *httpSession) awaits(rawID []byte) bool {
	id, err := strconv.ParseInt(string(bytes.TrimSpace(rawID)), 10, 64)
	return err == nil && s.answers.take(id)
}
