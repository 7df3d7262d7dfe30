package connections

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Defaults for Options. Each is a named, documented limit.
const (
	// DefaultConnectTimeout bounds starting a server and its initialize
	// handshake. npx may download a package on first start, hence a minute.
	DefaultConnectTimeout = 60 * time.Second
	// DefaultMaxRestartsPerMinute stops a crash-looping server from being
	// restarted on every call.
	DefaultMaxRestartsPerMinute = 5
	// MaxListPages bounds tools/list pagination against a server that
	// never stops returning cursors.
	MaxListPages = 1000
	// DefaultRetireGrace is the default of Options.RetireGrace: dispatch's
	// own default call timeout.
	DefaultRetireGrace = 2 * time.Minute
)

// Options tune every connection of a Set.
type Options struct {
	ConnectTimeout       time.Duration
	MaxRestartsPerMinute int
	StderrLimit          int   // bytes of stderr kept per server
	MaxMessageBytes      int   // largest JSON-RPC message from a server (stdio line, HTTP answer, SSE event)
	MaxCatalogItems      int   // objects kept per list of a server (see DefaultMaxCatalogItems)
	MaxCatalogBytes      int64 // bytes kept per list of a server
	// StdinTimeout is how long a write of one message to a stdio
	// server's stdin may take before the server is treated as hung and
	// stopped.
	StdinTimeout time.Duration
	// ServerRequestTimeout bounds relaying one request of a server
	// (sampling, elicitation, roots) to the agent and its answer back
	// (--server-request-timeout). Zero: ServerRequestTimeout.
	ServerRequestTimeout time.Duration
	// InheritEnv passes every stdio server all of dispatch's environment,
	// as a server's own inheritEnv does (--inherit-env).
	InheritEnv    bool
	ClientName    string
	ClientVersion string
	Logger        *slog.Logger
	Redactor      *Redactor
	// Cache, when set, keeps each server's catalog on disk: list, search
	// and info are answered from it without starting servers, and every
	// live tools/list updates it.
	Cache *Cache
	// StartFailuresReported says the caller reports every failed start in
	// its answer (one-shot commands print it), so it is logged at debug
	// level rather than printed twice.
	StartFailuresReported bool
	// OnToolsChanged is called, outside any read loop, after a server
	// announced notifications/tools/list_changed and its catalog was
	// fetched again.
	OnToolsChanged func(c *Conn)
	// OnCatalogChanged is called, outside any read loop, after a server's
	// list_changed (tools, resources or prompts) and the list was fetched
	// again: what --transparent shows follows it. It must not block.
	OnCatalogChanged func(c *Conn)
	// OnResourceUpdated receives a server's notifications/resources/updated
	// (for a URI subscribed with Subscribe). It runs on the read loop and
	// must not block or call back into the connection.
	OnResourceUpdated func(c *Conn, uri string)
	// RetireGrace bounds how long a connection that a new config removed
	// or changed keeps running for the calls already in flight on it
	// (Set.Update); a server's own, longer call timeout extends it.
	// Zero: DefaultRetireGrace.
	RetireGrace time.Duration

	// Tokens, when set, is the OAuth token file: servers with an oauth
	// table or a login in it get OAuth; without it no server does.
	Tokens *TokenFile
	// Browser, when set, opens the authorization page of a request that
	// needs a wider scope (403 insufficient_scope) in the shell's browser;
	// without it, and without an agent that takes URL elicitation, such a
	// request fails telling to run dispatch auth login.
	Browser *LoginOptions

	// generations numbers catalog changes across the whole set.
	generations *atomic.Uint64
	// CallTimeout is dispatch's own time limit of a call (--timeout), a
	// server's own timeout may be longer. Zero: DefaultRetireGrace.
	CallTimeout time.Duration

	// wedgeProbe, when set (tests), replaces wedgeWait's bound of the
	// ping sent after a request ran out of time.
	wedgeProbe time.Duration
}

func (o Options) withDefaults() Options {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.MaxRestartsPerMinute <= 0 {
		o.MaxRestartsPerMinute = DefaultMaxRestartsPerMinute
	}
	if o.StderrLimit <= 0 {
		o.StderrLimit = DefaultStderrLimit
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxCatalogItems <= 0 {
		o.MaxCatalogItems = DefaultMaxCatalogItems
	}
	if o.MaxCatalogBytes <= 0 {
		o.MaxCatalogBytes = DefaultMaxCatalogBytes
	}
	if o.StdinTimeout <= 0 {
		o.StdinTimeout = DefaultStdinTimeout
	}
	if o.ServerRequestTimeout <= 0 {
		o.ServerRequestTimeout = ServerRequestTimeout
	}
	if o.ClientName == "" {
		o.ClientName = "dispatch"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Redactor == nil {
		o.Redactor = NewRedactor()
	}
	if o.RetireGrace <= 0 {
		o.RetireGrace = DefaultRetireGrace
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultRetireGrace
	}
	if o.generations == nil {
		o.generations = new(atomic.Uint64)
	}
	return o
}

// Status is where a connection is in its life.
type Status string

const (
	StatusIdle       Status = "idle" // configured, not started yet
	StatusConnecting Status = "connecting"
	StatusReady      Status = "ready"
	StatusFailed     Status = "failed" // last start or session failed; retried on next use
	StatusClosed     Status = "closed"
)

// ServerInfo is what a server said about itself in initialize.
type ServerInfo struct {
	Name            string `json:"name,omitempty"`
	Version         string `json:"version,omitempty"`
	Title           string `json:"title,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Instructions    string `json:"instructions,omitempty"`
	// Capabilities is nil until the server was started (or a cache entry
	// that knows them was read).
	Capabilities *Capabilities `json:"capabilities,omitempty"`
}

// Where a connection's catalog came from.
const (
	CatalogNone  = ""      // never listed
	CatalogCache = "cache" // from the on-disk cache, not yet confirmed live
	CatalogLive  = "live"  // from the running server
)

// State is a snapshot of a connection for display.
type State struct {
	Status      Status
	LastError   string // sanitized
	Info        ServerInfo
	Restarts    int // restarts in the last minute
	NextRetry   time.Time
	Catalog     string   // CatalogNone, CatalogCache or CatalogLive
	CatalogCuts []string // lists cut to Options.MaxCatalogItems/Bytes, and how to see more
}

// Conn is one downstream server. It starts the server on first use (or in
// Set.ConnectAll), restarts it on the next use after it died, and serves
// concurrent calls over one session.
type Conn struct {
	Alias  string
	Config ServerConfig
	ID     string

	opts   Options
	log    *slog.Logger
	stderr *tailBuffer
	seq    atomic.Uint64

	expiries expiryClock // the time limits of the calls StartCall began

	// probing says a ping is checking whether the server is wedged (see
	// checkWedged): one at a time.
	probing atomic.Bool

	// authMu lets one authorization through the agent run at a time.
	authMu sync.Mutex

	mu          sync.Mutex
	status      Status
	lastErr     error
	failures    int // consecutive failed starts
	lastFailure time.Time
	restarts    []time.Time
	everReady   bool
	sess        *session
	connecting  chan struct{} // non-nil while a start is under way
	// sessions holds every session this connection started that is not
	// closed yet: the live one, one still starting, and dead ones being
	// reaped. Close stops them all, so that no process group outlives
	// dispatch, whatever state its server was in.
	sessions   map[*session]struct{}
	info       ServerInfo
	tools      []json.RawMessage // every tool the server published
	filter     ToolFilter
	expose     []string          // the config's expose list, as it is now
	visible    []json.RawMessage // tools that filter lets through
	catalog    string            // where tools came from
	toolsStale bool              // the server announced a change since
	toolsGen   uint64            // counts catalog changes, so callers can cache what they derive
	// toolsDigest is ToolsDigest(tools) as the cache entry they were
	// loaded from saved it, while toolsGen is digestGen: a later catalog
	// has a generation of its own.
	toolsDigest *[sha256.Size]byte
	digestGen   uint64
	refreshing  bool
	sides       [numSideKinds]sideCatalog
	cuts        map[string]string // by list noun: why its catalog was cut
	cacheMu     sync.Mutex        // serializes cache writes (see saveCatalog)

	// unnamable are, by catalog noun ("tools"), the names (Go-quoted)
	// of the items left out of the last listing: see namedItems.
	unnamable map[string][]string

	// calls counts the calls in flight, so that a connection a new
	// config removed can let them finish (see Retire).
	calls   int
	drained chan struct{} // closed when calls drops to 0; nil unless Retire waits

	progressMu sync.Mutex
	progress   map[string]func(params map[string]any)

	// background counts the catalog refreshes running off the callers'
	// paths; Close waits for them, so none writes the cache after it.
	// Added to only under mu while the connection is not closed, and only
	// for work on a session.
	background sync.WaitGroup
	// everTracked says a session was ever started (track): without one,
	// Close has nothing to stop or wait for.
	everTracked bool

	// subscribed are the URIs the agents subscribed to, renewed on each
	// new session (see recordSubscription).
	subscribed map[string]bool

	hub *relayHub
	// cacheKey names this connection's catalog in the cache: a server may
	// offer other tools to clients declaring other capabilities.
	cacheKey string
	// retired says the last session was stopped to start the server
	// again with the agent's capabilities: no crash, so no restart counted.
	retired   bool
	callersMu sync.Mutex
	// callers are the agent sessions with calls in flight here, or whose
	// last call here ended within AttributionWindow (see attribute).
	callers map[Upstream]*callerCalls
	callSeq uint64 // numbers tracked calls
	// serverReqs cancel the relays of the server's requests in flight, by
	// the server's id for them.
	serverReqMu sync.Mutex
	serverReqs  map[string]context.CancelCauseFunc
}

func newConn(alias string, cfg ServerConfig, opts Options, hub *relayHub) *Conn {
	c := &Conn{
		Alias:      alias,
		Config:     cfg,
		ID:         cfg.ID(),
		opts:       opts,
		log:        opts.Logger.With("connection", alias),
		stderr:     newTailBuffer(opts.StderrLimit),
		status:     StatusIdle,
		filter:     cfg.Tools,
		expose:     cfg.Expose,
		sessions:   make(map[*session]struct{}),
		progress:   make(map[string]func(map[string]any)),
		hub:        hub,
		callers:    make(map[Upstream]*callerCalls),
		serverReqs: make(map[string]context.CancelCauseFunc),
		unnamable:  make(map[string][]string),
	}
	c.cacheKey = catalogKey(c.ID, hub.capabilities())
	if opts.Cache != nil {
		c.loadCachedCatalog()
	}
	return c
}

// loadCachedCatalog takes the cached catalog, masked: it may have been
// written in clear by an older dispatch, or before a secret it shows was
// learned. Such an entry is rewritten masked at once.
func (c *Conn) loadCachedCatalog() {
	c.mu.Lock()
	key := c.cacheKey
	c.mu.Unlock()
	entry, ok := c.opts.Cache.Load(key)
	if !ok {
		return
	}
	info := c.opts.Redactor.maskInfo(entry.Server)
	// An entry masked by these rules that holds no secret known now would
	// come out of masking unchanged: masking every definition again cost
	// a one-shot command more than reading them.
	remask := entry.MaskedBy != maskRules || !c.opts.Redactor.holdsNoSecret(entry.raw)
	mask := func(defs []json.RawMessage) ([]json.RawMessage, bool, error) {
		if !remask {
			return defs, false, nil
		}
		return c.opts.Redactor.maskDefs(defs)
	}
	tools, changed, err := mask(entry.Tools)
	if err != nil {
		c.log.Warn("ignore cached tool catalog", "error", err.Error())
		return
	}
	var sides [numSideKinds]sideCatalog
	for k, items := range [numSideKinds][]json.RawMessage{
		sideResources: entry.Resources, sideTemplates: entry.ResourceTemplates, sidePrompts: entry.Prompts} {
		if items == nil {
			continue // never listed, or an entry older than resources
		}
		masked, maskChanged, err := mask(items)
		if err != nil {
			c.log.Warn("ignore cached "+sideKind(k).list().noun, "error", err.Error())
			continue
		}
		changed = changed || maskChanged
		sides[k] = sideCatalog{items: masked, fromCache: true}
	}
	// An entry of older rules is saved again under these, so that the next
	// load need not mask it, and one of an older format in the current
	// one, so that the next load need not parse it.
	changed = changed || entry.MaskedBy != maskRules || entry.outdated()
	c.mu.Lock()
	if c.cacheKey != key || c.tools != nil {
		// The capabilities changed again meanwhile, or a live listing
		// came first: either way this entry is not the catalog now.
		c.mu.Unlock()
		return
	}
	c.tools, c.info, c.catalog = tools, info, CatalogCache
	c.visible = c.filter.apply(tools)
	c.sides = sides
	c.nextGenerationLocked()
	if !remask {
		// The definitions are the entry's as saved, and so is their digest.
		c.toolsDigest, c.digestGen = entry.toolsDigest, c.toolsGen
	}
	c.mu.Unlock()
	if changed || info != entry.Server {
		c.saveCatalog()
	}
}

// Name is the config name, or the alias when the server has none.
func (c *Conn) Name() string {
	if c.Config.Name != "" {
		return c.Config.Name
	}
	return c.Alias
}

// State returns a snapshot for display.
func (c *Conn) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := State{Status: c.status, Info: c.info, Restarts: c.recentRestartsLocked(time.Now()), Catalog: c.catalog,
		CatalogCuts: c.catalogCutsLocked()}
	if c.lastErr != nil {
		s.LastError = c.lastErr.Error()
	}
	if c.status == StatusFailed {
		s.NextRetry = c.lastFailure.Add(backoff(c.failures))
		if at := c.restartAllowedAtLocked(time.Now()); at.After(s.NextRetry) {
			s.NextRetry = at
		}
	}
	return s
}

// restartAllowedAtLocked is when the restart limit lets a server that was
// ready before start again: when the oldest restart it counts is a minute
// old. It is zero while the limit is not reached.
func (c *Conn) restartAllowedAtLocked(now time.Time) time.Time {
	if !c.everReady {
		return time.Time{}
	}
	var recent []time.Time
	for _, t := range c.restarts {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	if len(recent) < c.opts.MaxRestartsPerMinute {
		return time.Time{}
	}
	return recent[len(recent)-c.opts.MaxRestartsPerMinute].Add(time.Minute)
}

// backoff is how long to wait before starting a server again after n
// consecutive failures: 0 for the first retry, then 1s doubling to 60s.
func backoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := time.Second << (n - 2)
	if d > time.Minute || d <= 0 {
		d = time.Minute
	}
	return d
}

func (c *Conn) recentRestartsLocked(now time.Time) int {
	n := 0
	for _, t := range c.restarts {
		if now.Sub(t) < time.Minute {
			n++
		}
	}
	return n
}

// fail builds a sanitized ConnError, appending the tail of the server's
// stderr when the failure suggests the server itself broke.
func (c *Conn) fail(op string, err error, withStderr bool) error {
	msg := err.Error()
	if withStderr {
		if tail := c.stderr.Tail(10, 2048); tail != "" {
			msg += "; server stderr (last lines): " + tail
		}
	}
	return &ConnError{Alias: c.Alias, Op: op, msg: c.opts.Redactor.String(msg), err: err}
}

// authName is the name `dispatch auth login` takes for this server.
func (c *Conn) authName() string { return AuthName(c.Config) }

// AuthName is the name errors tell the user to give `dispatch auth login`
// for cfg: its config name, else its URL without user info or query (which
// may hold credentials), which auth login accepts when no other unnamed
// server has the same.
func AuthName(cfg ServerConfig) string {
	if cfg.Name != "" {
		return cfg.Name
	}
	return publicURL(cfg.URL)
}

// Connect starts the server if it is not running, and returns when it is
// ready or failed to start.
func (c *Conn) Connect(ctx context.Context) error {
	_, err := c.ensure(ctx)
	return err
}

// ensure returns the live session, starting the server if needed (and
// authorizing it through the agent when it needs that and the agent can).
func (c *Conn) ensure(ctx context.Context) (*session, error) {
	return c.ensureAuthorized(ctx)
}

func (c *Conn) ensureOnce(ctx context.Context) (*session, error) {
	c.mu.Lock()
	for {
		if c.status == StatusClosed {
			c.mu.Unlock()
			return nil, c.fail("connect", errors.New("connection is closed"), false)
		}
		if c.sess != nil && c.sess.alive() {
			if sameCapabilities(c.sess.declared, c.hub.capabilities()) {
				s := c.sess
				c.mu.Unlock()
				return s, nil
			}
			// Started declaring other capabilities than the agent's (its
			// start began before the agent's initialize): start it again.
			c.retireLocked()
			continue
		}
		if c.connecting == nil {
			break
		}
		wait := c.connecting
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, c.fail("connect", callerGone(ctx), false)
		}
		c.mu.Lock()
	}
	now := time.Now()
	if c.sess != nil { // it died: reap it before starting another
		old := c.sess
		c.sess = nil
		go c.closeSession(old)
	}
	if c.failures > 0 {
		if retry := c.lastFailure.Add(backoff(c.failures)); now.Before(retry) {
			err := fmt.Errorf("%w: retrying in %s; last error: %v", ErrBackoff, retry.Sub(now).Round(100*time.Millisecond), c.lastErr)
			c.mu.Unlock()
			return nil, &ConnError{Alias: c.Alias, Op: "connect", msg: c.opts.Redactor.String(err.Error()), err: err}
		}
	}
	if at := c.restartAllowedAtLocked(now); !at.IsZero() {
		err := fmt.Errorf("%w: restarted %d times in the last minute (limit %d, --max-restarts); next start allowed in %s; last error: %v",
			ErrBackoff, c.recentRestartsLocked(now), c.opts.MaxRestartsPerMinute, at.Sub(now).Round(100*time.Millisecond), c.lastErr)
		c.mu.Unlock()
		return nil, &ConnError{Alias: c.Alias, Op: "connect", msg: c.opts.Redactor.String(err.Error()), err: err}
	}
	restart := c.everReady && !c.retired
	c.retired = false
	prevStatus := c.status
	done := make(chan struct{})
	c.connecting = done
	c.status = StatusConnecting
	c.mu.Unlock()

	sess, info, err := c.dial(ctx)

	c.mu.Lock()
	if c.status == StatusClosed { // closed while starting
		c.mu.Unlock()
		if sess != nil {
			// Close is waiting for this start to end: the process must
			// be gone by then.
			c.closeSession(sess)
		}
		c.mu.Lock()
		close(done)
		c.connecting = nil
		c.mu.Unlock()
		return nil, c.fail("connect", errors.New("connection is closed"), false)
	}
	defer c.mu.Unlock()
	close(done)
	c.connecting = nil
	if err != nil && ctx.Err() != nil {
		// The caller gave up before the server was ready. That says
		// nothing about the server, so it counts neither as a failed start
		// (no back-off) nor as a restart; the next use starts it afresh.
		c.status = prevStatus
		if c.status == StatusReady { // its session had died
			c.status = StatusIdle
		}
		return nil, err
	}
	if restart {
		c.restarts = append(c.restarts, now)
		if len(c.restarts) > 4*c.opts.MaxRestartsPerMinute {
			c.restarts = c.restarts[len(c.restarts)-2*c.opts.MaxRestartsPerMinute:]
		}
	}
	if err != nil {
		c.status = StatusFailed
		c.lastErr = err
		if errors.Is(err, ErrNeedsAuth) {
			// Not a failure to back off from: the next use after
			// `dispatch auth login` must start it at once.
			c.status = StatusNeedsAuth
		} else {
			c.failures++
		}
		c.lastFailure = time.Now()
		level := slog.LevelWarn
		if c.opts.StartFailuresReported {
			level = slog.LevelDebug
		}
		c.log.Log(context.Background(), level, "server failed to start", "error", err.Error())
		return nil, err
	}
	c.sess = sess
	c.info = info
	c.status = StatusReady
	c.failures = 0
	c.everReady = true
	if sess.stdio != nil {
		go c.watchExit(sess)
	}
	c.log.Info("server ready", "server", info.Name, "version", info.Version, "protocol", info.ProtocolVersion)
	c.resubscribeLocked(sess)
	if c.catalog == CatalogCache {
		// The cache answered for this server until now: confirm its
		// catalog against the live server, off the caller's path.
		c.toolsStale = true
		c.background.Add(1)
		go func() {
			defer c.background.Done()
			c.refreshInBackground("confirm cached catalog")
		}()
	}
	for k := range c.sides {
		// Listed again when next asked for, from the live server.
		c.sides[k].stale = c.sides[k].stale || c.sides[k].fromCache
	}
	return sess, nil
}

// CatalogGeneration changes whenever the connection's catalog does; a
// search index built from the catalogs is still valid while every
// generation is unchanged.
func (c *Conn) CatalogGeneration() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.toolsGen
}

// SavedToolsDigest returns ToolsDigest(tools) without hashing them when
// tools is the catalog ToolsAtHand returned, unfiltered, and it was loaded
// from a cache entry that saved its digest; ok is false otherwise (the
// caller hashes tools itself).
func (c *Conn) SavedToolsDigest(tools []json.RawMessage) (digest [sha256.Size]byte, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.toolsDigest == nil || c.digestGen != c.toolsGen || c.toolsStale || len(tools) == 0 ||
		len(tools) != len(c.tools) || len(c.visible) != len(c.tools) ||
		&tools[0] != &c.tools[0] || &c.visible[0] != &c.tools[0] {
		return digest, false
	}
	return *c.toolsDigest, true
}

// nextGenerationLocked gives the catalog a generation no connection of the
// set has used: a server restarted under the same alias must not reuse a
// generation that a search index was built for.
func (c *Conn) nextGenerationLocked() {
	c.toolsGen = c.opts.generations.Add(1)
}

// refreshInBackground re-lists the tools of a live server. It ends within
// the connect timeout.
func (c *Conn) refreshInBackground(why string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.ConnectTimeout)
	defer cancel()
	if _, err := c.Tools(ctx, true); err != nil {
		c.log.Debug("refresh tools", "why", why, "error", err.Error())
		return
	}
	if c.opts.OnToolsChanged != nil {
		c.opts.OnToolsChanged(c)
	}
	if c.opts.OnCatalogChanged != nil {
		c.opts.OnCatalogChanged(c)
	}
}

// dial starts the server and runs the initialize handshake, within the
// connect timeout. It gives up early if ctx ends: the caller went away.
func (c *Conn) dial(ctx context.Context) (*session, ServerInfo, error) {
	dialCtx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	c.stderr.Reset()

	declared := c.hub.capabilities()
	listen := !sameCapabilities(declared, mcp.ClientCapabilities{})
	useOAuth, err := usesOAuth(c.Config, c.opts.Tokens)
	if err != nil {
		return nil, ServerInfo{}, c.fail("start", fmt.Errorf("oauth: %w", err), false)
	}
	var oauth func(http.RoundTripper) http.RoundTripper
	if useOAuth {
		oauth = c.oauthWrapper()
	}
	sess, err := startSession(dialCtx, c.Config, c.stderr, stdioOptions{maxMessage: c.opts.MaxMessageBytes, stdinTimeout: c.opts.StdinTimeout, requestTimeout: c.opts.ServerRequestTimeout, inheritEnv: c.opts.InheritEnv, alias: c.Alias, log: c.log, redactor: c.opts.Redactor}, listen, oauth)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, ServerInfo{}, c.fail("connect", callerGone(ctx), false)
		case dialCtx.Err() != nil:
			err = fmt.Errorf("%w: no answer to the connection within %s (--connect-timeout)", ErrTimeout, c.opts.ConnectTimeout)
		}
		return nil, ServerInfo{}, c.fail("start", err, true)
	}
	if !c.track(sess) {
		c.closeSession(sess)
		return nil, ServerInfo{}, c.fail("connect", errors.New("connection is closed"), false)
	}
	sess.client.OnNotification(c.onNotification)
	sess.client.OnConnectionLost(func(err error) { c.sessionLost(sess, err) })
	// Our handler, not mcp-go's: it relays the server's requests to the
	// agent verbatim, where mcp-go's would decode and re-encode them.
	if bidirectional, ok := sess.transport.(transport.BidirectionalInterface); ok {
		bidirectional.SetRequestHandler(c.serveServerRequest)
	}
	if sse, ok := sess.transport.(*sseTransport); ok {
		sse.requests.setLog(c.log)
	}

	version := c.Config.ProtocolVersion
	if version == "" {
		version = DefaultProtocolVersion
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: c.opts.ClientName, Version: c.opts.ClientVersion}
	sess.declared = declared
	req.Params.Capabilities = declared
	result, err := sess.client.Initialize(dialCtx, req)
	if err != nil {
		if ctx.Err() != nil {
			go c.closeSession(sess)
			return nil, ServerInfo{}, c.fail("connect", callerGone(ctx), false)
		}
		if dialCtx.Err() != nil {
			err = fmt.Errorf("%w: no initialize answer within %s (--connect-timeout)", ErrTimeout, c.opts.ConnectTimeout)
		} else if authErr := needsAuth(c.authName(), err); authErr != err && (useOAuth || len(credentialHeaders(c.Config.Headers)) == 0) {
			err = authErr
		} else if authErr != err {
			err = refusedHeaders(credentialHeaders(c.Config.Headers), err)
		} else {
			err = explainInitErr(c.Config, sess, err)
		}
		err = c.opts.Redactor.boundErr(err)
		// Give a dying process a moment to flush stderr, which usually
		// says why it died.
		sess.waitExit(200 * time.Millisecond)
		failure := c.fail("initialize", err, true)
		go c.closeSession(sess)
		return nil, ServerInfo{}, failure
	}
	info := c.opts.Redactor.maskInfo(ServerInfo{
		Name:            result.ServerInfo.Name,
		Version:         result.ServerInfo.Version,
		Title:           result.ServerInfo.Title,
		ProtocolVersion: result.ProtocolVersion,
		Instructions:    result.Instructions,
	})
	info.Capabilities = capabilitiesOf(result.Capabilities)
	sess.modern = mcp.IsModernProtocol(result.ProtocolVersion)
	sess.protocol = result.ProtocolVersion
	sess.clientInfo = req.Params.ClientInfo
	c.sendLogLevel(sess, c.hub.level())
	return sess, info, nil
}

// onNotification runs on the transport's read loop: it must never call the
// client (that deadlocks the loop), so anything that needs a request is
// handed to a goroutine.
func (c *Conn) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		fields := n.Params.AdditionalFields
		token := fmt.Sprint(fields["progressToken"])
		c.progressMu.Lock()
		forward := c.progress[token]
		c.progressMu.Unlock()
		if forward != nil {
			forward(c.opts.Redactor.maskProgress(fields))
		}
	case string(mcp.MethodNotificationToolsListChanged):
		c.scheduleRefresh()
	case string(mcp.MethodNotificationResourcesListChanged), string(mcp.MethodNotificationPromptsListChanged):
		c.scheduleSideRefresh(sideRefreshFor(n.Method))
	case string(mcp.MethodNotificationMessage):
		c.relayLog(n)
	case string(mcp.MethodNotificationCancelled):
		c.serverCancelled(n)
	case string(mcp.MethodNotificationResourceUpdated):
		c.resourceUpdated(n.Params.AdditionalFields)
	}
}

// toolsChangedDebounce collapses a burst of list_changed notifications into
// one tools/list.
const toolsChangedDebounce = 200 * time.Millisecond

func (c *Conn) scheduleRefresh() {
	c.mu.Lock()
	c.toolsStale = true
	if c.refreshing {
		c.mu.Unlock()
		return
	}
	c.refreshing = true
	c.mu.Unlock()
	time.AfterFunc(toolsChangedDebounce, func() {
		c.mu.Lock()
		c.refreshing = false
		live := c.status == StatusReady
		if live {
			c.background.Add(1)
		}
		c.mu.Unlock()
		if live { // otherwise the next use lists the tools of the session it starts
			defer c.background.Done()
			c.refreshInBackground("tools/list_changed")
		}
	})
}

// Tools returns the server's raw tool definitions exactly as it published
// them, starting the server if needed. With refresh, or after the server
// announced a change, the list is fetched again.
func (c *Conn) Tools(ctx context.Context, refresh bool) ([]json.RawMessage, error) {
	c.mu.Lock()
	if c.tools != nil && !refresh && !c.toolsStale {
		visible := c.visible
		c.mu.Unlock()
		return visible, nil
	}
	c.mu.Unlock()
	// A second round only when the agent declared its capabilities while
	// the first listed a session started without them.
	for round := 0; ; round++ {
		tools, current, err := c.listLive(ctx)
		if err != nil || current || round > 0 {
			return tools, err
		}
	}
}

// listLive lists the tools of the live session, starting it if need be,
// and keeps them as the catalog if that session declared the capabilities
// dispatch declares now (current); either way they are cached under the
// capabilities the session declared.
func (c *Conn) listLive(ctx context.Context) ([]json.RawMessage, bool, error) {
	sess, err := c.ensure(ctx)
	if err != nil {
		return nil, false, err
	}
	// Listing is part of starting a server: the connect timeout bounds it.
	listCtx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	tools, err := c.listPages(ctx, listCtx, sess, toolsList)
	if err != nil {
		return nil, false, err
	}
	key := catalogKey(c.ID, sess.declared)
	c.mu.Lock()
	current := key == c.cacheKey
	if current {
		c.tools = tools
		c.visible = c.filter.apply(tools)
		c.catalog = CatalogLive
		c.toolsStale = false
		c.nextGenerationLocked()
	}
	visible := c.filter.apply(tools)
	c.mu.Unlock()
	if current {
		c.fillSides(ctx, listCtx, sess)
		// The cache keeps every tool: a filter is applied on the way
		// out, so that changing it needs no refresh.
		c.saveCatalog()
	} else if c.opts.Cache != nil {
		// Listed from a session that declared other capabilities: kept
		// under its own key for a later agent that declares those.
		c.mu.Lock()
		info := c.info
		c.mu.Unlock()
		if err := c.opts.Cache.Save(key, info, tools); err != nil {
			c.log.Warn("save tool catalog", "error", err.Error())
		}
	}
	return visible, current, nil
}
