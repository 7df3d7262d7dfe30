package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"dispatch/internal/testkit"

	"github.com/mark3labs/mcp-go/mcp"
)

// sseMessages reads the JSON-RPC messages of one SSE stream (a session's
// listening stream or a call's response) as they come.
type sseMessages struct {
	done chan struct{}
	mu   sync.Mutex
	msgs []map[string]any
}

func (s *sseMessages) seen() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.msgs...)
}

// readSSE sends req and keeps the messages of its response stream until
// it ends.
func readSSE(t *testing.T, req *http.Request) *sseMessages {
	t.Helper()
	s := &sseMessages{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			// An SSE event's data, or a whole JSON body.
			data, _ := strings.CutPrefix(lines.Text(), "data: ")
			var msg map[string]any
			if json.Unmarshal([]byte(data), &msg) != nil {
				continue
			}
			s.mu.Lock()
			s.msgs = append(s.msgs, msg)
			s.mu.Unlock()
		}
	}()
	return s
}

// TestServeHTTP_ServerCancellingItsRequestReachesTheAgent (review 6,
// finding 7): over HTTP, a server that cancels its own sampling request
// (notifications/cancelled naming it) has the agent told, with the id the
// agent was given, as dispatch serve over stdio does. mcp-go does not say
// which id it gives a request, and the agent was not told.
func TestServeHTTP_ServerCancellingItsRequestReachesTheAgent(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, fixture("--cancel-own-request"))
	resp, body := rawPost(t, d.url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize got %d %.300q", resp.StatusCode, body)
	}
	session := map[string]string{"Mcp-Session-Id": sid}
	rawPost(t, d.url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	get, err := http.NewRequest(http.MethodGet, d.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	listening := readSSE(t, get)
	defer func() {
		rawDelete(t, d.url, sid) // ends the listening stream too
		<-listening.done
	}()

	call := postStreamedAll(t, d.url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","connection":"c1","tool":"sample-then-cancel"}}}`)
	<-call.done
	all := func() []map[string]any { return append(listening.seen(), call.seen()...) }
	var asked, told []any
	testkit.WaitFor(t, "the agent to be told of the cancellation", 10*time.Second, func() bool {
		asked, told = asked[:0], told[:0]
		for _, msg := range all() {
			switch msg["method"] {
			case string(mcp.MethodSamplingCreateMessage):
				asked = append(asked, msg["id"])
			case string(mcp.MethodNotificationCancelled):
				params, _ := msg["params"].(map[string]any)
				told = append(told, params["requestId"])
			}
		}
		return len(told) > 0
	})
	if len(asked) != 1 || len(told) != 1 || asked[0] != told[0] {
		t.Errorf("the agent was asked for sampling with ids %v and told of cancelled requests %v; want one of each, the same id", asked, told)
	}
	if result := call.seen(); len(result) == 0 || !strings.Contains(mustJSON(result[len(result)-1]), `no answer`) {
		t.Errorf("the call's stream ended with %v; want the server's result saying dispatch sent no answer to the request it cancelled", result)
	}
}

// postStreamedAll POSTs body in session sid and keeps every message of
// its response stream.
func postStreamedAll(t *testing.T, url, sid, body string) *sseMessages {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	return readSSE(t, req)
}

func rawDelete(t *testing.T, url, sid string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
