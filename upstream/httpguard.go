package upstream

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// guard is what every HTTP request passes before mcp-go sees it: the
// token, Host and Origin, the body's size, the session it names, and the
// bounds on requests in flight. Each refusal is an HTTP error saying what
// was wrong and a log line.
type guard struct {
	next    http.Handler
	token   []byte // nil: none configured
	hosts   hostRule
	maxBody int64
	// bodyTimeout bounds reading a body: the request holds a slot of
	// global meanwhile.
	bodyTimeout time.Duration
	sessions    *registry
	// global has one slot per request of a session being served, all
	// sessions together; reading one per session's body being read (and
	// answer or notification being handled); sessionless one per request
	// naming no open session (an initialize) being read or served.
	global      chan struct{}
	reading     chan struct{}
	sessionless chan struct{}
	// readers counts each session's bodies being read: at most
	// sessionReadShare of reading each.
	readers sessionReaders
	log     *slog.Logger
}

// sessionReadShare is how many of the reading slots (--max-http-in-flight)
// one session may hold at once: an equal share of --max-sessions, at least
// one. A client trickling its bodies (a byte a second, in many POSTs) then
// holds at most its own share, and every other session always finds its
// own free: before, one session could hold every slot, and the others'
// requests were refused as busy until its bodies timed out.
func sessionReadShare(maxHTTPInFlight, maxSessions int) int {
	if maxSessions <= 0 {
		return max(1, maxHTTPInFlight)
	}
	return max(1, maxHTTPInFlight/maxSessions)
}

// sessionReaders counts the bodies being read per session. A session has
// an entry only while it has a body being read, so there are never more
// entries than reading slots.
type sessionReaders struct {
	mu     sync.Mutex
	counts map[*httpSession]int
}

// take counts one more body of sess being read, unless it has share
// already.
func (c *sessionReaders) take(sess *httpSession, share int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts[sess] >= share {
		return false
	}
	if c.counts == nil {
		c.counts = map[*httpSession]int{}
	}
	c.counts[sess]++
	return true
}

// give counts one body of sess fewer.
func (c *sessionReaders) give(sess *httpSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts[sess] <= 1 {
		delete(c.counts, sess)
		return
	}
	c.counts[sess]--
}

func (g *guard) refuse(w http.ResponseWriter, r *http.Request, status int, text string) {
	g.log.Warn("HTTP request refused", "status", status, "method", r.Method, "remote", r.RemoteAddr, "why", text)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="dispatch"`)
	}
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	if r.Method == http.MethodPost {
		// net/http would read what is left of an unread body before
		// answering, with no deadline: a client trickling it would never
		// get the refusal, and hold its connection.
		w.Header().Set("Connection", "close")
	}
	http.Error(w, text, status)
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if why := g.hosts.checkHost(r.Host); why != "" {
		g.refuse(w, r, http.StatusForbidden, why)
		return
	}
	if why := g.hosts.checkOrigin(r.Header.Get("Origin")); why != "" {
		g.refuse(w, r, http.StatusForbidden, why)
		return
	}
	if g.token != nil && !g.authorized(r) {
		g.refuse(w, r, http.StatusUnauthorized, "missing or wrong bearer token: send the header \"Authorization: Bearer TOKEN\" with the token dispatch was started with (--token-file or DISPATCH_TOKEN)")
		return
	}
	switch r.Method {
	case http.MethodPost, http.MethodGet, http.MethodDelete:
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		g.refuse(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not served: MCP streamable HTTP uses POST, GET and DELETE", r.Method))
		return
	}
	// The session first, before any slot: a request naming no session
	// must never take one the sessions' requests need.
	id := r.Header.Get(server.HeaderKeySessionID)
	var sess *httpSession
	if id != "" {
		sess = g.sessions.get(id)
	}
	if r.Method != http.MethodPost || sess == nil {
		switch {
		case r.Method == http.MethodPost:
			// An initialize (or server/discover) needs no session; it
			// may name a stale one.
			g.serveSessionless(w, r, id)
		case id == "":
			g.refuse(w, r, http.StatusBadRequest, noSessionIDText)
		case sess == nil:
			g.refuse(w, r, http.StatusNotFound, noSessionText)
		case r.Method == http.MethodGet:
			// A listening stream lasts as long as its agent wants:
			// counted against --max-http-in-flight, a few would lock
			// everyone out.
			g.serveListening(w, r, sess)
		default:
			// DELETE frees everything the session holds: it must get
			// through however busy the session is.
			sess.log.Debug("HTTP request", "method", r.Method)
			g.next.ServeHTTP(w, r)
		}
		return
	}
	g.serveSessionPost(w, r, sess)
}

// serveSessionPost serves a POST of sess. Its body is read within a slot
// of reading, which a call in flight never holds, and of which sess holds
// at most its share (sessionReadShare); then a JSON-RPC request
// (a call, a list) takes a slot of global and one of the session's, while
// an answer to a server's request or a notification (cancelled, progress)
// is served at once: these are short, and they are how an agent frees
// slots. Were they counted, a session whose slots are all held by calls
// waiting on its answers, or on its cancels, could never send them.
func (g *guard) serveSessionPost(w http.ResponseWriter, r *http.Request, sess *httpSession) {
	if !g.takeReading(w, r, sess) {
		return
	}
	reading := true
	stopReading := func() {
		if reading {
			reading = false
			g.readers.give(sess)
			<-g.reading
		}
	}
	defer stopReading()
	body, msg, ok := g.readPosted(w, r)
	if !ok {
		return
	}
	if msg.Method == string(mcp.MethodInitialize) {
		// A new session, whatever the one named.
		stopReading()
		if g.takeSessionless(w, r) {
			defer func() { <-g.sessionless }()
			g.serveInitialize(w, r, body, msg)
		}
		return
	}
	if msg.isResponse() && !sess.awaits(msg.ID) {
		sess.log.Debug("an answer to no request awaiting one (a keep-alive ping's, or late) is dropped", "id", string(msg.ID))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if msg.isControl() {
		sess.touch()
		sess.log.Debug("HTTP message", "kind", msg.kind())
		// A cancellation names the request by the surrogate mcp-go knows
		// it by (swapHTTP).
		w, r, forget, ok := sess.ids.swapHTTP(w, r, body, msg)
		defer forget()
		if !ok {
			// A cancellation of no request in flight: nothing to do.
			w.WriteHeader(http.StatusAccepted)
			return
		}
		g.next.ServeHTTP(w, r)
		return
	}
	stopReading()
	if !g.takeGlobal(w, r) {
		return
	}
	defer func() { <-g.global }()
	g.serveIn(w, r, sess, body, msg)
}

// takeReading takes one of sess's share of the reading slots
// (sessionReadShare) and a reading slot, or refuses the request.
func (g *guard) takeReading(w http.ResponseWriter, r *http.Request, sess *httpSession) bool {
	share := sessionReadShare(cap(g.reading), g.sessions.max)
	if !g.readers.take(sess, share) {
		g.refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf("session busy: %d of its request bodies are being read (its share of --max-http-in-flight: that limit divided by --max-sessions); send each body whole, or wait for those to arrive, then retry", share))
		return false
	}
	select {
	case g.reading <- struct{}{}:
		return true
	default:
		g.readers.give(sess)
		g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("dispatch is busy: %d request bodies are being read over all sessions (the limit, --max-http-in-flight); retry shortly", cap(g.reading)))
		return false
	}
}

// readPosted reads a POST's body (readBody) and what it is (parsePosted),
// and refuses one past its kind's bound (smallEnough) or a request whose
// id JSON-RPC does not allow (validRequestID).
func (g *guard) readPosted(w http.ResponseWriter, r *http.Request) ([]byte, postedMessage, bool) {
	body, ok := g.readBody(w, r)
	if !ok {
		return nil, postedMessage{}, false
	}
	msg := parsePosted(body)
	if !g.smallEnough(w, r, msg, body) {
		return nil, postedMessage{}, false
	}
	if msg.Method != "" && !validRequestID(msg.ID) {
		g.refuseInvalidID(w, r, msg.ID)
		return nil, postedMessage{}, false
	}
	return body, msg, true
}

// refuseInvalidID answers a request whose id is not one JSON-RPC allows as
// mcp-go answers a message it cannot take: 400, and a JSON-RPC error to a
// null id, since the id cannot be echoed.
func (g *guard) refuseInvalidID(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
	text := invalidIDText(id)
	g.log.Warn("HTTP request refused", "status", http.StatusBadRequest, "method", r.Method, "remote", r.RemoteAddr, "why", text)
	answer, err := json.Marshal(mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(nil), Error: mcp.NewJSONRPCErrorDetails(mcp.INVALID_REQUEST, text, nil)})
	if err != nil {
		g.refuse(w, r, http.StatusBadRequest, text)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	if _, err := w.Write(append(answer, '\n')); err != nil {
		g.log.Debug("write a refusal", "error", err.Error())
	}
}

// serveSessionless serves a POST that names no open session: an
// initialize, or a server/discover; anything else is refused once its
// body says what it is. These take a slot of sessionless, never one the
// sessions' requests need, so that a client trickling such bodies keeps
// out at worst new sessions, each for at most BodyReadTimeout.
func (g *guard) serveSessionless(w http.ResponseWriter, r *http.Request, id string) {
	if !g.takeSessionless(w, r) {
		return
	}
	defer func() { <-g.sessionless }()
	body, msg, ok := g.readPosted(w, r)
	if !ok {
		return
	}
	method := msg.Method
	switch {
	case method == string(mcp.MethodInitialize):
		g.serveInitialize(w, r, body, msg)
	case method == "server/discover" && id == "":
		// Asks which protocol versions are served; it needs no session.
		g.next.ServeHTTP(w, r)
	case id == "":
		g.refuse(w, r, http.StatusBadRequest, noSessionIDText)
	default:
		g.refuse(w, r, http.StatusNotFound, noSessionText)
	}
}

// MaxInitializeBody bounds an initialize's POST body, under --max-request:
// mcp-go keeps its clientInfo and capabilities for the session's life, so
// a large one would hold its memory until --session-idle, for each of
// --max-sessions sessions. A real initialize is a few KiB.
const MaxInitializeBody = 1 << 20

// MaxNotificationBody bounds a notification's POST body, under
// --max-request: notifications (cancelled, progress, initialized,
// roots/list_changed) are small, and are served however many requests are
// in flight. Answers to servers' requests keep --max-request: they carry
// what the agent sampled or the user entered.
const MaxNotificationBody = 1 << 20

// smallEnough refuses with 413 an initialize or a notification whose body
// is larger than its own bound (MaxInitializeBody, MaxNotificationBody).
func (g *guard) smallEnough(w http.ResponseWriter, r *http.Request, msg postedMessage, body []byte) bool {
	size := int64(len(body))
	switch {
	case msg.Method == string(mcp.MethodInitialize) && size > MaxInitializeBody:
		g.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("initialize too large: its body is %s, and an initialize may hold at most %s (upstream.MaxInitializeBody), since its client information is kept for the session's life; send a smaller clientInfo and capabilities",
			humanize.IBytes(uint64(size)), humanize.IBytes(MaxInitializeBody)))
		return false
	case msg.isNotification() && size > MaxNotificationBody:
		g.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("notification too large: its body is %s, and a notification may hold at most %s (upstream.MaxNotificationBody); it was not handled",
			humanize.IBytes(uint64(size)), humanize.IBytes(MaxNotificationBody)))
		return false
	}
	return true
}

// serveInitialize opens a session for an initialize, whose POST body is
// body (msg, parsed), and serves it there.
func (g *guard) serveInitialize(w http.ResponseWriter, r *http.Request, body []byte, msg postedMessage) {
	sess, err := g.sessions.open()
	switch {
	case errors.Is(err, errTooManySessions):
		g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("too many sessions: %d are open (the limit, --max-sessions); end one (HTTP DELETE) or wait for an idle one to expire (--session-idle), then retry", g.sessions.max))
		return
	case err != nil:
		g.refuse(w, r, http.StatusServiceUnavailable, "cannot start a session: "+err.Error())
		return
	}
	g.serveIn(w, r.WithContext(context.WithValue(r.Context(), openedKey{}, sess)), sess, body, msg)
	// An initialize refused over HTTP (bad headers) never gave the
	// client the id, and one answered with a JSON-RPC error (bad
	// params) did, but no client uses or ends a session it failed to
	// open: either would hold a --max-sessions place and a directory
	// until --session-idle. mcp-go forgets it too (it registered the
	// second kind).
	if w.Header().Get(server.HeaderKeySessionID) != sess.id || !sess.initializeSucceeded() {
		const why = "its initialize failed"
		endInMCP(g.next, sess.id, why)
		g.sessions.end(sess.id, why)
	}
}

// takeSessionless takes a slot of sessionless, or refuses the request.
func (g *guard) takeSessionless(w http.ResponseWriter, r *http.Request) bool {
	select {
	case g.sessionless <- struct{}{}:
		return true
	default:
		g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("dispatch is busy: %d requests without a session (initialize) are in flight (the limit, --max-sessions); retry shortly", cap(g.sessionless)))
		return false
	}
}

// takeGlobal takes a slot of global for a request about to be served, or
// refuses it.
func (g *guard) takeGlobal(w http.ResponseWriter, r *http.Request) bool {
	select {
	case g.global <- struct{}{}:
		return true
	default:
		g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("dispatch is busy: %d requests are in flight over all sessions (the limit, --max-http-in-flight); retry shortly", cap(g.global)))
		return false
	}
}

// serveListening serves a session's listening stream (GET): one at a
// time per session, as the streamable HTTP transport allows a server to
// answer 409 Conflict to a second.
func (g *guard) serveListening(w http.ResponseWriter, r *http.Request, sess *httpSession) {
	if !sess.startListening() {
		g.refuse(w, r, http.StatusConflict, "this session already has a listening stream (GET) open: one per session; read that one, or close it before opening another")
		return
	}
	defer sess.stopListening()
	sess.log.Debug("listening stream opened")
	// The stream ends with its session (DELETE, --session-idle,
	// shutdown), not only when the agent hangs up: mcp-go keeps a stream
	// open while its connection lives, and an agent that ended its session
	// but kept the connection would hold it, and a file descriptor, for
	// ever, past --max-sessions.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(sess.ctx, cancel)
	defer stop()
	g.next.ServeHTTP(answerWatch{ResponseWriter: w, pending: &sess.answers}, r.WithContext(ctx))
}

// readBody reads a POST's body within maxBody and bodyTimeout, and puts
// it back in r for mcp-go; a body that fails is refused, saying why. The
// deadline is lifted only when the body came whole, so that the answer's
// stream is not cut; after a failed read it stays, or net/http would wait
// for the rest of the body before writing the refusal.
func (g *guard) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(g.bodyTimeout)); err != nil {
		g.log.Debug("cannot bound the body's read time", "error", err.Error())
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
	if err != nil {
		w.Header().Set("Connection", "close")
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			g.refuse(w, r, http.StatusRequestEntityTooLarge, tooLargeText(g.maxBody))
		case errors.Is(err, os.ErrDeadlineExceeded):
			g.refuse(w, r, http.StatusRequestTimeout, fmt.Sprintf("the request body did not arrive within %s: send the whole body at once", g.bodyTimeout))
		default:
			g.refuse(w, r, http.StatusBadRequest, "could not read the request body: "+err.Error())
		}
		return nil, false
	}
	if err := rc.SetReadDeadline(time.Time{}); err != nil {
		g.log.Debug("cannot lift the body's read deadline", "error", err.Error())
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// serveIn serves a request of sess, whose POST body is body (msg,
// parsed), within its in-flight bound, with the agent's ids (swapHTTP)
// and progress token kept exactly.
func (g *guard) serveIn(w http.ResponseWriter, r *http.Request, sess *httpSession, body []byte, msg postedMessage) {
	if !sess.acquire() {
		g.refuse(w, r, http.StatusTooManyRequests, fmt.Sprintf("session busy: %d of its requests are already in flight (the limit, --max-in-flight); wait for some to finish or cancel them, then retry", cap(sess.slots)))
		return
	}
	defer sess.release()
	// The token's wrapping leaves the id where it was: swapHTTP edits the
	// new body by member name, so msg (parsed before) still holds.
	r, body = withExactMeta(r, body)
	w, r, forget, ok := sess.ids.swapHTTP(w, r, body, msg)
	defer forget()
	if !ok {
		// A cancellation of no request in flight: nothing to do.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	sess.log.Debug("HTTP request", "method", r.Method)
	g.next.ServeHTTP(answerWatch{ResponseWriter: w, pending: &sess.answers}, r)
}

const (
	noSessionText   = "no such session: it ended (DELETE), expired (--session-idle) or never existed; initialize a new one"
	noSessionIDText = "no Mcp-Session-Id header: initialize a session first and send its id with every request"
)

func (g *guard) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), g.token) == 1
}

// hostRule says which Host and Origin headers are this server's: a
// browser page of another site (DNS rebinding, cross-site requests) names
// its own. Accepted are loopback names, the host named in --listen, the
// --allow-host names, and, when listening on all addresses, any IP
// address (a rebinding attack needs a host name); an Origin must also
// name the listen port, a missing port being its scheme's default.
type hostRule struct {
	unix  bool     // a unix socket: no browser reaches it
	names []string // the host names accepted besides loopback ones
	port  string   // "0" or "": not known, any
	any   bool     // listening on all addresses (with a token): any IP too
}

func newHostRule(addr string, allow []string) (hostRule, error) {
	if strings.HasPrefix(addr, UnixPrefix) {
		return hostRule{unix: true}, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return hostRule{}, fmt.Errorf("listen address %q: %w", addr, err)
	}
	rule := hostRule{port: port}
	switch {
	case isLoopback(host):
		// Loopback names only, and --allow-host ones.
	case host == "" || host == "0.0.0.0" || host == "::":
		rule.any = true
	default:
		rule.names = []string{strings.ToLower(host)}
	}
	for _, name := range allow {
		rule.names = append(rule.names, strings.ToLower(strings.Trim(name, "[]")))
	}
	return rule, nil
}

// isLoopback says whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackAddr says whether a listen address reaches only this machine:
// loopback TCP or a unix socket.
func IsLoopbackAddr(addr string) bool {
	if strings.HasPrefix(addr, UnixPrefix) {
		return true
	}
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopback(host)
}

// accepts says whether host, reached at port ("" when the header named
// none), is this server's.
func (h hostRule) accepts(host, port string) bool {
	if h.port != "" && h.port != "0" && port != "" && port != h.port {
		return false
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if isLoopback(host) || slices.Contains(h.names, host) {
		return true
	}
	return h.any && net.ParseIP(host) != nil
}

// allowHint says how to accept a refused host name, if one can be.
func (h hostRule) allowHint(host string) string {
	host = strings.Trim(host, "[]")
	if host == "" || net.ParseIP(host) != nil || isLoopback(host) || strings.Trim(strings.ToLower(host), "abcdefghijklmnopqrstuvwxyz0123456789.-") != "" {
		return ""
	}
	return fmt.Sprintf(", or start dispatch with --allow-host %s if that name is this machine's", host)
}

func (h hostRule) checkHost(hostHeader string) string {
	if h.unix {
		return ""
	}
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil {
		host, port = hostHeader, ""
	}
	if hostHeader == "" || !h.accepts(host, port) {
		return fmt.Sprintf("Host %q is not this server's: connect to the address dispatch listens on (DNS-rebinding protection)%s", hostHeader, h.allowHint(host))
	}
	return ""
}

// defaultPorts are the ports a browser leaves out of an Origin.
var defaultPorts = map[string]string{"http": "80", "https": "443"}

func (h hostRule) checkOrigin(origin string) string {
	if origin == "" {
		return "" // not a browser: nothing to protect against
	}
	u, err := url.Parse(origin)
	if err == nil && defaultPorts[u.Scheme] != "" && u.Host != "" {
		if h.unix && isLoopback(u.Hostname()) {
			return ""
		}
		port := u.Port()
		if port == "" {
			port = defaultPorts[u.Scheme]
		}
		if !h.unix && h.accepts(u.Hostname(), port) {
			return ""
		}
	}
	return fmt.Sprintf("Origin %q is not allowed: only pages served from this server's own address (host and port) may call it", origin)
}
