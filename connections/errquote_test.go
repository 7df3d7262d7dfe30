package connections

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// quoteShows fails t unless msg quotes a server's text masked, then cut
// with a note: no start of secret, the mask, the note, and short.
func quoteShows(t *testing.T, what, msg, secret string, notes ...string) {
	t.Helper()
	if strings.Contains(msg, secret[:6]) {
		t.Errorf("%s shows the start of a credential (%q): %s", what, secret[:6], msg)
	}
	for _, want := range append([]string{Mask, "…[cut: "}, notes...) {
		if !strings.Contains(msg, want) {
			t.Errorf("%s lacks %q: %s", what, want, msg)
		}
	}
	if len(msg) > 1000 {
		t.Errorf("%s is %d bytes: %.300s", what, len(msg), msg)
	}
}

// An HTTP error answer that echoes the request's credential where the
// quote is cut: the credential is masked before the cut, so that not
// even its first bytes show, and the quote says it was cut and that
// more went unread.
func TestConn_HTTPErrorBodyMaskedBeforeCut(t *testing.T) {
	const key = "k3y-0123456789abcdefghij"
	h := startHostileHTTP(t)
	h.answers["echo-key"] = func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		// The key straddles the 200th byte; the body goes on past
		// MaxHTTPErrorBody.
		w.Write([]byte(strings.Repeat("x", MaxQuotedText-5) + r.Header.Get("X-Api-Key") + strings.Repeat("y", 2*MaxHTTPErrorBody)))
	}
	h.answers["accents"] = func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(strings.Repeat("é", MaxQuotedText))) // 400 bytes
	}
	cfg := ServerConfig{Transport: TransportHTTP, URL: h.srv.URL + "/mcp", Headers: map[string]string{"X-Api-Key": key}}
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Redactor: NewRedactor(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	c := set.Conns()[0]

	_, err = callTool(t, c, "echo-key")
	if err == nil {
		t.Fatal("a call answered HTTP 500 succeeded")
	}
	quoteShows(t, "the error", err.Error(), key, "HTTP 500", "MaxQuotedText", "more unread (MaxHTTPErrorBody)")

	_, err = callTool(t, c, "accents")
	if err == nil {
		t.Fatal("a call answered HTTP 500 succeeded")
	}
	msg := err.Error()
	want := `"` + strings.Repeat("é", MaxQuotedText/2) + `"…[cut: 200 more bytes (MaxQuotedText)]`
	if !strings.Contains(msg, want) {
		t.Errorf("a 400-byte body of 2-byte characters: want it cut at a character's start after 200 bytes, with a note; got %s", msg)
	}
}

// An HTTP error body whose credential straddles the end of what dispatch
// reads of it (MaxHTTPErrorBody), after blanks the quote trims: it is
// masked whole, as read past that end, not shown by its start. Before:
// the quote was "k3y-012345".
func TestConn_HTTPErrorBodyCredentialAtTheReadEnd(t *testing.T) {
	const key = "k3y-0123456789abcdefghij"
	h := startHostileHTTP(t)
	h.answers["echo-key"] = func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(strings.Repeat(" ", MaxHTTPErrorBody-10) + r.Header.Get("X-Api-Key") + strings.Repeat("y", 2*MaxHTTPErrorBody)))
	}
	cfg := ServerConfig{Transport: TransportHTTP, URL: h.srv.URL + "/mcp", Headers: map[string]string{"X-Api-Key": key}}
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Redactor: NewRedactor(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	_, err = callTool(t, set.Conns()[0], "echo-key")
	if err == nil {
		t.Fatal("a call answered HTTP 500 succeeded")
	}
	quoteShows(t, "the error", err.Error(), key, "HTTP 500", "more unread (MaxHTTPErrorBody)")
}

// The same at initialize, whose refusal dispatch explains itself.
func TestConn_InitRefusalMaskedBeforeCut(t *testing.T) {
	const key = "k3y-0123456789abcdefghij"
	refusing := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, strings.Repeat("x", MaxQuotedText-5)+r.Header.Get("X-Api-Key")+" is no tenant's", http.StatusBadRequest)
	}))
	cfg := ServerConfig{Transport: TransportHTTP, URL: refusing + "/mcp", Headers: map[string]string{"X-Api-Key": key}}
	set, err := NewSet([]ServerConfig{cfg}, Options{ConnectTimeout: 10 * time.Second, Redactor: NewRedactor(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = set.Conns()[0].Connect(ctx)
	if err == nil {
		t.Fatal("connected")
	}
	quoteShows(t, "the error", err.Error(), key, "answered HTTP 400 to initialize", "MaxQuotedText")
}

// A cursor the server repeats is quoted bounded, masked before the cut.
func TestConn_RepeatedCursorBounded(t *testing.T) {
	const token = "sk-proj0123456789abcdef"
	cursor := strings.Repeat("c", MaxQuotedText-6) + " " + token + " " + strings.Repeat("d", 100<<10)
	url := hostileServer(t, `{"prompts":{}}`, func(method string, _ json.RawMessage) (any, error) {
		if method == "prompts/list" {
			return map[string]any{"prompts": []any{map[string]any{"name": "p"}}, "nextCursor": cursor}, nil
		}
		return nil, &RPCError{Code: -32601, Message: "Method not found"}
	})
	c := newTestConn(t, ServerConfig{Transport: TransportHTTP, URL: url}, nil)
	_, err := c.Prompts(context.Background(), false)
	if err == nil || !strings.Contains(err.Error(), "server repeated cursor") {
		t.Fatalf("a cursor repeated for ever: %v", err)
	}
	quoteShows(t, "the error", err.Error(), token, "MaxQuotedText")
}

// A token endpoint's refusal whose description holds, where the quote is
// cut, a credential the request did not send is masked before the cut,
// and the quote says it was cut.
func TestRequestToken_RefusalMaskedBeforeCut(t *testing.T) {
	const token = "ghp_0123456789abcdefghijklmnop"
	endpoint := serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant",
			"error_description": strings.Repeat("x", MaxQuotedText-8) + " " + token + " " + strings.Repeat("y", 1000)})
	}))
	meta := &AuthServerMetadata{Issuer: endpoint, TokenEndpoint: endpoint + "/token"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := requestToken(ctx, newOAuthHTTPClient(), meta, clientCreds{ID: "c"}, url.Values{"grant_type": {"client_credentials"}})
	if err == nil {
		t.Fatal("a refused grant succeeded")
	}
	quoteShows(t, "the refusal", err.Error(), token, "invalid_grant", "MaxQuotedText")
}
