package main

// End-to-end tests of the agent's request ids: every answer carries the id
// exactly as the agent wrote it, whatever mcp-go's decoding of ids (a
// string, or a float64) would make of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dispatch/internal/testkit"
)

// hardIDs are ids mcp-go did not give back as sent: past 2^53, not
// whole, out of float64's range, whole but not written as an integer,
// past int64, negative zero, and strings encoding/json writes otherwise.
var hardIDs = []string{
	`9007199254740993`, `1.5`, `1e400`, `1.0`, `12345678901234567890123`, `-0`,
	`"a<b&c>"`, `"\u00e9t\u00e9"`, `"dispatch-id-1"`,
}

// idLines drives dispatch over its stdin and stdout by hand and hands
// back its answers as lines.
type idLines struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  <-chan []byte
	stderr *testkit.SyncBuffer
}

func startIDLines(t *testing.T, args ...string) *idLines {
	t.Helper()
	a := &idLines{t: t}
	a.stdin, a.lines, a.stderr = startRawDispatch(t, 16<<20, args...)
	return a
}

func (a *idLines) send(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.stdin, line+"\n"); err != nil {
		a.t.Fatalf("write to dispatch: %v", err)
	}
}

// answer waits for the next answer (a line with a result or an error)
// and returns its id as written, and the line.
func (a *idLines) answer() (string, string) {
	a.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("dispatch closed stdout\nstderr:\n%s", a.stderr)
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &m) != nil || m.Method != "" {
				continue // a notification or a request of dispatch's
			}
			return string(m.ID), string(line)
		case <-timeout:
			a.t.Fatalf("no answer within 30 s (hang detector)\nstderr:\n%s", a.stderr)
		}
	}
}

// progressed waits for a progress notification for each of tokens,
// skipping whatever else comes.
func (a *idLines) progressed(tokens ...string) {
	a.t.Helper()
	waiting := map[string]bool{}
	for _, tok := range tokens {
		waiting[tok] = true
	}
	timeout := time.After(30 * time.Second)
	for len(waiting) > 0 {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("dispatch closed stdout\nstderr:\n%s", a.stderr)
			}
			var n struct {
				Method string `json:"method"`
				Params struct {
					ProgressToken any `json:"progressToken"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &n) == nil && n.Method == "notifications/progress" {
				delete(waiting, fmt.Sprint(n.Params.ProgressToken))
			}
		case <-timeout:
			a.t.Fatalf("no progress for %v within 30 s\nstderr:\n%s", waiting, a.stderr)
		}
	}
}

// idRequests are a request of each kind dispatch answers, with ID where
// the id goes: through mcp-go (initialize, ping, lists, a call with
// _meta, what dispatch does not serve, a malformed request), the hot
// path's way (a plain call), and a line that is not JSON.
var idRequests = []struct{ name, line string }{
	{"initialize", `{"jsonrpc":"2.0","id":ID,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
	{"ping", `{"jsonrpc":"2.0","id":ID,"method":"ping"}`},
	{"tools/list", `{"jsonrpc":"2.0","id":ID,"method":"tools/list"}`},
	{"tools/call with progressToken", `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"slow","arguments":{"seconds":0.01,"steps":1}},"_meta":{"progressToken":ID}}}`},
	{"tools/call", `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"hi"}}}}`},
	{"resources/list", `{"jsonrpc":"2.0","id":ID,"method":"resources/list"}`},
	{"resources/read", `{"jsonrpc":"2.0","id":ID,"method":"resources/read","params":{"uri":"fixture://x"}}`},
	{"prompts/get", `{"jsonrpc":"2.0","id":ID,"method":"prompts/get","params":{"name":"p"}}`},
	{"bad params", `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":7}}`},
	{"unknown method", `{"jsonrpc":"2.0","id":ID,"method":"no/such"}`},
	{"broken JSON", `{"jsonrpc":"2.0","id":ID,"method":"ping","params":{`},
}

// Before: 9007199254740993 came back as 9007199254740992, 1.0 as 1, -0 as
// 0, 1e400 as null, and "a<b&c>" as "a\u003cb\u0026c\u003e".
func TestServe_AnswersCarryTheAgentsIDExactly(t *testing.T) {
	a := startIDLines(t, "--no-cache", "--mcp", fixture())
	for _, id := range hardIDs {
		for _, r := range idRequests {
			a.send(strings.ReplaceAll(r.line, "ID", id))
			if got, line := a.answer(); got != id {
				t.Errorf("%s with id %s: answered to id %s: %.200s", r.name, id, got, line)
			}
			if r.name == "initialize" {
				a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
		}
	}
}

// A cancellation names the request it cancels, however the id reads as a
// float64. Before: 9007199254740993 and 9007199254740992 were one request
// to dispatch and to mcp-go, and cancelling the one cancelled the other.
func TestServe_CancelsTheRequestItsIDNames(t *testing.T) {
	cancels := filepath.Join(t.TempDir(), "cancels.log")
	a := startIDLines(t, "--no-cache", "--mcp", fixture("--cancel-log", cancels))
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a.answer()
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// slow reports progress every 100 ms until cancelled: its first report
	// says the call is in the server.
	slow := func(id, tag string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"slow","arguments":{"seconds":600,"steps":6000,"tag":"` + tag + `"}},"_meta":{"progressToken":"p-` + tag + `"}}}`
	}
	pairs := []struct{ first, second string }{
		{`9007199254740993`, `9007199254740992`}, // both through mcp-go (a _meta)
		{`1.0`, `1`},
	}
	for i, p := range pairs {
		a.send(slow(p.first, fmt.Sprintf("first%d", i)))
		a.send(slow(p.second, fmt.Sprintf("second%d", i)))
		a.progressed(fmt.Sprintf("p-first%d", i), fmt.Sprintf("p-second%d", i))
		for j, id := range []string{p.first, p.second} {
			a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"test"}}`)
			want := []string{"first", "second"}[j] + fmt.Sprint(i)
			lines := waitForLines(t, a, cancels, 2*i+j+1)
			if got := lines[2*i+j]; !strings.HasSuffix(got, " "+want) {
				t.Errorf("cancelling id %s cancelled %q, want the call tagged %s", id, got, want)
			}
		}
	}
}

// waitForLines waits until path holds n lines, and returns them.
func waitForLines(t *testing.T, a *idLines, path string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		data, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(data) == 0 {
			lines = nil
		}
		if len(lines) >= n {
			return lines
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s holds %d lines, want %d\nstderr:\n%s", path, len(lines), n, a.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// The same over dispatch serve's HTTP, each id's requests in a session
// it initializes with that id. Before: as over stdio.
func TestServeHTTP_AnswersCarryTheAgentsIDExactly(t *testing.T) {
	d := startHTTPDispatchWith(t, nil, fixture())
	for _, id := range hardIDs {
		var session string
		for _, r := range idRequests {
			if r.name == "broken JSON" {
				continue // mcp-go's HTTP transport answers it, to no id
			}
			headers := map[string]string{}
			if session != "" {
				headers["Mcp-Session-Id"] = session
			}
			resp, body := rawPost(t, d.url, headers, strings.ReplaceAll(r.line, "ID", id))
			if r.name == "initialize" {
				if session = resp.Header.Get("Mcp-Session-Id"); session == "" {
					t.Fatalf("initialize with id %s: no session (%s): %s", id, resp.Status, body)
				}
				rawPost(t, d.url, map[string]string{"Mcp-Session-Id": session}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			if got := answerID(body); got != id {
				t.Errorf("%s with id %s: answered to id %s: %.200s", r.name, id, got, body)
			}
		}
	}
}

// answerID is the id, as written, of the answer in an HTTP body: one
// JSON-RPC message, or the event of an SSE stream that carries an answer.
func answerID(body string) string {
	messages := []string{body}
	if strings.HasPrefix(body, "event:") || strings.HasPrefix(body, "data:") || strings.HasPrefix(body, "id:") {
		messages = nil
		for _, line := range strings.Split(body, "\n") {
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				messages = append(messages, data)
			}
		}
	}
	for _, m := range messages {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal([]byte(m), &msg) == nil && (msg.Result != nil || msg.Error != nil) {
			return string(msg.ID)
		}
	}
	return "(no answer)"
}
