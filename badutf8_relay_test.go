package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"
	"unicode/utf8"

	"dispatch/internal/testkit"
)

// TestServe_InvalidUTF8InServerRequestIsRepaired: a sampling request a
// server sends with bytes that are not valid UTF-8 reaches the agent as
// valid JSON, read here line by line as a strict client would.
func TestServe_InvalidUTF8InServerRequestIsRepaired(t *testing.T) {
	cmd := exec.Command(dispatchBin, "--no-cache", "--mcp", fixture("--bad-utf8", "--client-requests"))
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Logf("dispatch exited: %v", err)
		}
	})
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("write to dispatch: %v\nstderr:\n%s", err, stderr)
		}
	}
	next := func() []byte {
		t.Helper()
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("dispatch closed stdout\nstderr:\n%s", stderr)
			}
			return line
		case <-time.After(60 * time.Second):
			t.Fatalf("nothing from dispatch within 60 s\nstderr:\n%s", stderr)
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"request-sampling","arguments":{"prompt":"bad @BADUTF8@ end"}}}}`)
	for {
		line := next()
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			t.Fatalf("dispatch wrote a line that is not JSON: %v: %q", err, line)
		}
		switch {
		case msg.Method == "sampling/createMessage":
			checkRepairedJSON(t, "sampling request", line)
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}`, msg.ID))
		case string(msg.ID) == "1":
			if !utf8.Valid(line) {
				t.Errorf("call answer is not valid UTF-8: %q", line)
			}
			return
		}
	}
}
