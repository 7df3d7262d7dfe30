package connections

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hostileHTTP serves a real mcp-go streamable HTTP server (the echo
// tool), except that it answers a tools/call of the tools named in
// answers itself, as a hostile or broken server would.
type hostileHTTP struct {
	t       *testing.T
	srv     *httptest.Server
	answers map[string]func(w http.ResponseWriter, r *http.Request, id json.RawMessage)
	// written counts the bytes of hostile answers the server got out.
	written atomic.Int64
	// gzipAsked says a request offered Accept-Encoding: gzip.
	gzipAsked atomic.Bool
}

func startHostileHTTP(t *testing.T) *hostileHTTP {
	t.Helper()
	h := &hostileHTTP{t: t, answers: map[string]func(http.ResponseWriter, *http.Request, json.RawMessage){}}
	next := echoMCPHandler()
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			h.gzipAsked.Store(true)
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
			if answer := h.answers[msg.Params.Name]; answer != nil {
				answer(&countingWriter{ResponseWriter: w, n: &h.written}, r, msg.ID)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostileHTTP) conn(t *testing.T, maxMessage int) *Conn {
	t.Helper()
	set, err := NewSet([]ServerConfig{{Transport: TransportHTTP, URL: h.srv.URL + "/mcp"}},
		Options{ConnectTimeout: 10 * time.Second, MaxMessageBytes: maxMessage})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	return set.Conns()[0]
}

// countingWriter counts what a handler writes and flushes every write,
// so that it reaches the client as it goes.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	return n, err
}

// writeFor writes chunk again and again until the client stops reading
// or limit bytes are written.
func writeFor(w io.Writer, chunk []byte, limit int64) {
	for written := int64(0); written < limit; written += int64(len(chunk)) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

func callTool(t *testing.T, c *Conn, tool string) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Call(ctx, CallRequest{Tool: tool, Arguments: json.RawMessage(`{}`), Timeout: 20 * time.Second})
}

const hostileBodyLimit = 256 << 20 // what a hostile answer writes at most, if read

// An HTTP 500 with a huge body: dispatch reads MaxHTTPErrorBody of it,
// not the body; the error says the status, quotes a little, and does
// not call the server lost; the next call works.
func TestConn_HTTPErrorBodyBounded(t *testing.T) {
	h := startHostileHTTP(t)
	h.answers["fail"] = func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		writeFor(w, bytes.Repeat([]byte("x"), 64<<10), hostileBodyLimit)
	}
	c := h.conn(t, 0)
	_, err := callTool(t, c, "fail")
	if err == nil {
		t.Fatal("a call answered HTTP 500 succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "HTTP 500") || len(msg) > 600 {
		t.Errorf("the error is not short and does not say HTTP 500 (%d bytes): %.400s", len(msg), msg)
	}
	if errors.Is(err, ErrServerGone) || strings.Contains(msg, "connection lost") || strings.Contains(msg, "cannot reach") {
		t.Errorf("a server that answered is called lost or unreachable: %.400s", msg)
	}
	// The server's writes stop when dispatch stops reading (socket
	// buffers hold a few MiB): far below what it would write to a reader
	// of the whole body.
	if n := h.written.Load(); n >= hostileBodyLimit {
		t.Errorf("dispatch read the whole error body (%d bytes)", n)
	}
	if got, err := callEcho(t, c, "after"); err != nil || got != "after" {
		t.Errorf("call after the error: %q, %v", got, err)
	}
}

// A streamable HTTP server answering a request with a web page: the
// error says what came, and the server is not called lost.
func TestConn_HTTPWrongContentType(t *testing.T) {
	h := startHostileHTTP(t)
	h.answers["page"] = func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body>login</body></html>")
	}
	c := h.conn(t, 0)
	_, err := callTool(t, c, "page")
	var ct *ContentTypeError
	if !errors.As(err, &ct) || !strings.Contains(err.Error(), "text/html") {
		t.Fatalf("want the content type named, got %v", err)
	}
	if errors.Is(err, ErrServerGone) || strings.Contains(err.Error(), "connection lost") {
		t.Errorf("a server that answered is called lost: %v", err)
	}
	if got, err := callEcho(t, c, "after"); err != nil || got != "after" {
		t.Errorf("call after the error: %q, %v", got, err)
	}
}

// An answer longer than --max-message, as one JSON body, as one SSE
// event (its id first, its id last, or never ending), and as a gzip
// body that decompresses past it, fails its call with a
// MessageTooLongError naming --max-message; dispatch stops reading it
// near the limit, and the next call works.
func TestConn_HTTPAnswerPastMaxMessage(t *testing.T) {
	const maxMessage = 1 << 20
	text := bytes.Repeat([]byte("y"), 64<<10)
	endless := func(contentType, start string) func(http.ResponseWriter, *http.Request, json.RawMessage) {
		return func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			w.Header().Set("Content-Type", contentType)
			fmt.Fprintf(w, start, id)
			writeFor(w, text, hostileBodyLimit)
		}
	}
	cases := map[string]func(http.ResponseWriter, *http.Request, json.RawMessage){
		"json": endless("application/json", `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`),
		"sse":  endless("text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""),
		// The TypeScript SDK writes the id last: the POST's id is used.
		"sse id last": endless("text/event-stream", "data: {%.0s\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""),
		"sse ended": func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]},\"id\":%s}\n\n",
				bytes.Repeat(text, 2*maxMessage/len(text)), id)
		},
		"gzip": func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			var zipped bytes.Buffer
			zw := gzip.NewWriter(&zipped)
			fmt.Fprintf(zw, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
			for range 8 * maxMessage / len(text) {
				zw.Write(text)
			}
			fmt.Fprint(zw, `"}]}}`)
			zw.Close()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
		},
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			h := startHostileHTTP(t)
			h.answers["big"] = answer
			c := h.conn(t, maxMessage)
			start := time.Now()
			_, err := callTool(t, c, "big")
			var tooLong *MessageTooLongError
			if !errors.As(err, &tooLong) || tooLong.Limit != maxMessage || !strings.Contains(err.Error(), "--max-message") {
				t.Fatalf("want a MessageTooLongError naming --max-message, got %v (after %s)", err, time.Since(start))
			}
			if n := h.written.Load(); n >= hostileBodyLimit {
				t.Errorf("dispatch read the whole answer (%d bytes)", n)
			}
			if name == "gzip" && !h.gzipAsked.Load() {
				t.Errorf("the client did not ask for gzip: the case tests nothing")
			}
			if got, err := callEcho(t, c, "after"); err != nil || got != "after" {
				t.Errorf("call after the refusal: %q, %v", got, err)
			}
		})
	}
}

// An SSE event past --max-message that answers nothing (a notification)
// is dropped, and the answer after it on the same stream still arrives.
func TestConn_HTTPSSEStreamGoesOnAfterLongEvent(t *testing.T) {
	const maxMessage = 1 << 20
	h := startHostileHTTP(t)
	h.answers["noisy"] = func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"%s\"}}\n\n",
			strings.Repeat("z", 2*maxMessage))
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"made it\"}]}}\n\n", id)
	}
	c := h.conn(t, maxMessage)
	raw, err := callTool(t, c, "noisy")
	if err != nil || !strings.Contains(string(raw), "made it") {
		t.Fatalf("the answer after a long event: %s, %v", raw, err)
	}
}

// A server whose answer has a header net/http cannot parse: the error
// says the answer was malformed, not that the server cannot be reached.
func TestConn_HTTPMalformedHeader(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				fmt.Fprint(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: a\x01b\x7fc\r\nContent-Length: 2\r\n\r\n{}")
			}()
		}
	}()
	c := testConn(t, ServerConfig{Transport: TransportHTTP, URL: "http://" + l.Addr().String() + "/mcp"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = c.Connect(ctx)
	var malformed *MalformedAnswerError
	if !errors.As(err, &malformed) || !strings.Contains(err.Error(), "malformed HTTP answer") {
		t.Fatalf("want a malformed answer error, got %v", err)
	}
	if strings.Contains(err.Error(), "cannot reach") || strings.Contains(err.Error(), "connection lost") {
		t.Errorf("a server that answered is called unreachable or lost: %v", err)
	}
}

// A real mcp-go server's answer longer than --max-message, over
// streamable HTTP (a JSON body) and legacy SSE (an event of the
// server's stream): the call fails naming --max-message, and the next
// call on the same connection works.
func TestConn_RealServerAnswerPastMaxMessage(t *testing.T) {
	const maxMessage = 1 << 20
	for _, mode := range []Transport{TransportHTTP, TransportSSE} {
		t.Run(string(mode), func(t *testing.T) {
			srv := startMCPHTTP(t, mode, false)
			set, err := NewSet([]ServerConfig{srv.config()}, Options{ConnectTimeout: 10 * time.Second, MaxMessageBytes: maxMessage})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(set.Close)
			c := set.Conns()[0]
			_, err = callEcho(t, c, strings.Repeat("b", 2*maxMessage))
			var tooLong *MessageTooLongError
			if !errors.As(err, &tooLong) || !strings.Contains(err.Error(), "--max-message") {
				t.Fatalf("want a MessageTooLongError naming --max-message, got %.300v", err)
			}
			if got, err := callEcho(t, c, "after"); err != nil || got != "after" {
				t.Errorf("call after the refusal: %q, %v", got, err)
			}
		})
	}
}
