package connections

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A legacy HTTP+SSE server (protocol 2024-11-05) sends its requests to
// the client (ping, roots/list, sampling/createMessage,
// elicitation/create) on its SSE stream, and takes the answers as POSTs
// to its message endpoint. mcp-go's SSE client has no handler for them:
// it never answered them, and took a request whose id equals one of its
// own pending request ids for that request's answer (a request to the
// client during tools/call 3 with id 3 ended the call with an empty
// result). So dispatch takes every request out of the stream before
// mcp-go reads it (sseIDBody with requests set) and answers it here,
// through the handler the connection sets (Conn.serveServerRequest, as
// for stdio and streamable HTTP); the answer is POSTed with the session's
// HTTP client, so that an id given a surrogate goes back as the server
// wrote it (serverIDs) and OAuth applies.

// MaxHeldSSERequest bounds how much of one event of a legacy SSE server
// is held back to find out whether it is a request, and how much of a
// request is kept to relay it. A request is refused past it with an
// error naming the limit (its method and id are known by then); an
// event still undecided past it (neither an answer's "result" or
// "error", nor a request's method and id, were seen) is dropped, as
// mcp-go could take a request for an answer. It is larger than
// MaxHeldServerEvent because it must hold whole requests up to
// MaxRelayedRequestBytes.
const MaxHeldSSERequest = MaxRelayedRequestBytes + 64<<10

// sseAnswerTimeout bounds POSTing one answer to a legacy SSE server.
const sseAnswerTimeout = 30 * time.Second

// sseServerRequests answers the requests of one legacy SSE session.
type sseServerRequests struct {
	ctx      context.Context // the session's: ends every request with it
	client   *http.Client    // the session's (surrogate ids, OAuth)
	headers  map[string]string
	endpoint func() *url.URL // the message endpoint the server announced
	timeout  time.Duration   // per request (--server-request-timeout)
	log      *slog.Logger

	// requestSlots holds a token per request being answered
	// (MaxServerRequests), refusalSlots one per refusal being posted.
	requestSlots chan struct{}
	refusalSlots chan struct{}

	handlerMu sync.RWMutex // guards handler and log
	handler   transport.RequestHandler

	// inFlight ends a request being answered when the server cancels it.
	// A request is entered before its goroutine starts, so that a
	// cancellation right behind it on the stream is not missed.
	inFlightMu sync.Mutex
	inFlight   map[string]inFlightRequest // by requestIDKey
	seq        uint64
}

type inFlightRequest struct {
	seq    uint64
	cancel context.CancelCauseFunc
}

func newSSEServerRequests(ctx context.Context, client *http.Client, headers map[string]string, timeout time.Duration) *sseServerRequests {
	if timeout <= 0 {
		timeout = ServerRequestTimeout
	}
	return &sseServerRequests{
		ctx: ctx, client: client, headers: headers, timeout: timeout,
		log:          slog.New(slog.DiscardHandler),
		endpoint:     func() *url.URL { return nil },
		requestSlots: make(chan struct{}, MaxServerRequests),
		refusalSlots: make(chan struct{}, MaxServerRequests),
		inFlight:     map[string]inFlightRequest{},
	}
}

func (r *sseServerRequests) setHandler(h transport.RequestHandler) {
	r.handlerMu.Lock()
	r.handler = h
	r.handlerMu.Unlock()
}

// setLog makes log the logger of what goes wrong answering requests.
func (r *sseServerRequests) setLog(log *slog.Logger) {
	r.handlerMu.Lock()
	r.log = log
	r.handlerMu.Unlock()
}

func (r *sseServerRequests) logger() *slog.Logger {
	r.handlerMu.RLock()
	defer r.handlerMu.RUnlock()
	return r.log
}

// take answers the request data, a whole event's data (whole: false when
// it was over MaxHeldSSERequest and cut there). It runs on the stream's
// reader, so it never waits on an agent: the request is answered on a
// goroutine of its own, within MaxServerRequests; past them it is
// refused at once (a ping answered). With MaxServerRequests refusals
// being posted, the reader waits for one, as over stdio.
func (r *sseServerRequests) take(data []byte, whole bool) {
	if !whole {
		m := scanMembers(data, "id", "method")
		id, method := m.members[0], m.members[1]
		var req struct {
			ID     mcp.RequestId
			Method string
		}
		if !id.complete() || !method.complete() ||
			json.Unmarshal(data[id.start:id.end], &req.ID) != nil || json.Unmarshal(data[method.start:method.end], &req.Method) != nil {
			r.logger().Warn("a legacy SSE server's request was dropped: over MaxHeldSSERequest, and its id or method unreadable")
			return
		}
		r.refuse(transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, fmt.Sprintf(
			"dispatch relays requests of at most %s to the client (MaxHeldSSERequest); this %s is larger: send less, or a resource link to the data",
			humanize.IBytes(MaxHeldSSERequest), preview([]byte(req.Method), 100)), nil))
		return
	}
	var msg struct {
		ID     mcp.RequestId   `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		r.logger().Warn("a legacy SSE server's request was dropped: not valid JSON-RPC", "error", err.Error())
		return
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: msg.ID, Method: msg.Method, Params: msg.Params}
	if req.Method == string(mcp.MethodPing) {
		r.refuse(transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)))
		return
	}
	select {
	case r.requestSlots <- struct{}{}:
		ctx, forget := r.track(req.ID)
		go r.serve(ctx, forget, req)
	default:
		r.refuse(transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, fmt.Sprintf(
			"dispatch is busy: %d requests of this server already wait for their answer (MaxServerRequests); %s was not relayed: send it again once one is answered",
			MaxServerRequests, preview([]byte(req.Method), 100)), nil))
	}
}

// dropped notes an event dropped undecided (MaxHeldSSERequest).
func (r *sseServerRequests) dropped() {
	r.logger().Warn("a legacy SSE server's event was dropped: over MaxHeldSSERequest before it showed whether it is an answer or a request")
}

// serve answers req with the handler's answer, or an error one when the
// handler failed or took longer than the timeout, and gives its slot
// back. A request the server cancelled gets no answer.
func (r *sseServerRequests) serve(ctx context.Context, forget func(), req transport.JSONRPCRequest) {
	defer func() { <-r.requestSlots }()
	defer forget()
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	r.handlerMu.RLock()
	h := r.handler
	r.handlerMu.RUnlock()
	resp := transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "dispatch does not serve "+req.Method, nil)
	if h != nil {
		var err error
		if resp, err = h(ctx, req); err != nil {
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		}
	}
	if resp != nil && !errors.Is(context.Cause(ctx), errServerCancelled) {
		r.post(resp)
	}
}

// track is the context of the request with id, which ends when the
// server cancels it, until forget is called.
func (r *sseServerRequests) track(id mcp.RequestId) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(r.ctx)
	key := requestIDKey(id)
	r.inFlightMu.Lock()
	r.seq++
	entry := inFlightRequest{seq: r.seq, cancel: cancel}
	r.inFlight[key] = entry
	r.inFlightMu.Unlock()
	return ctx, func() {
		r.inFlightMu.Lock()
		if r.inFlight[key].seq == entry.seq {
			delete(r.inFlight, key)
		}
		r.inFlightMu.Unlock()
		cancel(nil)
	}
}

// cancelled ends the request a notifications/cancelled of the server
// names, if it is being answered: it gets no answer.
func (r *sseServerRequests) cancelled(n mcp.JSONRPCNotification) {
	id, ok := cancelledRequestID(n)
	if !ok {
		return
	}
	r.inFlightMu.Lock()
	entry, ok := r.inFlight[requestIDKey(id)]
	r.inFlightMu.Unlock()
	if ok {
		entry.cancel(errServerCancelled)
	}
}

// refuse posts resp, an answer that asks nothing of an agent, on a
// goroutine of its own bounded by refusalSlots.
func (r *sseServerRequests) refuse(resp *transport.JSONRPCResponse) {
	select {
	case r.refusalSlots <- struct{}{}:
		go func() {
			defer func() { <-r.refusalSlots }()
			r.post(resp)
		}()
	case <-r.ctx.Done():
	}
}

// post sends resp to the server's message endpoint. Its context is its
// own bound, not the request's, which may have expired: no request
// dispatch took goes unanswered while the session lives.
func (r *sseServerRequests) post(resp *transport.JSONRPCResponse) {
	body, err := json.Marshal(resp)
	if err != nil {
		r.logger().Warn("answer a legacy SSE server's request", "error", err.Error())
		return
	}
	r.postRaw(body)
}

// refuseRaw posts body, an answer as JSON, as refuse does.
func (r *sseServerRequests) refuseRaw(body []byte) {
	select {
	case r.refusalSlots <- struct{}{}:
		go func() {
			defer func() { <-r.refusalSlots }()
			r.postRaw(body)
		}()
	case <-r.ctx.Done():
	}
}

// postRaw sends body, an answer as JSON, as post does.
func (r *sseServerRequests) postRaw(body []byte) {
	endpoint := r.endpoint()
	if endpoint == nil {
		r.logger().Warn("a legacy SSE server's request was not answered: it announced no message endpoint")
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, sseAnswerTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint.String(), bytes.NewReader(body))
	if err != nil {
		r.logger().Warn("answer a legacy SSE server's request", "error", err.Error())
		return
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	answer, err := r.client.Do(req)
	if err != nil {
		r.logger().Debug("answer a legacy SSE server's request", "error", explainHTTPErr(ServerConfig{Transport: TransportSSE, URL: endpoint.String()}, err).Error())
		return
	}
	defer answer.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(answer.Body, MaxHTTPErrorBody)); err != nil {
		r.logger().Debug("answer a legacy SSE server's request", "error", err.Error())
	}
	if answer.StatusCode != http.StatusOK && answer.StatusCode != http.StatusAccepted {
		r.logger().Debug("a legacy SSE server refused dispatch's answer to its request", "status", answer.StatusCode)
	}
}

// sseTransport is mcp-go's legacy SSE client transport with a handler
// for the server's requests (BidirectionalInterface), which it lacks.
type sseTransport struct {
	*transport.SSE
	requests *sseServerRequests
}

func (t *sseTransport) SetRequestHandler(h transport.RequestHandler) { t.requests.setHandler(h) }

// SetNotificationHandler passes the server's notifications to h, a
// cancellation of one of its requests ending that request first.
func (t *sseTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.SSE.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationCancelled) {
			t.requests.cancelled(n)
		}
		if h != nil {
			h(n)
		}
	})
}

// isServerRequest reports whether data, one whole message or the start
// of one, is a request: a method and a non-null id at its top level, and
// neither a "result" nor an "error" (a message with one is an answer,
// which a server may send to any id of dispatch's anyway).
func isServerRequest(data []byte) bool {
	m := scanMembers(data, "id", "method", "result", "error")
	id := m.members[0]
	return m.members[1].complete() && id.complete() && string(data[id.start:id.end]) != "null" &&
		!m.members[2].seen && !m.members[3].seen
}
