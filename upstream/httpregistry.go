package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"dispatch/dispatch"
	"dispatch/spill"

	"github.com/mark3labs/mcp-go/server"
)

// registry holds the HTTP sessions, at most max at once. It is mcp-go's
// SessionIdManager, so that a session mcp-go knows is always one of ours:
// a session id is minted only for a session the guard opened (see
// openedKey), and one closed or expired is refused.
type registry struct {
	max      int
	svc      *dispatch.Service
	newStore func() (*spill.Store, error)
	log      *slog.Logger
	perMax   int // in-flight requests per session
	// onEnd runs after a session ended, unless all are ending (shutdown).
	onEnd func()

	mu     sync.Mutex
	byID   map[string]*httpSession
	next   uint64
	closed bool
	// rootsChange is the session that sent the latest
	// notifications/roots/list_changed, and when (see noCaller).
	rootsChange struct {
		by *httpSession
		at time.Time
	}
}

// rootsChanged records that sess sent notifications/roots/list_changed.
func (r *registry) rootsChanged(sess *httpSession) {
	r.mu.Lock()
	r.rootsChange.by, r.rootsChange.at = sess, time.Now()
	r.mu.Unlock()
}

// rootsChanger is the session that sent the latest
// notifications/roots/list_changed, if within window and still open.
func (r *registry) rootsChanger(window time.Duration) *httpSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	by := r.rootsChange.by
	if by == nil || time.Since(r.rootsChange.at) > window || r.byID[by.id] != by {
		return nil
	}
	return by
}

// initializedNow are the open sessions whose initialize succeeded.
func (r *registry) initializedNow() []*httpSession {
	var out []*httpSession
	for _, s := range r.sessionsNow() {
		if s.initializeSucceeded() {
			out = append(out, s)
		}
	}
	return out
}

// open creates a session for an initialize request: its own result
// directory and Service.
func (r *registry) open() (*httpSession, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errors.New("dispatch is shutting down")
	}
	if len(r.byID) >= r.max {
		r.mu.Unlock()
		return nil, errTooManySessions
	}
	r.next++
	logID := fmt.Sprintf("h%d", r.next)
	id, err := newSessionID()
	if err != nil {
		r.mu.Unlock()
		return nil, err
	}
	// Reserved under the lock, so that the bound holds under a burst of
	// initializes; filled in below.
	r.byID[id] = nil
	r.mu.Unlock()

	store, err := r.newStore()
	if err != nil {
		r.forget(id)
		return nil, fmt.Errorf("create the session's result directory: %w", err)
	}
	log := r.log.With("session", logID)
	ctx, cancel := context.WithCancel(context.Background())
	s := &httpSession{id: id, logID: logID, store: store, svc: r.svc.ForSession(store, log), log: log, registry: r,
		ctx: ctx, cancel: cancel, slots: make(chan struct{}, r.perMax), lastActive: time.Now()}
	r.mu.Lock()
	r.byID[id] = s
	r.mu.Unlock()
	log.Info("session started", "count", r.count())
	return s, nil
}

func (r *registry) get(id string) *httpSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID[id]
}

func (r *registry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byID)
}

func (r *registry) forget(id string) {
	r.mu.Lock()
	delete(r.byID, id)
	r.mu.Unlock()
}

// end closes one session and forgets it.
func (r *registry) end(id, why string) {
	s := r.get(id)
	if s == nil {
		return
	}
	r.forget(id)
	r.mu.Lock()
	shuttingDown := r.closed
	r.mu.Unlock()
	if r.onEnd != nil && !shuttingDown {
		defer r.onEnd()
	}
	if err := s.close(); err != nil {
		s.log.Warn("end session", "error", err.Error())
		return
	}
	s.log.Info("session ended; its result files are deleted", "why", why)
}

// idle lists the sessions with nothing in flight for longer than ttl.
func (r *registry) idle(ttl time.Duration) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id, s := range r.byID {
		if s == nil {
			continue
		}
		if since, idle := s.idleSince(); idle && time.Since(since) > ttl {
			ids = append(ids, id)
		}
	}
	return ids
}

// refuseNew makes open refuse: dispatch is shutting down.
func (r *registry) refuseNew() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

// closeAll ends every session and refuses new ones.
func (r *registry) closeAll() {
	r.refuseNew()
	r.mu.Lock()
	ids := make([]string, 0, len(r.byID))
	for id := range r.byID {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	for _, id := range ids {
		r.end(id, "dispatch is shutting down")
	}
}

// openedKey carries, in an initialize request's context, the session the
// guard opened for it.
type openedKey struct{}

// endingKey carries, in a DELETE dispatch sends itself to end a session,
// why it ends: Terminate would otherwise log it as the agent's DELETE.
type endingKey struct{}

// ResolveSessionIdManager makes the registry mcp-go's session manager. For
// an initialize, the manager mints the id of the session the guard opened;
// for a DELETE dispatch sends itself, it ends the session for its reason.
func (r *registry) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	if req != nil {
		if s, ok := req.Context().Value(openedKey{}).(*httpSession); ok {
			return minted{registry: r, id: s.id}
		}
		if why, ok := req.Context().Value(endingKey{}).(string); ok {
			return ending{registry: r, why: why}
		}
	}
	return r
}

// Generate is never reached for a session of ours (the guard opens each
// and minted names it); an id from here names no session and is refused
// on its first use.
func (r *registry) Generate() string {
	id, err := newSessionID()
	if err != nil {
		return "refused"
	}
	return id
}

func (r *registry) Validate(id string) (isTerminated bool, err error) {
	if r.get(id) == nil {
		return false, errors.New("no such session")
	}
	return false, nil
}

func (r *registry) Terminate(id string) (isNotAllowed bool, err error) {
	r.mu.Lock()
	why := "the agent ended it (DELETE)"
	if r.closed {
		why = "dispatch is shutting down"
	}
	r.mu.Unlock()
	if s := r.get(id); s != nil && !s.initializeSucceeded() {
		why = "its initialize failed"
	}
	r.end(id, why)
	return false, nil
}

// minted is the registry as seen by one initialize request.
type minted struct {
	*registry
	id string
}

func (m minted) Generate() string { return m.id }

// ending is the registry as seen by a DELETE dispatch sends itself.
type ending struct {
	*registry
	why string
}

func (e ending) Terminate(id string) (isNotAllowed bool, err error) {
	e.end(id, e.why)
	return false, nil
}
