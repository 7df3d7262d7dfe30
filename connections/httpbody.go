package connections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"strings"
)

// MaxHTTPErrorBody bounds how much of a remote server's HTTP error answer
// (status 400 and above) dispatch reads: enough to tell a forgotten
// session from another refusal and to quote the server's message. mcp-go
// reads an error body whole and prints it in its error; the rest is never
// read, so a server answering 500 with gigabytes costs nothing.
const MaxHTTPErrorBody = 4096

// maxSniffedRequest bounds how much of a request's body is read to learn
// its method and id, which mcp-go writes first.
const maxSniffedRequest = 512

// httpLimits are the limits on one remote server's answers.
type httpLimits struct {
	maxMessage int64 // one JSON body or one SSE event (--max-message)
	streamable bool  // the server speaks streamable HTTP (not legacy SSE)
}

// sentRequest is what dispatch learns of a JSON-RPC message it sends
// from the start of its body.
type sentRequest struct {
	method string
	id     string // a string id: dispatch's own requests
	isCall bool   // a request (it has an id), not a notification or an answer
}

// sniffRequest reads the method and id at the start of req's body, as
// mcp-go writes them ({"jsonrpc":…,"id":…,"method":…}), without
// consuming the body.
func sniffRequest(req *http.Request) sentRequest {
	var sent sentRequest
	if req.Method != http.MethodPost || req.GetBody == nil {
		return sent
	}
	body, err := req.GetBody()
	if err != nil {
		return sent
	}
	defer body.Close()
	dec := json.NewDecoder(io.LimitReader(body, maxSniffedRequest))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return sent
	}
	hasID := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return sent
		}
		switch key {
		case "id":
			var id any
			if dec.Decode(&id) != nil {
				return sent
			}
			hasID = id != nil
			sent.id, _ = id.(string)
		case "method":
			if dec.Decode(&sent.method) != nil {
				return sent
			}
			sent.isCall = hasID
			return sent
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return sent
			}
		}
	}
	return sent
}

// serverAnswered marks an error about an answer the server did give (an
// HTTP error status, a wrong content type, a refused redirect): the
// server is there, so it is reported as what it said, not as "cannot
// reach" or "connection lost".
type serverAnswered interface {
	error
	serverAnswered()
}

// HTTPStatusError is a remote server's HTTP error status answering a
// request, with the start of what it said.
type HTTPStatusError struct {
	URL    string // without user info or query
	Status int
	// Body is the first MaxHTTPErrorBody bytes of the answer's body,
	// masked: a server may echo the request's credential.
	Body   string
	Unread bool // the body went on past MaxHTTPErrorBody
}

func (e *HTTPStatusError) Error() string {
	msg := fmt.Sprintf("%s answered HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if text := strings.TrimSpace(e.Body); text != "" {
		msg += ": " + quoteMasked(text, e.Unread)
	}
	return msg
}

func (e *HTTPStatusError) serverAnswered() {}

// refusesErrorStatus reports whether a request answered with an error
// status fails with an HTTPStatusError, rather than mcp-go seeing the
// answer itself: an authorization challenge (401), a forgotten session
// (404), a refused initialize (which explainInitErr explains), the
// listening stream's answers (GET: 405 means "no stream"), and a JSON-RPC
// error answer sent with an error status.
func refusesErrorStatus(req *http.Request, sent sentRequest, status int, body []byte) bool {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusNotFound, req.Method != http.MethodPost:
		return false
	case sent.method == "initialize" && status < 500:
		return false
	}
	return !isJSONRPCAnswer(body)
}

// isJSONRPCAnswer reports whether body is a whole JSON-RPC answer.
func isJSONRPCAnswer(body []byte) bool {
	var answer struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &answer) == nil && answer.JSONRPC != "" && (answer.Result != nil || answer.Error != nil)
}

// ContentTypeError is a streamable HTTP server's answer to a request
// that is neither JSON nor an SSE stream: usually a web page, at a URL
// that is not the server's MCP endpoint.
type ContentTypeError struct {
	URL         string
	ContentType string // masked
}

func (e *ContentTypeError) Error() string {
	return fmt.Sprintf("%s answered with content type %s, not application/json or text/event-stream as an MCP server does: check that the URL is the server's MCP endpoint (often /mcp)", e.URL, quoteMasked(e.ContentType, false))
}

func (e *ContentTypeError) serverAnswered() {}

// checkAnswer bounds and checks a successful answer: a request's answer
// from a streamable HTTP server must be JSON or SSE; a JSON body is
// refused past limits.maxMessage bytes (decompressed: net/http has
// already undone gzip) or MaxHTTPAnswerNesting levels, an SSE stream's
// events likewise (guardAnswer).
func (rt *httpRoundTripper) checkAnswer(req *http.Request, sent sentRequest, resp *http.Response) (*http.Response, error) {
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if rt.limits.streamable && sent.isCall && resp.StatusCode == http.StatusOK &&
		mediaType != "application/json" && mediaType != "text/event-stream" {
		resp.Body.Close()
		return nil, &ContentTypeError{URL: publicURL(req.URL.String()), ContentType: rt.redactor.String(resp.Header.Get("Content-Type"))}
	}
	guardAnswer(resp, mediaType, &rt.nesting, rt.limits.maxMessage, sent)
	return resp, nil
}

// sizeLimitedBody fails its read past max bytes with a
// MessageTooLongError (mcp-go returns the read error, wrapped, from the
// request).
type sizeLimitedBody struct {
	io.ReadCloser
	read, max int64
	err       error
}

func (b *sizeLimitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if left := b.max - b.read + 1; int64(len(p)) > left {
		p = p[:left] // one byte past the limit tells it was crossed
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.read > b.max {
		b.err = &MessageTooLongError{Size: b.max, Limit: b.max}
		return n - int(b.read-b.max), b.err
	}
	return n, err
}

// errorBody is the part of an error answer dispatch read, in place of
// the whole body; closing it closes the connection's body.
func errorBody(peek []byte, body io.Closer) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{bytes.NewReader(peek), body}
}

// MalformedAnswerError is an HTTP answer net/http could not parse (a
// header with control characters, a broken status line): the server, or
// a proxy in front of it, answered, but not in HTTP.
type MalformedAnswerError struct {
	URL string
	// Reason is net/http's, masked: it quotes the line of the answer it
	// could not parse, which may echo a credential.
	Reason string
}

func (e *MalformedAnswerError) Error() string {
	return fmt.Sprintf("%s sent a malformed HTTP answer (%s): the server or a proxy in front of it is broken", e.URL, quoteMasked(e.Reason, false))
}

func (e *MalformedAnswerError) serverAnswered() {}

// explainAnswerErr turns a round trip's failure to parse the server's
// answer into a MalformedAnswerError, masked by r; other failures are
// returned as they are.
func explainAnswerErr(req *http.Request, err error, r *Redactor) error {
	var proto textproto.ProtocolError
	if errors.As(err, &proto) {
		return &MalformedAnswerError{URL: publicURL(req.URL.String()), Reason: r.String(string(proto))}
	}
	return err
}
