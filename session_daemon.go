package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"dispatch/dispatch"
)

// Limits of a session's endpoint.
const (
	// sessionShutdownGrace is how long stopping a session waits for the
	// requests in flight before it cancels them.
	sessionShutdownGrace = 5 * time.Second
	// sessionReadHeaderTimeout bounds a request's headers: a client that
	// connects and sends nothing must not hold a connection for ever.
	sessionReadHeaderTimeout = 10 * time.Second
	// sessionBodyReadTimeout bounds reading a request's body: a client
	// that sends half a request must not hold a daemon goroutine (and a
	// --max-in-flight slot) for ever. It is lifted once the body is in,
	// so that a long call is not cut.
	sessionBodyReadTimeout = 30 * time.Second
	// sessionIdleConnTimeout closes a kept-alive connection with no
	// request for this long.
	sessionIdleConnTimeout = 2 * time.Minute
	// maxIdleCheckEvery is the longest between two checks of the idle
	// limit and of the socket's presence.
	maxIdleCheckEvery = 5 * time.Second
)

// sessionDaemon serves one shell session: the private endpoint on its
// unix socket, in front of one service whose servers stay warm and whose
// result files live until the session ends.
type sessionDaemon struct {
	app      *app
	socket   string
	started  time.Time
	idle     time.Duration
	maxBody  int64
	slots    chan struct{} // one per request in flight (--max-in-flight)
	stop     context.CancelFunc
	activity activity
	// deadlines are the read limits above; zero ones take the defaults.
	deadlines sessionDeadlines
}

// sessionDeadlines bound how long a client may take to send a request
// (see sessionReadHeaderTimeout and the limits beside it).
type sessionDeadlines struct {
	header, body, idleConn time.Duration
}

func (l sessionDeadlines) orDefaults() sessionDeadlines {
	if l.header <= 0 {
		l.header = sessionReadHeaderTimeout
	}
	if l.body <= 0 {
		l.body = sessionBodyReadTimeout
	}
	if l.idleConn <= 0 {
		l.idleConn = sessionIdleConnTimeout
	}
	return l
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

func (d *sessionDaemon) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+sessionDoPath, d.serveDo)
	mux.HandleFunc("POST "+sessionSavePath, d.serveSave)
	mux.HandleFunc("POST "+sessionRunPath, d.serveRun)
	mux.HandleFunc("GET "+sessionStatusPath, d.serveStatus)
	mux.HandleFunc("POST "+sessionStopPath, d.serveStop)
	return mux
}

// admit takes a request slot, or answers that the session is busy.
func (d *sessionDaemon) admit(w http.ResponseWriter) bool {
	select {
	case d.slots <- struct{}{}:
		d.activity.begin()
		return true
	default:
		http.Error(w, fmt.Sprintf("the session is serving %d requests already (--max-in-flight); retry when some have finished", cap(d.slots)), http.StatusServiceUnavailable)
		return false
	}
}

func (d *sessionDaemon) release() {
	d.activity.end()
	<-d.slots
}

// decode reads a request body of at most --max-request bytes within
// sessionBodyReadTimeout.
func (d *sessionDaemon) decode(w http.ResponseWriter, r *http.Request, into any) bool {
	limit := d.deadlines.orDefaults().body
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(limit)); err != nil {
		d.app.log.Debug("cannot bound the body's read time", "error", err.Error())
	}
	body := http.MaxBytesReader(w, r.Body, d.maxBody)
	if err := json.NewDecoder(body).Decode(into); err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, fmt.Sprintf("request larger than %d bytes (the session's --max-request); pass large inputs with -f FILE", d.maxBody), http.StatusRequestEntityTooLarge)
		case errors.Is(err, os.ErrDeadlineExceeded):
			w.Header().Set("Connection", "close")
			http.Error(w, fmt.Sprintf("the request body did not arrive within %s: send the whole request at once", limit), http.StatusRequestTimeout)
		default:
			http.Error(w, "request is not the JSON dispatch sends: "+err.Error(), http.StatusBadRequest)
		}
		return false
	}
	if err := rc.SetReadDeadline(time.Time{}); err != nil {
		d.app.log.Debug("cannot lift the body's read deadline", "error", err.Error())
	}
	return true
}

func (d *sessionDaemon) serveDo(w http.ResponseWriter, r *http.Request) {
	if !d.admit(w) {
		return
	}
	defer d.release()
	var in sessionRequest
	if !d.decode(w, r, &in) {
		return
	}
	resp, err := d.app.do(r.Context(), in.request())
	d.answer(w, resp, err)
}

func (d *sessionDaemon) serveSave(w http.ResponseWriter, r *http.Request) {
	if !d.admit(w) {
		return
	}
	defer d.release()
	var in sessionSave
	if !d.decode(w, r, &in) {
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
		saved, err = d.app.savePayload(r.Context(), in.Call, in.Path)
	case in.Prompt != nil:
		saved, err = d.app.saveMessages(r.Context(), in.Prompt, in.Path)
	default:
		http.Error(w, "save needs a call or a prompt answer", http.StatusBadRequest)
		return
	}
	d.answer(w, saved, err)
}

// answer writes a typed response, or err worded for the shell.
func (d *sessionDaemon) answer(w http.ResponseWriter, resp any, err error) {
	var ans sessionAnswer
	if err == nil {
		ans, err = encodeAnswer(resp)
	}
	if err != nil {
		ans = sessionAnswer{Error: failure(err)}
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

func (d *sessionDaemon) serveRun(w http.ResponseWriter, r *http.Request) {
	if !d.admit(w) {
		return
	}
	defer d.release()
	var in sessionRun
	if !d.decode(w, r, &in) {
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	flusher, _ := w.(http.Flusher)
	out := json.NewEncoder(w)
	out.SetEscapeHTML(false)
	// Result files stay in the session, for the next command.
	err := d.app.svc.RunPipeline(r.Context(), in.Steps, true, func(res dispatch.StepResult) error {
		step, err := marshalLine(res)
		if err != nil {
			return err
		}
		if err := out.Encode(sessionRunLine{Step: step}); err != nil {
			return fmt.Errorf("send step %d: %w", res.Step, err)
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	})
	end := sessionRunLine{End: true}
	if err != nil {
		end.Error = failure(err)
	}
	if err := out.Encode(end); err != nil {
		return // the client went away
	}
}

// marshalLine encodes v as dispatch run prints a step: compact, without
// HTML escapes.
func marshalLine(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode step: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sessionStatus is what dispatch session status shows.
type sessionStatus struct {
	PID         int             `json:"pid"`
	Socket      string          `json:"socket"`
	Started     time.Time       `json:"started"`
	Uptime      string          `json:"uptime"`
	IdleLimit   string          `json:"idleLimit"`
	Idle        string          `json:"idle"`
	Servers     []sessionServer `json:"servers"`
	ResultFiles int             `json:"resultFiles"`
	ResultBytes int64           `json:"resultBytes"`
	ResultDir   string          `json:"resultDir,omitempty"`
}

type sessionServer struct {
	Alias    string `json:"alias"`
	Name     string `json:"name,omitempty"`
	Status   string `json:"status"`
	Restarts int    `json:"restarts,omitempty"`
	Error    string `json:"error,omitempty"`
}

func (d *sessionDaemon) serveStatus(w http.ResponseWriter, _ *http.Request) {
	now := time.Now()
	st := sessionStatus{PID: os.Getpid(), Socket: d.socket, Started: d.started,
		Uptime: now.Sub(d.started).Round(time.Second).String(), IdleLimit: d.idle.String(),
		Idle: d.activity.idleFor(now).Round(time.Second).String(), Servers: []sessionServer{}}
	for _, c := range d.app.conns.Conns() {
		s := c.State()
		server := sessionServer{Alias: c.Alias, Status: string(s.Status), Restarts: s.Restarts, Error: s.LastError}
		if c.Config.Name != "" {
			server.Name = c.Config.Name
		}
		st.Servers = append(st.Servers, server)
	}
	if d.app.store != nil {
		st.ResultDir = d.app.store.Dir()
		for _, f := range d.app.store.Files() {
			st.ResultFiles++
			st.ResultBytes += f.Bytes
		}
	}
	writeJSON(w, st)
}

// serveStop answers, then ends the session: the answer carries the pid,
// and the client waits for the session's directory to go.
func (d *sessionDaemon) serveStop(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]int{"pid": os.Getpid()})
	d.stop()
}

// serve runs the endpoint on ln until ctx ends, a stop request, or
// --idle without a request; then it lets requests in flight finish for
// sessionShutdownGrace and cancels the rest.
func (d *sessionDaemon) serve(ctx context.Context, ln net.Listener) error {
	ctx, d.stop = context.WithCancel(ctx)
	defer d.stop()
	d.activity.last = time.Now()
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	limits := d.deadlines.orDefaults()
	srv := &http.Server{
		Handler:           d.handler(),
		ReadHeaderTimeout: limits.header,
		IdleTimeout:       limits.idleConn,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	idleCheck := time.NewTicker(idleCheckEvery(d.idle))
	defer idleCheck.Stop()
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case err := <-served:
			return fmt.Errorf("serve session: %w", err)
		case now := <-idleCheck.C:
			if d.activity.idleFor(now) >= d.idle {
				d.app.log.Info("session idle, ending it", "idle", d.idle.String())
				break wait
			}
			// A socket deleted with its directory (rm -rf, a test's temp
			// dir) leaves no way to reach the session, or to stop it.
			if _, err := os.Lstat(d.socket); errors.Is(err, os.ErrNotExist) {
				d.app.log.Warn("session socket deleted, ending the session", "socket", d.socket)
				break wait
			}
		}
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), sessionShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		cancelRequests()
		if err := srv.Close(); err != nil {
			d.app.log.Warn("close session endpoint", "error", err.Error())
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
