package connections

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// hardServerIDs are request ids mcp-go's client did not give back as a
// server wrote them: past 2^53, whole but not written as an integer, out
// of float64's range, negative zero, not whole, and strings encoding/json
// writes otherwise, or that look like dispatch's surrogates.
var hardServerIDs = []string{
	`9007199254740993`, `1.0`, `1e400`, `-0`, `1.5`, `12345678901234567890123`,
	`"a<b&c>"`, `"\u00e9t\u00e9"`, `"dispatch-srv-1"`,
}

// idAskingServer is a streamable HTTP MCP server written by hand, as mcp-go's
// servers only ever write small integer ids: its tool ask {id, method,
// cancel} sends the request method, with id as written, on the call's
// response stream, and answers with the id the client's answer to it came
// back to, as written ("no answer" when none came). With cancel it
// cancels the request (notifications/cancelled naming id) once the agent
// has been asked, and the answer then expected is none.
type idAskingServer struct {
	asked chan struct{} // the agent was asked (idAgent)

	mu      sync.Mutex
	answers map[string]chan json.RawMessage // by the id asked, as written
}

type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func startIDAskingServer(t *testing.T) (*idAskingServer, string) {
	s := &idAskingServer{asked: make(chan struct{}, 1), answers: map[string]chan json.RawMessage{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/mcp"
}

// answerTo is where the client's answer to the request with id goes.
// Two ids alike but for their spelling are two requests: the map is keyed
// by what the server wrote.
func (s *idAskingServer) answerTo(id string) chan json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.answers[id]
	if ch == nil {
		ch = make(chan json.RawMessage, 1)
		s.answers[id] = ch
	}
	return ch
}

func (s *idAskingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	var msg wireMessage
	if err != nil || json.Unmarshal(body, &msg) != nil {
		http.Error(w, "bad message", http.StatusBadRequest)
		return
	}
	w.Header().Set("Mcp-Session-Id", "ids-session")
	result := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch {
	case msg.Method == "" && len(msg.ID) > 0: // an answer of the client's
		// Kept exactly as the client wrote it: json.RawMessage is.
		var answer struct{ ID json.RawMessage }
		if json.Unmarshal(body, &answer) == nil {
			// Which request it answers is found by reading its id the
			// strict way: as written.
			select {
			case s.answerTo(string(answer.ID)) <- answer.ID:
			default:
			}
		}
		w.WriteHeader(http.StatusAccepted)
	case strings.HasPrefix(msg.Method, "notifications/"):
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "initialize":
		result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"ids","version":"1"}}`)
	case msg.Method == "tools/list":
		result(`{"tools":[{"name":"ask","inputSchema":{"type":"object"}}]}`)
	case msg.Method == "ping":
		result(`{}`)
	case msg.Method == "tools/call":
		s.ask(w, r, msg)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, msg.ID)
	}
}

func (s *idAskingServer) ask(w http.ResponseWriter, r *http.Request, call wireMessage) {
	var p struct {
		Arguments struct {
			ID     string `json:"id"`
			Method string `json:"method"`
			Cancel bool   `json:"cancel"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(call.Params, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a := p.Arguments
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":%q,\"params\":{}}\n\n", a.ID, a.Method)
	flusher.Flush()
	wait := 5 * time.Second
	if a.Cancel {
		select {
		case <-s.asked:
		case <-time.After(wait):
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%s,\"reason\":\"test\"}}\n\n", a.ID)
		flusher.Flush()
		wait = time.Second // a cancelled request gets no answer
	}
	text := "no answer"
	select {
	case id := <-s.answerTo(a.ID):
		text = "answered to id " + string(id)
	case <-time.After(wait):
	case <-r.Context().Done():
		return
	}
	quoted, _ := json.Marshal(text)
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%s}]}}\n\n", call.ID, quoted)
	flusher.Flush()
}

// idAgent is an agent session that declares roots: it answers roots/list
// with one root, or, when hold is set, waits until the request is
// cancelled and records that it was.
type idAgent struct {
	server *idAskingServer
	hold   bool

	mu        sync.Mutex
	cancelled int
}

func (a *idAgent) ClientCapabilities() mcp.ClientCapabilities {
	return mcp.ClientCapabilities{Roots: &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{}}
}

func (a *idAgent) RequestClient(ctx context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	if !a.hold {
		return json.RawMessage(`{"roots":[{"uri":"file:///tmp"}]}`), nil
	}
	a.server.asked <- struct{}{}
	select {
	case <-ctx.Done():
		a.mu.Lock()
		a.cancelled++
		a.mu.Unlock()
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		return json.RawMessage(`{"roots":[]}`), nil
	}
}

func (a *idAgent) NotifyClient(string, any) bool { return true }

// callAsk calls the server's ask tool and returns its text.
func callAsk(t *testing.T, ctx context.Context, c *Conn, id, method string, cancel bool) string {
	t.Helper()
	args, err := json.Marshal(map[string]any{"id": id, "method": method, "cancel": cancel})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.Call(ctx, CallRequest{Tool: "ask", Arguments: args, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("ask %s with id %s: %v", method, id, err)
	}
	var result struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &result); err != nil || len(result.Content) != 1 {
		t.Fatalf("ask result %s: %v", raw, err)
	}
	return result.Content[0].Text
}

// A streamable HTTP server's requests are answered to their ids as the
// server wrote them: ping (dispatch answers it) and roots/list (the agent
// does). Before: 9007199254740993 was answered to 9007199254740992, 1.0
// to 1, -0 to 0, "a<b&c>" to "a\u003cb\u0026c\u003e", and a request with
// id 1e400 was dropped as undecodable, never answered.
func TestConn_HTTPServerRequestsAnsweredToTheirExactIDs(t *testing.T) {
	server, url := startIDAskingServer(t)
	c := testConn(t, ServerConfig{Name: "ids", Transport: TransportHTTP, URL: url})
	ctx := WithUpstream(context.Background(), &idAgent{server: server})
	for _, method := range []string{"ping", "roots/list"} {
		for _, id := range hardServerIDs {
			if got, want := callAsk(t, ctx, c, id, method, false), "answered to id "+id; got != want {
				t.Errorf("%s with id %s: %s, want %s", method, id, got, want)
			}
		}
	}
}

// A server's cancellation of its request with an id dispatch answers
// under a surrogate reaches that request: the agent's request is
// cancelled and the server gets no answer, as for any other id.
func TestConn_HTTPServerCancelsItsRequestByExactID(t *testing.T) {
	server, url := startIDAskingServer(t)
	c := testConn(t, ServerConfig{Name: "ids", Transport: TransportHTTP, URL: url})
	agent := &idAgent{server: server, hold: true}
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

// An SSE stream passes through byte for byte but for the ids of the
// server's requests that need a surrogate, and the requestId of a
// cancellation of one; however the stream is cut into reads.
func TestSSEIDBody(t *testing.T) {
	bigParams := `{"blob":"` + strings.Repeat("x", MaxHeldServerEvent) + `"}`
	for _, tc := range []struct{ name, in, want string }{
		{"answer", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1e400,\"result\":{}}\n\n", ""},
		{"plain request", "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n\n", ""},
		{"notification", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1e400}}\r\n\r\n", ""},
		{"hard id", "id: 3\ndata: {\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}\n\n",
			"id: 3\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"dispatch-srv-1\",\"method\":\"ping\"}\n\n"},
		{"id last, on a second data line", "data:{\"method\":\"roots/list\",\r\ndata:  \"id\" : -0 }\r\n\r\n",
			"data:{\"method\":\"roots/list\",\r\ndata:  \"id\" : \"dispatch-srv-1\" }\r\n\r\n"},
		{"stream ends in the event", "data: {\"id\":\"a<b\",\"method\":\"ping\"}", "data: {\"id\":\"dispatch-srv-1\",\"method\":\"ping\"}"},
		{"escaped keys", "data: {\"\\u0069d\":1.0,\"m\\u0065thod\":\"ping\"}\n\n", "data: {\"\\u0069d\":\"dispatch-srv-1\",\"m\\u0065thod\":\"ping\"}\n\n"},
		{"a comment is not data", ": {\"id\":1.0,\"method\":\"ping\"}\n\n", ""},
		{"id past what is held", "data: {\"method\":\"sampling/createMessage\",\"params\":" + bigParams + ",\"id\":1.0}\n\n", ""},
		{"big params before", "data: {\"id\":1.0,\"method\":\"sampling/createMessage\",\"params\":" + bigParams + "}\n\n",
			"data: {\"id\":\"dispatch-srv-1\",\"method\":\"sampling/createMessage\",\"params\":" + bigParams + "}\n\n"},
		{"a request, then its cancellation",
			"data: {\"id\":1.0,\"method\":\"ping\"}\n\ndata: {\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1.0}}\n\ndata: {\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2.0}}\n\n",
			"data: {\"id\":\"dispatch-srv-1\",\"method\":\"ping\"}\n\ndata: {\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"dispatch-srv-1\"}}\n\ndata: {\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2.0}}\n\n"},
	} {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		for _, chunk := range []int{1, 13, 4096, len(tc.in)} {
			if chunk == 1 && len(tc.in) > 1<<16 {
				continue
			}
			var ids serverIDs
			body := &sseIDBody{ReadCloser: io.NopCloser(&chunkReader{data: []byte(tc.in), chunk: chunk}), ids: &ids, lineStart: true}
			got, err := io.ReadAll(body)
			if err != nil || string(got) != want {
				t.Errorf("%s, read %d bytes at a time: got (%v)\n%.300q\nwant\n%.300q", tc.name, chunk, err, got, want)
			}
		}
	}
}

// A line that never ends, in an event that never decides, is not held
// past MaxHeldServerEvent.
func TestSSEIDBody_HoldsAtMostTheLimit(t *testing.T) {
	endless := io.MultiReader(strings.NewReader(": "), &repeatReader{b: 'x'})
	body := &sseIDBody{ReadCloser: io.NopCloser(endless), ids: &serverIDs{}, lineStart: true}
	buf := make([]byte, 64<<10)
	read := 0
	for read < 4*MaxHeldServerEvent {
		n, err := body.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		read += n
		if len(body.held) > MaxHeldServerEvent+len(buf) {
			t.Fatalf("holding %d bytes", len(body.held))
		}
	}
}

type repeatReader struct{ b byte }

func (r *repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.b
	}
	return len(p), nil
}

// mcp-go's answer to a request under a surrogate goes to the server with
// the server's id, as written, and the surrogate is forgotten; other
// bodies are sent untouched.
func TestServerIDs_RestoreAnswerID(t *testing.T) {
	var ids serverIDs
	surrogate, _ := ids.surrogateFor([]byte(`"a<b"`))
	post := func(body string) *http.Request {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	read := func(req *http.Request) string {
		data, err := io.ReadAll(req.Body)
		if err != nil {
			t.Fatal(err)
		}
		if req.ContentLength != int64(len(data)) {
			t.Errorf("ContentLength %d for a body of %d", req.ContentLength, len(data))
		}
		return string(data)
	}
	answer := `{"jsonrpc":"2.0","id":` + string(surrogate) + `,"result":{"x":"\"dispatch-srv-"}}`
	if got, want := read(ids.restoreAnswerID(post(answer))), `{"jsonrpc":"2.0","id":"a<b","result":{"x":"\"dispatch-srv-"}}`; got != want {
		t.Errorf("answer sent as %s, want %s", got, want)
	}
	// Forgotten once answered: a second answer is the server's to judge.
	if got := read(ids.restoreAnswerID(post(answer))); got != answer {
		t.Errorf("second answer sent as %s", got)
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, `{"jsonrpc":"2.0","id":"dispatch-srv-99","result":{}}`} {
		if got := read(ids.restoreAnswerID(post(body))); got != body {
			t.Errorf("%s sent as %s", body, got)
		}
	}
}

// The surrogates of pending requests are kept however many others came
// and went; past maxServerIDSwaps pending, a new request gets none, until
// one is answered or cancelled.
func TestServerIDs_BoundedByPending(t *testing.T) {
	var ids serverIDs
	first, _ := ids.surrogateFor([]byte(`1.0`))
	for i := 0; i < 3*maxServerIDSwaps; i++ { // each answered at once
		surrogate, ok := ids.surrogateFor([]byte(fmt.Sprintf("%d.5", i)))
		if !ok {
			t.Fatalf("request %d refused with one pending", i)
		}
		n, _ := strconv.ParseUint(strings.Trim(string(surrogate), `"`+serverSurrogatePrefix), 10, 64)
		ids.answered(n)
	}
	if got, ok := ids.answered(1); !ok || string(got) != `1.0` || string(first) != `"dispatch-srv-1"` {
		t.Errorf("the pending request's id was forgotten: %s %v", got, ok)
	}
	for i := 0; i < maxServerIDSwaps; i++ {
		if _, ok := ids.surrogateFor([]byte(fmt.Sprintf("%d.0", i))); !ok {
			t.Fatalf("request %d of %d refused", i+1, maxServerIDSwaps)
		}
	}
	if _, ok := ids.surrogateFor([]byte(`"one too many<"`)); ok {
		t.Errorf("%d requests pending and one more given a surrogate", maxServerIDSwaps+1)
	}
	if _, ok := ids.cancelled([]byte(`0.0`)); !ok {
		t.Fatal("a pending request's cancellation not swapped")
	}
	if _, ok := ids.surrogateFor([]byte(`"one more<"`)); !ok {
		t.Error("refused after a request was cancelled")
	}
	if len(ids.byNum) != maxServerIDSwaps || len(ids.byKey) != maxServerIDSwaps {
		t.Errorf("%d and %d surrogates remembered, want %d", len(ids.byNum), len(ids.byKey), maxServerIDSwaps)
	}
}

func TestNeedsSurrogate(t *testing.T) {
	for id, want := range map[string]bool{
		`0`: false, `7`: false, `-12`: false, `999999999999999`: false, `"abc-1"`: false,
		`9007199254740993`: true, `1000000000000000`: true, `-0`: true, `1.0`: true, `1e3`: true, `01`: true,
		`"a<b"`: true, `"\u00e9"`: true, `"é"`: true, `"dispatch-srv-3"`: true, `true`: true, `""`: false, `"`: true,
	} {
		if got := needsSurrogate([]byte(id)); got != want {
			t.Errorf("needsSurrogate(%s) = %v, want %v", id, got, want)
		}
	}
}

// BenchmarkSSEIDBody: what following a server's SSE stream for request
// ids costs, against mcp-go's decoding of the same messages (which its
// client does anyway, at least once per event).
func BenchmarkSSEIDBody(b *testing.B) {
	var answer bytes.Buffer
	answer.WriteString(`{"jsonrpc":"2.0","id":"d1","result":{"content":[`)
	for i := range 20000 {
		if i > 0 {
			answer.WriteByte(',')
		}
		answer.WriteString(`{"type":"text","text":"line of a result with a few words in it, and \"quotes\""}`)
	}
	answer.WriteString(`]}}`)
	var small bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&small, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"dispatch-c1-%d","progress":%d,"total":2000,"message":"step"}}`+"\n", i, i)
	}
	for _, tc := range []struct {
		name     string
		messages [][]byte
	}{
		{"one large answer", [][]byte{answer.Bytes()}},
		{"2000 progress notifications", bytes.Split(bytes.TrimSpace(small.Bytes()), []byte("\n"))},
	} {
		var stream []byte
		size := 0
		for _, m := range tc.messages {
			stream = append(append(append(stream, "event: message\ndata: "...), m...), "\n\n"...)
			size += len(m)
		}
		b.Run(tc.name+"/mcp-go decode", func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			for b.Loop() {
				for _, m := range tc.messages {
					var resp transport.JSONRPCResponse
					if err := json.Unmarshal(m, &resp); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(tc.name+"/sse id body", func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			var ids serverIDs
			for b.Loop() {
				body := &sseIDBody{ReadCloser: io.NopCloser(bytes.NewReader(stream)), ids: &ids, lineStart: true}
				if _, err := io.Copy(io.Discard, body); err != nil {
					b.Fatal(err)
				}
			}
		})
		// A legacy SSE server's stream, where requests are taken out.
		b.Run(tc.name+"/legacy sse body", func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			var ids serverIDs
			requests := newSSEServerRequests(context.Background(), http.DefaultClient, nil, time.Second)
			for b.Loop() {
				body := &sseIDBody{ReadCloser: io.NopCloser(bytes.NewReader(stream)), ids: &ids, requests: requests, lineStart: true}
				if _, err := io.Copy(io.Discard, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
