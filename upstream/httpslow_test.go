package upstream

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"dispatch/spill"
)

// startGuarded serves an HTTPServer on loopback with short connection
// bounds; no session is opened by these tests, so no Service is needed.
func startGuarded(t *testing.T) string {
	t.Helper()
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHTTPServer(nil, "test", HTTPOptions{
		Addr:            l.Addr().String(),
		MaxHTTPInFlight: 1,
		BodyReadTimeout: 300 * time.Millisecond,
		IdleConnTimeout: 300 * time.Millisecond,
		NewStore:        func() (*spill.Store, error) { return nil, errors.New("no sessions in this test") },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = h.Serve(ctx, l) }()
	t.Cleanup(func() { cancel(); <-done })
	return l.Addr().String()
}

// A client that trickles a body must not hold the only in-flight slot
// for ever: it is answered 408 and the slot is free again.
func TestServeHTTP_SlowBodyIsCutOff(t *testing.T) {
	addr := startGuarded(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 100\r\n\r\n{")); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the slow body was never answered: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	// The slot is free: a whole request is served (405 for PUT, not 503).
	r2, err := http.NewRequest(http.MethodPut, "http://"+addr+"/mcp", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	resp2, err := http.DefaultClient.Do(r2)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("after the slow body: status %d, want 405", resp2.StatusCode)
	}
}

// An idle keep-alive connection is closed: anyone who can connect must not
// pile up open connections.
func TestServeHTTP_IdleConnectionIsClosed(t *testing.T) {
	addr := startGuarded(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("PUT /mcp HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// Nothing more is sent: the server must close the connection (EOF)
	// well before the read deadline.
	if _, err := br.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("idle keep-alive connection still open: %v", err)
	}
}
