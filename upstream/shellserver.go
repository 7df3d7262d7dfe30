package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"dispatch/connections"
	"dispatch/dispatch"
	"dispatch/rawjson"
	"dispatch/spill"
)

// Limits of a shell session's endpoint.
const (
	// ShellShutdownGrace is how long stopping a session waits for the
	// requests in flight before it cancels them.
	ShellShutdownGrace = 5 * time.Second
	// shellReadHeaderTimeout bounds a request's headers: a client that
	// connects and sends nothing must not hold a connection for ever.
	shellReadHeaderTimeout = 10 * time.Second
	// shellBodyReadTimeout bounds reading a request's body: a client that
	// sends half a request must not hold a goroutine (and a
	// --max-in-flight slot) for ever. It is lifted once the body is in,
	// so that a long call is not cut.
	shellBodyReadTimeout = 30 * time.Second
	// shellIdleConnTimeout closes a kept-alive connection with no request
	// for this long.
	shellIdleConnTimeout = 2 * time.Minute
	// maxIdleCheckEvery is the longest between two checks of the idle
	// limit and of the socket's presence.
	maxIdleCheckEvery = 5 * time.Second
)

// ShellOptions configure a shell session's endpoint.
type ShellOptions struct {
	// Socket is the path the listener is bound to: status shows it, and
	// the session ends when it is deleted.
	Socket string
	// Idle ends the session after this long without a request (> 0).
	Idle time.Duration
	// MaxRequestBytes bounds one request's body (--max-request).
	MaxRequestBytes int64
	// MaxInFlight bounds the requests served at once (--max-in-flight);
	// past it a request is answered 503 at once.
	MaxInFlight int
	// Conns and Store are what status reports: the servers and the
	// result files. Store may be nil.
	Conns *connections.Set
	Store *spill.Store
	Log   *slog.Logger
	// Explain words a request's error as the command line would, with
	// the exit code it means; the CLI's wording is not this package's.
	Explain func(error) *ShellError
}

// shellServer serves one shell session: the private endpoint on its unix
// socket, in front of one service whose servers stay warm and whose
// result files live until the session ends.
type shellServer struct {
	svc      *dispatch.Service
	opts     ShellOptions
	started  time.Time
	slots    chan struct{} // one per request in flight
	stop     context.CancelFunc
	activity activity
	// deadlines are the read limits above; zero ones take the defaults.
	deadlines shellDeadlines
}

// shellDeadlines bound how long a client may take to send a request (see
// shellReadHeaderTimeout and the limits beside it).
type shellDeadlines struct {
	header, body, idleConn time.Duration
}

func (l shellDeadlines) orDefaults() shellDeadlines {
	if l.header <= 0 {
		l.header = shellReadHeaderTimeout
	}
	if l.body <= 0 {
		l.body = shellBodyReadTimeout
	}
	if l.idleConn <= 0 {
		l.idleConn = shellIdleConnTimeout
	}
	return l
}

// ServeShell serves the shell session endpoint on ln, accepting only this
// user's processes where the system says who the peer is, until ctx ends,
// a stop request, opts.Idle without a request or the socket's deletion;
// then it lets requests in flight finish for ShellShutdownGrace and
// cancels the rest.
func ServeShell(ctx context.Context, svc *dispatch.Service, ln net.Listener, opts ShellOptions) error {
	if opts.Idle <= 0 || opts.MaxInFlight < 1 || opts.MaxRequestBytes < 1 || opts.Explain == nil || opts.Log == nil || opts.Conns == nil {
		return fmt.Errorf("serve session: incomplete options (idle %s, max in flight %d, max request %d bytes)", opts.Idle, opts.MaxInFlight, opts.MaxRequestBytes)
	}
	s := &shellServer{svc: svc, opts: opts, started: time.Now(), slots: make(chan struct{}, opts.MaxInFlight)}
	return s.serve(ctx, onlyOwnUser(ln))
}

// activity is when a session last served a request, and how many it is
// serving: a session is idle only when it serves none.
type activity struct {
	mu       sync.Mutex
	last     time.Time
	inFlight int
}

func (a *activity) begin() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inFlight++
	a.last = time.Now()
}

func (a *activity) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inFlight--
	a.last = time.Now()
}

// idleFor is how long nothing has been served (0 while something is).
func (a *activity) idleFor(now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inFlight > 0 {
		return 0
	}
	return now.Sub(a.last)
}

func (s *shellServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+shellDoPath, s.serveDo)
	mux.HandleFunc("POST "+shellSavePath, s.serveSave)
	mux.HandleFunc("POST "+shellRunPath, s.serveRun)
	mux.HandleFunc("GET "+shellStatusPath, s.serveStatus)
	mux.HandleFunc("POST "+shellStopPath, s.serveStop)
	return mux
}

// admit takes a request slot, or answers that the session is busy.
func (s *shellServer) admit(w http.ResponseWriter) bool {
	select {
	case s.slots <- struct{}{}:
		s.activity.begin()
		return true
	default:
		http.Error(w, fmt.Sprintf("the session is serving %d requests already (--max-in-flight); retry when some have finished", cap(s.slots)), http.StatusServiceUnavailable)
		return false
	}
}

func (s *shellServer) release() {
	s.activity.end()
	<-s.slots
}

// decode reads a request body of at most MaxRequestBytes.
// decode reads a request body of at most --max-request bytes within
// shellBodyReadTimeout.
func (s *shellServer) decode(w http.ResponseWriter, r *http.Request, into any) bool {
	limit := s.deadlines.orDefaults().body
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(limit)); err != nil {
		s.opts.Log.Debug("cannot bound the body's read time", "error", err.Error())
	}
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes)
	if err := json.NewDecoder(body).Decode(into); err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, fmt.Sprintf("request larger than %d bytes (the session's --max-request); pass large inputs with -f FILE", s.opts.MaxRequestBytes), http.StatusRequestEntityTooLarge)
		case errors.Is(err, os.ErrDeadlineExceeded):
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("the request body did not arrive within %s: send the whole request at once", limit), http.StatusRequestTimeout)
		default:
			http.Error(w, "request is not the JSON dispatch sends: "+err.Error(), http.StatusBadRequest)
		}
		return false
	}
	if err := rc.SetReadDeadline(time.Time{}); err != nil {
		s.opts.Log.Debug("cannot lift the body's read deadline", "error", err.Error())
	}
	return true
}

func (s *shellServer) serveDo(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	defer s.release()
	var in shellRequest
	if !s.decode(w, r, &in) {
		return
	}
	resp, err := s.svc.Do(r.Context(), in.request(), dispatch.Hooks{})
	s.answer(w, resp, err)
}

func (s *shellServer) serveSave(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	defer s.release()
	var in shellSave
	if !s.decode(w, r, &in) {
		return
	}
	// The client made the path absolute; a relative one would be this
	// process's working directory, which is not what the user meant.
	if !filepath.IsAbs(in.Path) {
		http.Error(w, "save path must be absolute", http.StatusBadRequest)
		return
	}
	var (
		saved *dispatch.SavedPayload
		err   error
	)
	switch {
	case in.Call != nil:
		saved, err = s.svc.SavePayload(in.Call, in.Path)
	case in.Prompt != nil:
		saved, err = s.svc.SaveMessages(in.Prompt, in.Path)
	default:
		http.Error(w, "save needs a call or a prompt answer", http.StatusBadRequest)
		return
	}
	s.answer(w, saved, err)
}

// answer writes a typed response, or err worded for the shell.
func (s *shellServer) answer(w http.ResponseWriter, resp any, err error) {
	var ans shellAnswer
	if err == nil {
		ans, err = encodeAnswer(resp)
	}
	if err != nil {
		ans = shellAnswer{Error: s.opts.Explain(err)}
	}
	writeJSON(w, ans)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	// The client is gone if this fails; there is no one left to tell.
	if err := enc.Encode(v); err != nil {
		return
	}
}

func (s *shellServer) serveRun(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	defer s.release()
	var in shellRun
	if !s.decode(w, r, &in) {
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	flusher, _ := w.(http.Flusher)
	out := json.NewEncoder(w)
	out.SetEscapeHTML(false)
	// Result files stay in the session, for the next command.
	steps, err := json.Marshal(in.Steps)
	if err == nil {
		var resp *dispatch.RunResponse
		req := dispatch.Request{Action: "run", Steps: steps, Timeout: in.Timeout}
		resp, err = s.svc.RunEach(r.Context(), req, func(res dispatch.StepResult) error {
			step, err := rawjson.Marshal(res)
			if err != nil {
				return fmt.Errorf("encode step: %w", err)
			}
			if err := out.Encode(shellRunLine{Step: step}); err != nil {
				return fmt.Errorf("send step %d: %w", res.Step, err)
			}
			if flusher != nil {
				flusher.Flush()
			}
			return nil
		})
		if err == nil {
			err = resp.Err()
		}
	}
	end := shellRunLine{End: true}
	if err != nil {
		end.Error = s.opts.Explain(err)
	}
	if err := out.Encode(end); err != nil {
		return // the client went away
	}
}

func (s *shellServer) serveStatus(w http.ResponseWriter, _ *http.Request) {
	now := time.Now()
	st := ShellStatus{PID: os.Getpid(), Socket: s.opts.Socket, Started: s.started,
		Uptime: now.Sub(s.started).Round(time.Second).String(), IdleLimit: s.opts.Idle.String(),
		Idle: s.activity.idleFor(now).Round(time.Second).String(), Servers: []ShellServerStatus{}}
	for _, c := range s.opts.Conns.Conns() {
		state := c.State()
		server := ShellServerStatus{Alias: c.Alias, Status: string(state.Status), Restarts: state.Restarts, Error: state.LastError}
		if c.Config.Name != "" {
			server.Name = c.Config.Name
		}
		st.Servers = append(st.Servers, server)
	}
	if s.opts.Store != nil {
		st.ResultDir = s.opts.Store.Dir()
		for _, f := range s.opts.Store.Files() {
			st.ResultFiles++
			st.ResultBytes += f.Bytes
		}
	}
	writeJSON(w, st)
}

// serveStop answers, then ends the session: the answer carries the pid,
// and the client waits for the session's directory to go.
func (s *shellServer) serveStop(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, shellStopped{PID: os.Getpid()})
	s.stop()
}

func (s *shellServer) serve(ctx context.Context, ln net.Listener) error {
	ctx, s.stop = context.WithCancel(ctx)
	defer s.stop()
	s.activity.last = time.Now()
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	limits := s.deadlines.orDefaults()
	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: limits.header,
		IdleTimeout:       limits.idleConn,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	idleCheck := time.NewTicker(idleCheckEvery(s.opts.Idle))
	defer idleCheck.Stop()
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case err := <-served:
			return fmt.Errorf("serve session: %w", err)
		case now := <-idleCheck.C:
			if s.activity.idleFor(now) >= s.opts.Idle {
				s.opts.Log.Info("session idle, ending it", "idle", s.opts.Idle.String())
				break wait
			}
			// A socket deleted with its directory (rm -rf, a test's temp
			// dir) leaves no way to reach the session, or to stop it.
			if _, err := os.Lstat(s.opts.Socket); errors.Is(err, os.ErrNotExist) {
				s.opts.Log.Warn("session socket deleted, ending the session", "socket", s.opts.Socket)
				break wait
			}
		}
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), ShellShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		cancelRequests()
		if err := srv.Close(); err != nil {
			s.opts.Log.Warn("close session endpoint", "error", err.Error())
		}
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve session: %w", err)
	}
	return nil
}

// idleCheckEvery is how often the idle limit is checked: often enough to
// end a session close to its limit, seldom enough to cost nothing.
func idleCheckEvery(idle time.Duration) time.Duration {
	return min(max(idle/10, 10*time.Millisecond), maxIdleCheckEvery)
}
