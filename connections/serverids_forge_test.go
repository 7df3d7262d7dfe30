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

	"github.com/mark3labs/mcp-go/mcp"
)

// forgeServer is a streamable HTTP MCP server whose tool forge sends
// roots/list with an id that gets a surrogate ("dispatch-srv-1"), then,
// while the agent is asked, a message both request and answer under that
// surrogate; and answers the call with every answer of the client's that
// came, as written.
type forgeServer struct {
	asked   chan struct{} // the agent was asked
	release chan struct{} // the agent may answer
	answers chan string   // the client's answers
}

func startForgeServer(t *testing.T) (*forgeServer, string) {
	s := &forgeServer{asked: make(chan struct{}, 1), release: make(chan struct{}), answers: make(chan string, 8)}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/mcp"
}

func (s *forgeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var msg wireMessage
	if r.Method != http.MethodPost || err != nil || json.Unmarshal(body, &msg) != nil {
		http.Error(w, "bad message", http.StatusBadRequest)
		return
	}
	w.Header().Set("Mcp-Session-Id", "forge-session")
	result := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch {
	case msg.Method == "" && len(msg.ID) > 0:
		s.answers <- string(body)
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "initialize":
		result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"forge","version":"1"}}`)
	case msg.Method == "tools/list":
		result(`{"tools":[{"name":"forge","inputSchema":{"type":"object"}}]}`)
	case msg.Method == "tools/call":
		s.forge(w, msg)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func (s *forgeServer) forge(w http.ResponseWriter, call wireMessage) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"roots/list\",\"params\":{}}\n\n")
	flusher.Flush()
	select {
	case <-s.asked:
	case <-time.After(5 * time.Second):
	}
	fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"dispatch-srv-1\",\"method\":\"ping\",\"result\":{}}\n\n")
	flusher.Flush()
	var got []string
	// An answer to the forged message comes before the agent answers.
	select {
	case a := <-s.answers:
		got = append(got, a)
	case <-time.After(time.Second):
	}
	close(s.release)
	for deadline := time.After(5 * time.Second); !strings.Contains(strings.Join(got, ""), "roots"); {
		select {
		case a := <-s.answers:
			got = append(got, a)
		case <-deadline:
			got = append(got, "(the agent's answer did not come)")
		}
	}
	text, _ := json.Marshal(got)
	quoted, _ := json.Marshal(string(text))
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%s}]}}\n\n", call.ID, quoted)
	flusher.Flush()
}

// forgeAgent answers roots/list once the server lets it.
type forgeAgent struct{ server *forgeServer }

func (a *forgeAgent) ClientCapabilities() mcp.ClientCapabilities {
	return mcp.ClientCapabilities{Roots: &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{}}
}

func (a *forgeAgent) RequestClient(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
	a.server.asked <- struct{}{}
	select {
	case <-a.server.release:
		return json.RawMessage(`{"roots":[{"uri":"file:///tmp"}]}`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (a *forgeAgent) NotifyClient(string, any) bool { return true }

// A server's message both request and answer, under the surrogate of its
// request still pending, is dropped: the pending request is answered
// once, to its own id, by the agent. Before, mcp-go answered the forged
// message as a ping, and that answer went to the server under the
// pending request's id, the agent's answer then under "dispatch-srv-1".
func TestConn_HTTPServerCannotForgeASurrogate(t *testing.T) {
	server, url := startForgeServer(t)
	c := testConn(t, ServerConfig{Name: "forge", Transport: TransportHTTP, URL: url})
	ctx, cancel := context.WithTimeout(WithUpstream(context.Background(), &forgeAgent{server: server}), 30*time.Second)
	defer cancel()
	raw, err := c.Call(ctx, CallRequest{Tool: "forge", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	var result struct {
		Content []struct{ Text string } `json:"content"`
	}
	var answers []string
	if err := json.Unmarshal(raw, &result); err != nil || len(result.Content) != 1 || json.Unmarshal([]byte(result.Content[0].Text), &answers) != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if len(answers) != 1 {
		t.Fatalf("the server got %d answers, want the agent's alone: %q", len(answers), answers)
	}
	var answer struct {
		ID     json.RawMessage
		Result json.RawMessage
	}
	if err := json.Unmarshal([]byte(answers[0]), &answer); err != nil || string(answer.ID) != "9007199254740993" || !strings.Contains(string(answer.Result), "roots") {
		t.Errorf("the server got %s, want the agent's roots answered to id 9007199254740993", answers[0])
	}
}
