package connections

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// legacySSEServer is an MCP server of the 2024-11-05 HTTP+SSE transport,
// written by hand as mcp-go's SSE server sends no requests to the client:
// GET /sse is its event stream, which first names the message endpoint;
// the client POSTs its messages there, and every answer of the server's
// comes on the stream. Its tool ask {id, method, cancel} sends the
// request method on the stream with id as written ("call": the id of the
// tools/call itself, as the client wrote it), and answers the call with
// "answered to id ID with ANSWER", the client's answer as it came ("no
// answer" when none came). With cancel it cancels the request once the
// agent has been asked, and the answer then expected is none.
type legacySSEServer struct {
	asked  chan struct{} // the agent was asked (idAgent)
	events chan string   // the data of events to send on the stream

	mu      sync.Mutex
	answers map[string]chan json.RawMessage // the client's answers, by id as written
}

func startLegacySSEServer(t *testing.T) (*legacySSEServer, string) {
	s := &legacySSEServer{asked: make(chan struct{}, 1), events: make(chan string, 64), answers: map[string]chan json.RawMessage{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/sse"
}

func (s *legacySSEServer) answerTo(id string) chan json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.answers[id]
	if ch == nil {
		ch = make(chan json.RawMessage, 1)
		s.answers[id] = ch
	}
	return ch
}

func (s *legacySSEServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		w.Header().Set("Content-Type", "text/event-stream")
		flusher := w.(http.Flusher)
		fmt.Fprint(w, "event: endpoint\ndata: /message?sessionId=s1\n\n")
		flusher.Flush()
		for {
			select {
			case data := <-s.events:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", data)
				flusher.Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == http.MethodPost && r.URL.Path == "/message":
		s.message(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *legacySSEServer) message(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var msg wireMessage
	if err != nil || json.Unmarshal(body, &msg) != nil {
		http.Error(w, "bad message", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	result := func(result string) {
		s.events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch {
	case msg.Method == "" && len(msg.ID) > 0: // an answer of the client's
		select {
		case s.answerTo(string(msg.ID)) <- json.RawMessage(body):
		default:
		}
	case strings.HasPrefix(msg.Method, "notifications/"):
	case msg.Method == "initialize":
		result(`{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"legacy-sse","version":"1"}}`)
	case msg.Method == "tools/list":
		result(`{"tools":[{"name":"ask","inputSchema":{"type":"object"}}]}`)
	case msg.Method == "ping":
		result(`{}`)
	case msg.Method == "tools/call":
		go s.ask(r.Context(), msg)
	default:
		s.events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, msg.ID)
	}
}

func (s *legacySSEServer) ask(ctx context.Context, call wireMessage) {
	var p struct {
		Arguments struct {
			ID     string `json:"id"`
			Method string `json:"method"`
			Cancel bool   `json:"cancel"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(call.Params, &p); err != nil {
		return
	}
	a := p.Arguments
	id := a.ID
	if id == "call" {
		id = string(call.ID)
	}
	s.events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{}}`, id, a.Method)
	wait := 5 * time.Second
	if a.Cancel {
		select {
		case <-s.asked:
		case <-time.After(wait):
		}
		s.events <- fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"test"}}`, id)
		wait = time.Second // a cancelled request gets no answer
	}
	text := "no answer"
	select {
	case answer := <-s.answerTo(id):
		text = "answered to id " + id + " with " + string(answer)
	case <-time.After(wait):
	}
	quoted, _ := json.Marshal(text)
	s.events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, call.ID, quoted)
}

// A legacy SSE server's requests are answered, to their ids as the
// server wrote them, with a POST to its message endpoint: ping by
// dispatch, roots/list by the agent. Before, mcp-go's SSE client
// answered none of them (every call here ended "no answer").
func TestConn_LegacySSEServerRequestsAnswered(t *testing.T) {
	_, url := startLegacySSEServer(t)
	c := testConn(t, ServerConfig{Name: "legacy", Transport: TransportSSE, URL: url})
	ctx := WithUpstream(context.Background(), &idAgent{})
	for _, tc := range []struct{ method, answer string }{
		{"ping", `"result":{}`},
		{"roots/list", `"result":{"roots":[{"uri":"file:///tmp"}]}`},
	} {
		for _, id := range append([]string{`7`, `"req-1"`}, hardServerIDs...) {
			got := callAsk(t, ctx, c, id, tc.method, false)
			want := `answered to id ` + id + ` with {"jsonrpc":"2.0","id":` + id + `,` + tc.answer + `}`
			if got != want {
				t.Errorf("%s with id %s: %s, want %s", tc.method, id, got, want)
			}
		}
	}
}

// A request of the server's whose id is that of dispatch's call in
// flight is the server's request, not the call's answer. Before, mcp-go
// took it for the answer: the call ended at once with an empty result,
// and the real answer was dropped.
func TestConn_LegacySSEServerRequestIsNoAnswer(t *testing.T) {
	_, url := startLegacySSEServer(t)
	c := testConn(t, ServerConfig{Name: "legacy", Transport: TransportSSE, URL: url})
	ctx := WithUpstream(context.Background(), &idAgent{})
	for _, method := range []string{"ping", "roots/list", "sampling/createMessage"} {
		args, err := json.Marshal(map[string]any{"id": "call", "method": method})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := c.Call(ctx, CallRequest{Tool: "ask", Arguments: args, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatalf("%s with the call's id: %v", method, err)
		}
		if !strings.Contains(string(raw), `answered to id `) {
			t.Errorf("%s with the call's id: the call's result is %s, want the server's answer to it", method, raw)
		}
	}
}

// A legacy SSE server's cancellation of its request reaches it: the
// agent's request is cancelled and the server gets no answer.
func TestConn_LegacySSEServerCancelsItsRequest(t *testing.T) {
	server, url := startLegacySSEServer(t)
	c := testConn(t, ServerConfig{Name: "legacy", Transport: TransportSSE, URL: url})
	agent := &idAgent{server: &idAskingServer{asked: server.asked}, hold: true}
	ctx := WithUpstream(context.Background(), agent)
	for i, id := range []string{`9007199254740993`, `"a<b&c>"`, `7`} {
		if got := callAsk(t, ctx, c, id, "roots/list", true); got != "no answer" {
			t.Errorf("cancelled request with id %s: %s, want no answer", id, got)
		}
		agent.mu.Lock()
		cancelled := agent.cancelled
		agent.mu.Unlock()
		if cancelled != i+1 {
			t.Errorf("after cancelling id %s the agent saw %d cancellations, want %d", id, cancelled, i+1)
		}
	}
}
