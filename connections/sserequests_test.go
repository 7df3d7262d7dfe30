package connections

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
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
// agent has been asked, with now right behind the request; the answer
// then expected is none.
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
			Now    bool   `json:"now"`
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
	request := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{}}`, id, a.Method)
	wait := 5 * time.Second
	if a.Now {
		// One write: the client reads the cancellation with its request.
		request += "\n\nevent: message\ndata: " + fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"test"}}`, id)
	}
	s.events <- request
	if a.Cancel {
		select {
		case <-s.asked:
		case <-time.After(wait):
		}
		s.events <- fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"test"}}`, id)
		wait = time.Second // a cancelled request gets no answer
	}
	if a.Now {
		wait = 3 * time.Second // longer than slowAgent takes to answer
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

// sseAnswers is a legacy SSE server's message endpoint that records the
// answers POSTed to it, as they came.
type sseAnswers struct {
	posted chan string
	srv    *httptest.Server
}

// newTestSSERequests answers requests as a legacy SSE session would,
// POSTing to an sseAnswers through the session's client, whose surrogate
// ids are ids. Its handler answers {"method": METHOD}, but holds a
// request of method "hold" until it is cancelled or times out.
func newTestSSERequests(t *testing.T) (*sseServerRequests, *serverIDs, *sseAnswers) {
	answers := &sseAnswers{posted: make(chan string, 4*MaxServerRequests)}
	answers.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		answers.posted <- string(body)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(answers.srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	client, rt := newHTTPClient(nil, httpLimits{}, nil)
	requests := newSSEServerRequests(ctx, client, map[string]string{"X-Test": "1"}, 10*time.Second)
	requests.endpoint = func() *url.URL {
		u, err := url.Parse(answers.srv.URL + "/message?sessionId=s1")
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	requests.setHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method == "hold" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		if req.Method == "params-size" {
			params, _ := req.Params.(json.RawMessage)
			return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(fmt.Sprintf(`{"size":%d}`, len(params)))), nil
		}
		return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{"method":"`+req.Method+`"}`)), nil
	})
	return requests, &rt.ids, answers
}

// next is the next answer posted, or "" when none comes within a while.
func (a *sseAnswers) next(wait time.Duration) string {
	select {
	case body := <-a.posted:
		return body
	case <-time.After(wait):
		return ""
	}
}

// On a legacy SSE server's stream every request is taken out (mcp-go
// never sees it) and answered to its id as written; answers,
// notifications and the endpoint pass byte for byte; however the stream
// is cut into reads. A request whose id comes after more than
// MaxHeldServerEvent is taken too: over legacy SSE it is held up to
// MaxHeldSSERequest.
func TestSSEIDBody_TakesLegacyRequestsOut(t *testing.T) {
	bigParams := `{"blob":"` + strings.Repeat("x", MaxHeldServerEvent) + `"}`
	for _, tc := range []struct {
		name, in, passes string
		answers          []string
	}{
		{"endpoint", "event: endpoint\ndata: /message?sessionId=s1\n\n", "event: endpoint\ndata: /message?sessionId=s1\n\n", nil},
		{"answer", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", nil},
		{"notification", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7}}\r\n\r\n",
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7}}\r\n\r\n", nil},
		{"ping", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n\n", "",
			[]string{`{"jsonrpc":"2.0","id":7,"result":{}}`}},
		{"id last, on a second data line", "event: message\r\ndata:{\"method\":\"roots/list\",\r\ndata:  \"id\" : -0 }\r\n\r\n", "",
			[]string{`{"jsonrpc":"2.0","id":-0,"result":{"method":"roots/list"}}`}},
		{"id past MaxHeldServerEvent", "data: {\"method\":\"sampling/createMessage\",\"params\":" + bigParams + ",\"id\":\"a<b\"}\n\n", "",
			[]string{`{"jsonrpc":"2.0","id":"a<b","result":{"method":"sampling/createMessage"}}`}},
		{"a request between answers",
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"roots/list\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
			[]string{`{"jsonrpc":"2.0","id":2,"result":{"method":"roots/list"}}`}},
		{"taken while its data lines go on", "data: {\"id\":3,\"method\":\"params-size\",\"params\":{\"a\":\"" + strings.Repeat("y", 2000) + "\",\ndata: \"b\":1}}\n\n", "",
			[]string{`{"jsonrpc":"2.0","id":3,"result":{"size":2015}}`}},
		{"stream ends in the request", "data: {\"id\":1.0,\"method\":\"ping\"}", "", []string{`{"jsonrpc":"2.0","id":1.0,"result":{}}`}},
	} {
		for _, chunk := range []int{1, 13, 4096, len(tc.in)} {
			if chunk == 1 && len(tc.in) > 1<<16 {
				continue
			}
			requests, ids, answers := newTestSSERequests(t)
			body := &sseIDBody{ReadCloser: io.NopCloser(&chunkReader{data: []byte(tc.in), chunk: chunk}), ids: ids, requests: requests, lineStart: true}
			got, err := io.ReadAll(body)
			if err != nil || string(got) != tc.passes {
				t.Errorf("%s, read %d bytes at a time: passed on (%v)\n%.300q\nwant\n%.300q", tc.name, chunk, err, got, tc.passes)
			}
			for _, want := range tc.answers {
				if got := answers.next(5 * time.Second); got != want {
					t.Errorf("%s, read %d bytes at a time: answered %s, want %s", tc.name, chunk, got, want)
				}
			}
			if extra := answers.next(20 * time.Millisecond); extra != "" {
				t.Errorf("%s, read %d bytes at a time: answered %s too", tc.name, chunk, extra)
			}
		}
	}
}

// A legacy SSE server has at most MaxServerRequests requests relayed at
// once: the next is refused at once with an error naming the limit, a
// ping is still answered; a request over MaxHeldSSERequest is refused
// naming that limit, and an event still undecided past it is dropped.
func TestSSEServerRequests_Bounded(t *testing.T) {
	requests, ids, answers := newTestSSERequests(t)
	var stream strings.Builder
	for i := range MaxServerRequests + 1 {
		fmt.Fprintf(&stream, "data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"hold\"}\n\n", i)
	}
	stream.WriteString("data: {\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n\n")
	huge := strings.Repeat("x", MaxHeldSSERequest)
	fmt.Fprintf(&stream, "data: {\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"sampling/createMessage\",\"params\":{\"blob\":%q}}\n\n", huge)
	fmt.Fprintf(&stream, "data: {\"jsonrpc\":\"2.0\",\"params\":{\"blob\":%q},\"id\":\"late\",\"method\":\"roots/list\"}\n\n", huge)
	body := &sseIDBody{ReadCloser: io.NopCloser(strings.NewReader(stream.String())), ids: ids, requests: requests, lineStart: true}
	got, err := io.ReadAll(body)
	if err != nil || len(got) != 0 {
		t.Fatalf("passed on %d bytes (%v), want none", len(got), err)
	}
	want := map[string]string{
		fmt.Sprint(MaxServerRequests): "MaxServerRequests",
		`"p"`:                         `"result":{}`,
		`"big"`:                       "MaxHeldSSERequest",
	}
	for range len(want) {
		answer := answers.next(5 * time.Second)
		var msg struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(answer), &msg); err != nil {
			t.Fatalf("answer %q: %v", answer, err)
		}
		if w, ok := want[string(msg.ID)]; !ok || !strings.Contains(answer, w) {
			t.Errorf("answered %.300s; want the answers to ids %v", answer, want)
		}
		delete(want, string(msg.ID))
	}
	if extra := answers.next(50 * time.Millisecond); extra != "" {
		t.Errorf("answered %.300s too (the held requests must wait, the undecided event be dropped)", extra)
	}
}

// A cancellation right behind its request on the stream reaches it
// too: the agent's request is cancelled and the server gets no answer.
// Before, the request might not be tracked yet when its cancellation
// was read, and the agent kept being asked.
func TestConn_LegacySSEServerCancelsItsRequestAtOnce(t *testing.T) {
	_, url := startLegacySSEServer(t)
	c := testConn(t, ServerConfig{Name: "legacy", Transport: TransportSSE, URL: url})
	agent := &slowAgent{}
	ctx := WithUpstream(context.Background(), agent)
	const requests = 5
	for i := range requests {
		args, err := json.Marshal(map[string]any{"id": fmt.Sprint(100 + i), "method": "roots/list", "now": true})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := c.Call(ctx, CallRequest{Tool: "ask", Arguments: args, Timeout: 20 * time.Second})
		if err != nil || !strings.Contains(string(raw), "no answer") {
			t.Errorf("request %d cancelled at once: %s (%v), want no answer", i, raw, err)
		}
	}
	if asked, cancelled := agent.counts(); cancelled != asked {
		t.Errorf("the agent was asked %d times and saw %d cancellations, want all cancelled", asked, cancelled)
	}
}

// slowAgent answers roots/list after a second, unless the request is
// cancelled first; it counts both.
type slowAgent struct {
	mu               sync.Mutex
	asked, cancelled int
}

func (a *slowAgent) ClientCapabilities() mcp.ClientCapabilities {
	return (&idAgent{}).ClientCapabilities()
}

func (a *slowAgent) RequestClient(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
	a.mu.Lock()
	a.asked++
	a.mu.Unlock()
	select {
	case <-ctx.Done():
		a.mu.Lock()
		a.cancelled++
		a.mu.Unlock()
		return nil, ctx.Err()
	case <-time.After(time.Second):
		return json.RawMessage(`{"roots":[]}`), nil
	}
}

func (a *slowAgent) NotifyClient(string, any) bool { return true }

func (a *slowAgent) counts() (asked, cancelled int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asked, a.cancelled
}
