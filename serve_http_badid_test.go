package main

// Request ids JSON-RPC 2.0 does not allow (an object, an array, a
// boolean) are refused with -32600 Invalid Request to a null id, over
// both of dispatch serve's transports, and the request is never run.

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// badIDs are ids an MCP request may not have: it must be a string or a
// number (JSON-RPC 2.0 allows null too; MCP does not).
var badIDs = []string{`{}`, `{"a":1}`, `[1]`, `[]`, `true`, `false`, `null`}

// badIDCall is a tools/call of the serial fixture's echo, which its
// --serial-log records as "call <id> <message>".
func badIDCall(id, message string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"` + message + `"}}}}`
}

// wantInvalidRequest fails the test unless answer is a JSON-RPC error
// -32600 to a null id that names the id's rule.
func wantInvalidRequest(t *testing.T, what, answer string) {
	t.Helper()
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &msg); err != nil {
		t.Errorf("%s: answer is not one JSON-RPC message (%v): %.300q", what, err, answer)
		return
	}
	if msg.Error == nil || msg.Error.Code != -32600 || string(msg.ID) != "null" || !strings.Contains(msg.Error.Message, "string or a number") {
		t.Errorf("%s: answered %.300s, want error -32600 (Invalid Request) to id null saying an id is a string or a number", what, answer)
	}
}

// serialCalls waits until the serial fixture's log holds the call with
// message last, and returns every call it logged.
func serialCalls(t *testing.T, log, last string) []string {
	t.Helper()
	var calls []string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(log)
		calls = nil
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "call ") {
				calls = append(calls, line)
			}
		}
		for _, c := range calls {
			if strings.HasSuffix(c, " "+last) {
				return calls
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server never got the call %q; it got %q", last, calls)
	return nil
}

// wantOnlyGoodCalls fails the test if the server ran any call but the
// one with message "good".
func wantOnlyGoodCalls(t *testing.T, log string) {
	t.Helper()
	calls := serialCalls(t, log, "good")
	if len(calls) != 1 {
		t.Errorf("the server ran %q, want only the call with a valid id (good): requests with invalid ids must never run", calls)
	}
}

// Before: each was served as if valid, the call run and answered to the
// invalid id ({"jsonrpc":"2.0","id":{},"result":{...}}).
func TestServe_InvalidRequestIDsRefused(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	a := startIDLines(t, "--no-cache", "--mcp", fixture("--serial", "--serial-log", log), "serve")
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a.answer()
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, id := range badIDs {
		for _, line := range []string{badIDCall(id, "bad"), `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`} {
			a.send(line)
			_, answer := a.answer()
			wantInvalidRequest(t, "over stdio, "+line, answer)
		}
	}
	a.send(badIDCall(`7`, "good"))
	if id, answer := a.answer(); id != "7" || !strings.Contains(answer, "good") {
		t.Errorf("a call with a valid id after the invalid ones: %.300s", answer)
	}
	wantOnlyGoodCalls(t, log)
}

// The same over HTTP, in a session and for an initialize. Before: as
// over stdio.
func TestServeHTTP_InvalidRequestIDsRefused(t *testing.T) {
	log := filepath.Join(t.TempDir(), "serial.log")
	d := startHTTPDispatchWith(t, nil, fixture("--serial", "--serial-log", log))
	sid := rawSession(t, d.url)
	session := map[string]string{"Mcp-Session-Id": sid}
	for _, id := range badIDs {
		for _, line := range []string{badIDCall(id, "bad"), `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`} {
			resp, body := rawPost(t, d.url, session, line)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("over HTTP, %s: status %d, want 400", line, resp.StatusCode)
			}
			wantInvalidRequest(t, "over HTTP, "+line, body)
		}
		resp, body := rawPost(t, d.url, nil, strings.Replace(initializeBody, `"id":1`, `"id":`+id, 1))
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("over HTTP, an initialize with id %s: status %d, session %q; want 400 and no session", id, resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
		}
		wantInvalidRequest(t, "over HTTP, an initialize with id "+id, body)
	}
	resp, body := rawPost(t, d.url, session, badIDCall(`7`, "good"))
	if resp.StatusCode != http.StatusOK || answerID(body) != "7" || !strings.Contains(body, "good") {
		t.Errorf("over HTTP, a call with a valid id after the invalid ones: %d %.300s", resp.StatusCode, body)
	}
	wantOnlyGoodCalls(t, log)
}
