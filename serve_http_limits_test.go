package main

import (
	"context"
	"dispatch/internal/testkit"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// hangCall sends tools/call of the fixture's hang tool with JSON-RPC id
// in session sid by hand, and reports the answer's body when the call
// ends.
func hangCall(t *testing.T, url, sid string, id int) <-chan string {
	t.Helper()
	done := make(chan string, 1)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","connection":"c1","tool":"hang","arguments":{"tag":"h%d"}}}}`, id, id)
	go func() {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			done <- err.Error()
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err.Error()
			return
		}
		defer resp.Body.Close()
		var out strings.Builder
		_, err = fmt.Fprint(&out, resp.StatusCode, " ")
		if err == nil {
			buf := make([]byte, 4096)
			for {
				n, err := resp.Body.Read(buf)
				out.Write(buf[:n])
				if err != nil {
					break
				}
			}
		}
		done <- out.String()
	}()
	return done
}

// deleteSession sends DELETE for session sid and returns the status.
func deleteSession(t *testing.T, url, sid string) int {
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
	return resp.StatusCode
}

// waitSessionFull waits until session sid's in-flight slots are all taken
// (a ping is answered 429).
func waitSessionFull(t *testing.T, url, sid string) {
	t.Helper()
	testkit.WaitFor(t, "the session's slots to be full", 30*time.Second, func() bool {
		resp, _ := rawPost(t, url, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":99,"method":"ping"}`)
		return resp.StatusCode == http.StatusTooManyRequests
	})
}

// TestServeHTTP_FullSessionCanStillCancelAndEnd: a session whose
// --max-in-flight slots are all held by calls can still cancel one
// (notifications/cancelled) and end itself (DELETE); both were refused as
// busy, so an agent could never free what it held.
func TestServeHTTP_FullSessionCanStillCancelAndEnd(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-in-flight", "2")
	sid := rawSession(t, d.url)
	first, second := hangCall(t, d.url, sid, 7), hangCall(t, d.url, sid, 8)
	waitSessionFull(t, d.url, sid)

	resp, body := rawPost(t, d.url, map[string]string{"Mcp-Session-Id": sid},
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled in a full session: %d %.300q, want 202", resp.StatusCode, body)
	}
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call is still in flight 20 s after its cancel")
	}

	// A third call takes the cancelled call's slot. Its answer is written
	// before its slot is given back, and so is a ping's (the wait for a
	// free slot used one): a call right after either may be refused as
	// busy, which failed this test about one run in ten. A refused third
	// call is sent again until the session is full.
	var third <-chan string
	testkit.WaitFor(t, "a third call to fill the session again", 30*time.Second, func() bool {
		if third != nil {
			select {
			case answer := <-third:
				if !strings.HasPrefix(answer, "429") {
					t.Fatalf("the third call ended: %.300q", answer)
				}
				third = nil // refused as busy: the slot was not given back yet
			default:
			}
		}
		if third == nil {
			third = hangCall(t, d.url, sid, 9)
		}
		resp, _ := rawPost(t, d.url, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":99,"method":"ping"}`)
		return resp.StatusCode == http.StatusTooManyRequests
	})
	if status := deleteSession(t, d.url, sid); status != http.StatusOK {
		t.Fatalf("DELETE of a full session: %d, want 200", status)
	}
	for _, call := range []<-chan string{second, third} {
		select {
		case <-call:
		case <-time.After(20 * time.Second):
			t.Fatal("a call of the deleted session is still in flight 20 s after its DELETE")
		}
	}
}

// TestServeHTTP_AnswersGetThroughAFullSession: calls whose server asks
// the agent something (sampling) hold every --max-in-flight slot of the
// session; the agent's answers must still get in, or each call waits for
// an answer that was refused as busy.
func TestServeHTTP_AnswersGetThroughAFullSession(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-in-flight", "2")
	ada := &namedAgent{name: "ada"}
	c := ada.connect(t, d)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			prompt := fmt.Sprintf("p%d", i)
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			// Not callText: it ends the test, which only the test's own
			// goroutine may.
			var req mcp.CallToolRequest
			req.Params.Name = "proxy-dispatch"
			req.Params.Arguments = map[string]any{"action": "call", "connection": "c1", "tool": "request-sampling", "arguments": map[string]any{"prompt": prompt}}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				t.Errorf("request-sampling with both slots taken: %v", err)
				return
			}
			text := ""
			if len(res.Content) == 1 {
				if tc, ok := res.Content[0].(mcp.TextContent); ok {
					text = tc.Text
				}
			}
			if want := "ada sampled: " + prompt; res.IsError || text != want {
				t.Errorf("request-sampling with both slots taken = %.300q (isError %v), want %q", text, res.IsError, want)
			}
		})
	}
	wg.Wait()
}

// trickle opens a connection to url that sends a POST's headers and the
// first byte of a body it never finishes, with the given Mcp-Session-Id
// ("" for none); the connection closes when the test ends.
func trickle(t *testing.T, mcpURL, sid string) net.Conn {
	t.Helper()
	u, err := url.Parse(mcpURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n"
	if sid != "" {
		head += "Mcp-Session-Id: " + sid + "\r\n"
	}
	if _, err := conn.Write([]byte(head + "\r\n{")); err != nil {
		t.Fatal(err)
	}
	return conn
}

// answered says whether dispatch has answered (refused) conn's request.
func answered(conn net.Conn) bool {
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		return true
	}
	var b [1]byte
	n, err := conn.Read(b[:])
	var netErr net.Error
	return n > 0 || !(errors.As(err, &netErr) && netErr.Timeout())
}

// TestServeHTTP_TricklingBodiesKeepNoSessionOut: connections that name no
// session (or a made-up one) and trickle their bodies held every
// --max-http-in-flight slot, and every session's requests, cancels and
// answers were refused as busy while they did. They may keep out new
// sessions for a while, never the open ones.
func TestServeHTTP_TricklingBodiesKeepNoSessionOut(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-http-in-flight", "2", "--max-sessions", "2")
	c := d.sessionWith(t, nil)
	sids := []string{"", "0123456789abcdef0123456789abcdef"}
	conns := make([]net.Conn, len(sids))
	// They are held once an initialize is refused for requests in flight.
	// One refused (the probe held a slot as it came) is sent again; an
	// initialize that came first opened a session: ended at once, so that
	// the next is refused for the bodies, not for --max-sessions.
	testkit.WaitFor(t, "the trickling bodies to be held", 30*time.Second, func() bool {
		for i, conn := range conns {
			if conn == nil || answered(conn) {
				conns[i] = trickle(t, d.url, sids[i])
			}
		}
		resp, body := rawPost(t, d.url, nil, initializeBody)
		if id := resp.Header.Get("Mcp-Session-Id"); resp.StatusCode == http.StatusOK && id != "" {
			deleteSession(t, d.url, id)
		}
		return resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(body, "in flight")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if text, isErr := callText(ctx, t, c, map[string]any{"action": "call", "connection": "c1", "tool": "echo", "arguments": map[string]any{"message": "through"}}); isErr || !strings.Contains(text, "through") {
		t.Errorf("an open session's call beside trickling bodies: %v %.300q", isErr, text)
	}
}

// TestServeHTTP_LargeInitializeAndNotificationRefused: an initialize or a
// notification past its own bound (upstream.MaxInitializeBody,
// MaxNotificationBody: 1 MiB, under --max-request's 64 MiB) is refused
// with 413 saying so; mcp-go would keep an initialize's clientInfo for the
// session's life. A normal initialize and a large request still work.
func TestServeHTTP_LargeInitializeAndNotificationRefused(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	padding := strings.Repeat("x", 2<<20)
	bigInit := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + padding + `","version":"1"}}}`
	resp, text := rawPost(t, d.url, nil, bigInit)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(text, "MaxInitializeBody") {
		t.Errorf("a 2 MiB initialize: %d %q, want 413 naming upstream.MaxInitializeBody", resp.StatusCode, text)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("a refused initialize was given a session id")
	}

	resp, text = rawPost(t, d.url, nil, initializeBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("a normal initialize after a refused one: %d %q, want 200 with a session id", resp.StatusCode, text)
	}
	session := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
	if resp, text = rawPost(t, d.url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %q, want 202", resp.StatusCode, text)
	}

	bigNote := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"message":"` + padding + `"}}`
	resp, text = rawPost(t, d.url, session, bigNote)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(text, "MaxNotificationBody") {
		t.Errorf("a 2 MiB notification: %d %q, want 413 naming upstream.MaxNotificationBody", resp.StatusCode, text)
	}
	// A request keeps --max-request: a 2 MiB ping is answered.
	bigPing := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x":"` + padding + `"}}}`
	if resp, text = rawPost(t, d.url, session, bigPing); resp.StatusCode != http.StatusOK || !strings.Contains(text, `"id":2`) {
		t.Errorf("a 2 MiB ping in the session: %d %.200q, want 200 and its answer", resp.StatusCode, text)
	}
}

// TestServeHTTP_TricklingSessionHoldsOnlyItsShare: one session trickling
// its bodies (POSTs that send a byte and no more) held every reading slot
// of --max-http-in-flight, and every other session's POSTs were refused
// as busy until those bodies timed out. A session now holds at most its
// share (--max-http-in-flight / --max-sessions: 2 here); another
// session's call is answered while it does.
func TestServeHTTP_TricklingSessionHoldsOnlyItsShare(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-http-in-flight", "4", "--max-sessions", "2")
	trickler := rawSession(t, d.url)
	other := d.sessionWith(t, nil)
	conns := make([]net.Conn, 4)
	// Held once the trickler's own request is refused for its bodies
	// being read. A trickle refused (its share was full) is sent again.
	testkit.WaitFor(t, "the trickling session's bodies to be held", 30*time.Second, func() bool {
		for i, conn := range conns {
			if conn == nil || answered(conn) {
				conns[i] = trickle(t, d.url, trickler)
			}
		}
		resp, body := rawPost(t, d.url, map[string]string{"Mcp-Session-Id": trickler}, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
		return resp.StatusCode != http.StatusOK && strings.Contains(body, "being read")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if text, isErr := callText(ctx, t, other, map[string]any{"action": "call", "connection": "c1", "tool": "echo", "arguments": map[string]any{"message": "through"}}); isErr || !strings.Contains(text, "through") {
		t.Errorf("another session's call beside a session trickling its bodies: %v %.300q", isErr, text)
	}
}
