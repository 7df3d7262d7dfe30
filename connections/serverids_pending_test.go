package connections

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// floodServer is a streamable HTTP MCP server whose tool flood sends
// roots/list with id 9007199254740993 (which needs a surrogate) and,
// while the agent is asked, n pings with ids that need one too; once
// they are answered it lets the agent answer, and answers the call with
// the id the agent's answer came to.
type floodServer struct {
	forgeServer
	n int
}

func (s *floodServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var msg wireMessage
	if r.Method != http.MethodPost || err != nil || json.Unmarshal(body, &msg) != nil {
		http.Error(w, "bad message", http.StatusBadRequest)
		return
	}
	w.Header().Set("Mcp-Session-Id", "flood-session")
	switch {
	case msg.Method == "tools/call":
		s.flood(w, msg)
	default:
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		s.forgeServer.ServeHTTP(w, r)
	}
}

func (s *floodServer) flood(w http.ResponseWriter, call wireMessage) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"roots/list\",\"params\":{}}\n\n")
	flusher.Flush()
	select {
	case <-s.asked:
	case <-time.After(5 * time.Second):
	}
	text := "the agent's answer did not come"
	deadline := time.After(10 * time.Second)
	written := make(chan struct{})
	go func() {
		defer close(written)
		for i := range s.n {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"p<%d>\",\"method\":\"ping\"}\n\n", i)
		}
		flusher.Flush()
	}()
	for pings := 0; ; {
		var answer struct {
			ID     json.RawMessage
			Result json.RawMessage
		}
		select {
		case a := <-s.answers:
			if json.Unmarshal([]byte(a), &answer) != nil {
				continue
			}
		case <-deadline:
			goto done
		}
		if strings.Contains(string(answer.Result), "roots") {
			text = "roots answered to id " + string(answer.ID)
			break
		}
		if pings++; pings == s.n {
			close(s.release)
		}
	}
done:
	<-written
	quoted, _ := json.Marshal(text)
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%s}]}}\n\n", call.ID, quoted)
	flusher.Flush()
}

// A server's request waiting on the agent is answered to its own id
// however many of its other requests came and were answered meanwhile.
// Before, its surrogate was forgotten once 256 newer ones were given, and
// the agent's answer went to the server under "dispatch-srv-1".
func TestConn_HTTPPendingRequestKeepsItsID(t *testing.T) {
	s := &floodServer{forgeServer: forgeServer{asked: make(chan struct{}, 1), release: make(chan struct{}), answers: make(chan string, 16)}, n: 2 * maxServerIDSwaps}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c := testConn(t, ServerConfig{Name: "flood", Transport: TransportHTTP, URL: srv.URL + "/mcp"})
	ctx, cancel := context.WithTimeout(WithUpstream(context.Background(), &forgeAgent{server: &s.forgeServer}), 30*time.Second)
	defer cancel()
	raw, err := c.Call(ctx, CallRequest{Tool: "flood", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "roots answered to id 9007199254740993"; !strings.Contains(string(raw), want) {
		t.Errorf("result %s, want %q", raw, want)
	}
}

// Past maxServerIDSwaps pending requests, a new one that needs a
// surrogate is not passed to mcp-go: the server gets an error answer to
// its id as written, POSTed on its session.
func TestHTTPClient_RefusesRequestPastPendingSurrogates(t *testing.T) {
	posted := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") != "s1" {
			http.Error(w, "no session", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"method"`) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"x<1>\",\"method\":\"roots/list\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
			return
		}
		posted <- string(body)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	client, rt := newHTTPClient(nil, httpLimits{streamable: true}, nil)
	for i := range maxServerIDSwaps {
		rt.ids.surrogateFor(fmt.Appendf(nil, "%d.0", i))
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", "s1")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(stream) != "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n" {
		t.Errorf("mcp-go read (%v) %q, want the answer alone", err, stream)
	}
	select {
	case body := <-posted:
		var answer struct {
			ID    json.RawMessage
			Error struct{ Message string }
		}
		if err := json.Unmarshal([]byte(body), &answer); err != nil || string(answer.ID) != `"x<1>"` || !strings.Contains(answer.Error.Message, "maxServerIDSwaps") {
			t.Errorf("the server got %s, want an error naming maxServerIDSwaps to id \"x<1>\"", body)
		}
	case <-time.After(10 * time.Second):
		t.Error("the server got no answer to its request")
	}
}
