package upstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"dispatch/dispatch"
	"dispatch/spill"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// httpSession is everything one HTTP agent session owns, created when it
// initializes and closed once: its result files (a private spill
// directory), the Service that writes and reads only those, its requests
// in flight and their contexts, and the link to mcp-go's session through
// which servers' requests reach it.
type httpSession struct {
	id    string // the Mcp-Session-Id: unguessable, never logged
	logID string // short and not secret: for log lines
	store *spill.Store
	svc   *dispatch.Service
	log   *slog.Logger
	// registry knows which session changed its roots last (see
	// RequestClient).
	registry *registry

	// ctx ends when the session does, and with it every call it made.
	ctx    context.Context
	cancel context.CancelFunc

	slots chan struct{} // one per request of this session being served
	ids   idSwaps       // the surrogates of ids mcp-go cannot keep (swapHTTP)
	// answers are the ids of mcp-go's requests to the agent still
	// unanswered (see pendingAnswers).
	answers pendingAnswers

	mu         sync.Mutex
	listening  bool // its one listening stream (GET) is open
	lastActive time.Time
	closed     bool
	client     server.ClientSession // mcp-go's, once a call has seen it
	// logLevel is what its logging/setLevel asked for ("" until then:
	// every server log passes).
	logLevel mcp.LoggingLevel
	// initialized is set when mcp-go answered its initialize with a
	// result, not an error.
	initialized bool
}

// newSessionID is 128 random bits: the session's id is all that ties a
// request to a session's files, so it must not be guessable.
func newSessionID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a session id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// acquire takes one of the session's in-flight slots, or says it has none.
func (s *httpSession) acquire() bool {
	select {
	case s.slots <- struct{}{}:
		s.touch()
		return true
	default:
		return false
	}
}

// release gives a slot back; the session's idle time starts over.
func (s *httpSession) release() {
	<-s.slots
	s.touch()
}

func (s *httpSession) touch() {
	s.mu.Lock()
	s.lastActive = time.Now()
	s.mu.Unlock()
}

// idleSince says since when the session has had no request in flight, or
// false while one is.
func (s *httpSession) idleSince() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastActive, len(s.slots) == 0 && !s.listening
}

// startListening claims the session's one listening stream, or says it
// has one open already. A stream stays open for as long as the agent
// wants, so it holds no in-flight slot; one per session keeps them bounded
// by --max-sessions.
func (s *httpSession) startListening() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listening {
		return false
	}
	s.listening = true
	s.lastActive = time.Now()
	return true
}

// stopListening frees the listening stream; the idle time starts over.
func (s *httpSession) stopListening() {
	s.mu.Lock()
	s.listening = false
	s.lastActive = time.Now()
	s.mu.Unlock()
}

// startCall notes mcp-go's session the call came through (a server's
// requests reach the agent through it) and makes the call's context end
// when the session does; done is called when the call ends. Which calls
// are in flight on which server is connections' to know (WithUpstream).
func (s *httpSession) startCall(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, cancel)
	if client := server.ClientSessionFromContext(ctx); client != nil {
		s.see(client)
	}
	return ctx, func() {
		stop()
		cancel()
	}
}

// see records mcp-go's session once it is registered (at initialize): a
// server's request no call caused reaches the agent through it.
func (s *httpSession) see(client server.ClientSession) {
	s.mu.Lock()
	s.client = client
	s.mu.Unlock()
}

// clientSession is mcp-go's session of this one, through which a
// server's requests and logs reach the agent; nil until it is registered.
func (s *httpSession) clientSession() server.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

func (s *httpSession) markInitialized() {
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
}

// initializeSucceeded says whether mcp-go answered its initialize with a
// result.
func (s *httpSession) initializeSucceeded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// isListening says whether its listening stream is open: sampling and
// roots reach the agent only there.
func (s *httpSession) isListening() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listening
}

// ListenGrace is how long a server's sampling or roots request waits for
// the session to open a listening stream (GET) before failing: an agent
// opens it just after initialize, and may call a tool before it is open.
const ListenGrace = 5 * time.Second

// awaitListening says whether the session has a listening stream open,
// waiting up to ListenGrace (and ctx) for one.
func (s *httpSession) awaitListening(ctx context.Context) bool {
	deadline := time.NewTimer(ListenGrace)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !s.isListening() {
		select {
		case <-tick.C:
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// close ends the session's calls and deletes its result files. It is
// idempotent.
func (s *httpSession) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	if err := s.store.Close(); err != nil {
		return fmt.Errorf("delete the result files of session %s: %w", s.logID, err)
	}
	return nil
}

// errTooManySessions is the refusal of a new session past MaxSessions.
var errTooManySessions = errors.New("too many sessions")
