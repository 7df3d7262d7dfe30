package upstream

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
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

	// What a relay needs to learn the id mcp-go gave its request (see
	// relayIDs): the turn, the ticket waiting for its request to be
	// written, and per method the requests written late, once their
	// relay had ended.
	turn    chan struct{}
	waiting *relayTicket
	orphans map[string]int
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

// Learning the id of a relayed request (relayIDs). mcp-go gives a
// server-to-client request an id of its own and does not say which: its
// RequestSampling, RequestElicitation and ListRoots return only the
// answer. The agent must be told that id when the server cancels the
// request (notifications/cancelled names the request it cancels), so
// dispatch reads it off the session's streams, where answerWatch sees each
// request written. A session's relays take turns: one at a time, from
// handing its request to mcp-go until it is written (or the relay ended),
// so the request written is the one of the relay whose turn it is. mcp-go
// writes a session's requests of a method in the order they were handed
// over; a relay that ended before its request was written (no listening
// stream then) leaves it queued in mcp-go, to be written when a stream
// opens, ahead of any later one: it is counted, and skipped then.

// relayTicket is one relay's request: its id, once written.
type relayTicket struct {
	method string
	id     int64
	sent   bool
}

// awaitTurn waits for the session's turn to hand a request of method to
// mcp-go; false when ctx ended first. The turn is the ticket's until its
// request is written or settle is called.
func (p *pendingAnswers) awaitTurn(ctx context.Context, method string) (*relayTicket, bool) {
	p.mu.Lock()
	if p.turn == nil {
		p.turn = make(chan struct{}, 1)
	}
	turn := p.turn
	p.mu.Unlock()
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return nil, false
	}
	ticket := &relayTicket{method: method}
	p.mu.Lock()
	p.waiting = ticket
	p.mu.Unlock()
	return ticket, true
}

// written notes that mcp-go wrote a request of method with id: the
// waiting ticket's, unless a request of an ended relay was due first.
func (p *pendingAnswers) written(id int64, method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.orphans[method] > 0 {
		p.orphans[method]--
		return
	}
	if t := p.waiting; t != nil && t.method == method {
		t.id, t.sent = id, true
		p.waiting = nil
		<-p.turn
	}
}

// settle ends ticket's relay: its id if its request was written. One that
// was not but may still be queued in mcp-go (maybeQueued) is counted, so
// that its late write is not taken for another relay's.
func (p *pendingAnswers) settle(ticket *relayTicket, maybeQueued bool) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ticket.sent {
		return ticket.id, true
	}
	if p.waiting == ticket {
		p.waiting = nil
		<-p.turn
	}
	if maybeQueued && p.orphans[ticket.method] < maxPendingAnswers {
		if p.orphans == nil {
			p.orphans = make(map[string]int)
		}
		p.orphans[ticket.method]++
	}
	return 0, false
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

// relayedMethodSuffixes end the events of the requests dispatch relays:
// mcp-go encodes a request's method after its params.
var relayedMethodSuffixes = func() map[string][]byte {
	out := map[string][]byte{}
	for _, m := range []string{string(mcp.MethodSamplingCreateMessage), string(mcp.MethodElicitationCreate), string(mcp.MethodListRoots)} {
		out[m] = []byte(`"method":"` + m + `"}` + "\n\n")
	}
	return out
}()

// relayedMethod is the method of the request event, if dispatch relays it.
func relayedMethod(event []byte) (string, bool) {
	for method, suffix := range relayedMethodSuffixes {
		if bytes.HasSuffix(event, suffix) {
			return method, true
		}
	}
	return "", false
}

// answerWatch is a session's stream as mcp-go writes it: the ids of the
// requests it sends the agent are noted as pending, and given to the
// relay waiting for its request's (see relayTicket).
type answerWatch struct {
	http.ResponseWriter
	pending *pendingAnswers
}

func (a answerWatch) Write(p []byte) (int, error) {
	if id, ok := requestID(p); ok {
		a.pending.add(id)
		if method, relayed := relayedMethod(p); relayed {
			a.pending.written(id, method)
		}
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
