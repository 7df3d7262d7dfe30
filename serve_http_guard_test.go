package main

import (
	"context"
	"dispatch/internal/testkit"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// sessionID is the Mcp-Session-Id of an HTTP client's session.
func sessionID(t *testing.T, c *client.Client) string {
	t.Helper()
	tr, ok := c.GetTransport().(*transport.StreamableHTTP)
	if !ok || tr.GetSessionId() == "" {
		t.Fatal("the client has no HTTP session id")
	}
	return tr.GetSessionId()
}

// getListening sends GET /mcp for the session, the request that opens its
// listening stream. An open stream is held until the test ends.
func getListening(t *testing.T, url, id string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		t.Cleanup(func() { cancel(); resp.Body.Close() })
		return resp.StatusCode, ""
	}
	defer cancel()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestServeHTTP_ListeningStreamsDoNotLockOthersOut: each session may hold
// one listening stream (a second is 409), and those streams take no place
// of --max-http-in-flight: with every place's worth of streams open,
// calls and a new session are still served.
func TestServeHTTP_ListeningStreamsDoNotLockOthersOut(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-http-in-flight", "2")
	// Clients that open no listening stream of their own: the test opens
	// each session's.
	a, b := d.sessionWith(t, nil), d.sessionWith(t, nil)
	for _, c := range []*client.Client{a, b} {
		if status, body := getListening(t, d.url, sessionID(t, c)); status != http.StatusOK {
			t.Fatalf("opening a listening stream: %d %q", status, body)
		}
	}
	status, body := getListening(t, d.url, sessionID(t, a))
	if status != http.StatusConflict || !strings.Contains(body, "listening stream") {
		t.Errorf("a second listening stream of one session: %d %q, want 409 saying what conflicts", status, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for name, c := range map[string]*client.Client{"a": a, "b": b} {
		if text, isErr := callText(ctx, t, c, map[string]any{"action": "list"}); isErr {
			t.Errorf("session %s's call beside the listening streams: %.300s", name, text)
		}
	}
	d.session(t)
	if !strings.Contains(d.stderr.String(), "status=409") {
		t.Errorf("the 409 has no log line:\n%s", d.stderr.String())
	}
}

// TestServeHTTP_TokenFileNeedsListen: --token-file without --listen would
// serve stdio and ignore the token; it is a usage error instead.
func TestServeHTTP_TokenFileNeedsListen(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(strings.Repeat("k", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture(), "serve", "--token-file", tokenFile)
	if code != exitUsage || !strings.Contains(stderr, "--listen") {
		t.Errorf("exit %d, stderr %q; want %d naming --listen", code, stderr, exitUsage)
	}
}

// TestServeHTTP_HostOnAllAddresses: listening on all addresses, Host must
// be an IP address, a loopback name or an --allow-host name; a refused
// name is our clear 403 with a log line saying how to allow it.
func TestServeHTTP_HostOnAllAddresses(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startHTTPDispatch(t, nil, "--listen", "0.0.0.0:0", "--token-file", tokenFile, "--allow-host", "box.example")
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	loopURL := "http://127.0.0.1:" + u.Port() + "/mcp"
	auth := "Bearer " + token
	tests := []struct {
		name, host string
		status     int
		says       string
	}{
		{"by address", "127.0.0.1:" + u.Port(), http.StatusOK, "serverInfo"},
		{"by an allowed name", "box.example:" + u.Port(), http.StatusOK, "serverInfo"},
		{"by another name", "evil.example:" + u.Port(), http.StatusForbidden, "--allow-host evil.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawPost(t, loopURL, map[string]string{"Authorization": auth, "Host": tt.host}, initializeBody)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.says) {
				t.Errorf("status %d body %.300q, want %d saying %q", resp.StatusCode, body, tt.status, tt.says)
			}
		})
	}
	// The line is written after the answer is sent: wait for it.
	testkit.WaitFor(t, "the refused Host's log line", 10*time.Second, func() bool {
		return strings.Contains(d.stderr.String(), `"HTTP request refused" status=403`)
	})
}

// rawSession opens a session by hand (initialize and
// notifications/initialized) and returns its Mcp-Session-Id.
func rawSession(t *testing.T, url string) string {
	t.Helper()
	resp, body := rawPost(t, url, nil, initializeBody)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %.300q", resp.StatusCode, body)
	}
	if resp, body := rawPost(t, url, map[string]string{"Mcp-Session-Id": id}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %.300q", resp.StatusCode, body)
	}
	return id
}

// streamEnds reports on the returned channel when the body of a listening
// stream ends (EOF or an error), whatever it carried before.
func streamEnds(t *testing.T, url, id string) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("opening the listening stream: %d", resp.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
	}()
	return ended
}

// TestServeHTTP_ListeningStreamEndsWithItsSession: an agent that ends its
// session (DELETE) but keeps its listening stream's connection open does
// not keep the stream: it ends with the session, so that streams stay
// bounded by --max-sessions.
func TestServeHTTP_ListeningStreamEndsWithItsSession(t *testing.T) {
	d := startHTTPDispatch(t, nil, "--max-sessions", "2")
	for i := range 3 { // past --max-sessions: ended sessions hold no place
		id := rawSession(t, d.url)
		ended := streamEnds(t, d.url, id)
		req, err := http.NewRequest(http.MethodDelete, d.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("DELETE of session %d: %d", i, resp.StatusCode)
		}
		select {
		case <-ended:
		case <-time.After(15 * time.Second):
			t.Fatalf("session %d's listening stream is still open 15 s after its DELETE", i)
		}
	}
}

// TestServeHTTP_LoopbackWithoutTokenWarns: loopback TCP keeps other
// machines out but not other users of this one; without a token dispatch
// says so when it starts. With a token, or over a unix socket (which
// checks who connects), it does not.
func TestServeHTTP_LoopbackWithoutTokenWarns(t *testing.T) {
	const warning = "any user of this machine can use your servers"
	if log := startHTTPDispatch(t, nil).stderr.String(); !strings.Contains(log, warning) || !strings.Contains(log, "--token-file") {
		t.Errorf("no warning for loopback TCP without a token:\n%s", log)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(strings.Repeat("k", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(testkit.ShortTempDir(t), "run", "s")
	for name, args := range map[string][]string{"token": {"--token-file", tokenFile}, "unix socket": {"--listen", "unix:" + sock}} {
		if log := startHTTPDispatch(t, nil, args...).stderr.String(); strings.Contains(log, warning) {
			t.Errorf("with a %s, a warning about other users:\n%s", name, log)
		}
	}
}

// TestServeHTTP_SessionIDsStayOutOfTheLog: mcp-go's transport lines name
// a session by its short log id, never its Mcp-Session-Id (whoever reads
// the log could use the session); and an answer to a request nobody
// waits for (a keep-alive ping answered with a result, a duplicate) is
// taken with 202 and no ERROR line, where it got 400 and an ERROR with
// the full id every 30 s.
func TestServeHTTP_SessionIDsStayOutOfTheLog(t *testing.T) {
	d := startHTTPDispatch(t, nil)
	ada := &namedAgent{name: "ada"}
	c := ada.connect(t, d)
	if text, isErr := callFixture(t, c, "request-sampling", map[string]any{"prompt": "hi"}); isErr || text != "ada sampled: hi" {
		t.Fatalf("request-sampling = %q (isError %v)", text, isErr)
	}
	sid := sessionID(t, c)
	resp, body := rawPost(t, d.url, map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","id":987654,"result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("an answer to no pending request: %d %.300q, want 202", resp.StatusCode, body)
	}
	// mcp-go's line for a refused answer came just after its answer: a
	// call's line comes after that.
	if text, isErr := callFixture(t, c, "echo", map[string]any{"message": "after"}); isErr || !strings.Contains(text, "after") {
		t.Fatalf("echo = %q (isError %v)", text, isErr)
	}
	log := d.stderr.String()
	if !regexp.MustCompile(`"Delivered sampling response" session=h\d+ `).MatchString(log) {
		t.Errorf("mcp-go's line for the delivered answer does not name the session by its log id:\n%s", log)
	}
	if strings.Contains(log, sid) {
		t.Errorf("the session's Mcp-Session-Id is in dispatch's log:\n%s", log)
	}
	if strings.Contains(log, "level=ERROR") {
		t.Errorf("an ERROR line for an answer nobody waits for:\n%s", log)
	}
}
