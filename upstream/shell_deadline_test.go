package upstream

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShell_SlowClientsAreCut: a client of the session's endpoint
// that connects and sends nothing, half the headers, or half a body is
// cut off after the read limits, not served a goroutine for ever.
func TestShell_SlowClientsAreCut(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "socket") // only checked for presence
	if err := os.WriteFile(socket, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const limit = 300 * time.Millisecond
	d := &shellServer{opts: ShellOptions{Socket: socket, Idle: time.Hour, MaxRequestBytes: 1 << 20, MaxInFlight: 4, Log: slog.New(slog.DiscardHandler)},
		started: time.Now(), slots: make(chan struct{}, 4), deadlines: shellDeadlines{header: limit, body: limit, idleConn: limit}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	tests := []struct {
		name, send, answer string
	}{
		{"nothing", "", ""},
		{"half the headers", "POST " + shellDoPath + " HTTP/1.1\r\nHost: session\r\n", ""},
		{"half a body", "POST " + shellDoPath + " HTTP/1.1\r\nHost: session\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"action\":", "408"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			// Far past the limit: a connection still open then is held.
			if err := conn.SetReadDeadline(time.Now().Add(20 * limit)); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(bufio.NewReader(conn))
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("the session still held the connection %s after the client sent %q (got %q)", 20*limit, tt.send, got)
			}
			if tt.answer != "" && !strings.Contains(string(got), tt.answer) {
				t.Errorf("answer %q, want one saying %s", got, tt.answer)
			}
		})
	}
}
