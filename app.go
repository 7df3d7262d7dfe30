package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"dispatch/connections"
	"dispatch/dispatch"
	"dispatch/spill"
	"dispatch/upstream"
)

// Globals are the flags every command shares.
type Globals struct {
	MCP                  []string      `name:"mcp" short:"m" sep:"none" placeholder:"SPEC" help:"A server: a command line (stdio), an http(s):// URL (streamable HTTP) or sse+http(s):// URL (legacy SSE). Repeatable."`
	Config               []string      `name:"config" short:"c" sep:"none" type:"existingfile" placeholder:"FILE" help:"A TOML file of [servers.NAME] tables, or an mcpServers JSON file (Claude Desktop, Cursor, Claude Code, VS Code). Repeatable."`
	Timeout              time.Duration `name:"timeout" default:"2m" help:"Time limit of each tool call (a server's config or the request may set its own); starting the server is not counted."`
	ConnectTimeout       time.Duration `name:"connect-timeout" default:"60s" help:"Time limit for starting a server: its initialize handshake and tools list."`
	MaxRestarts          int           `name:"max-restarts" default:"5" help:"Restarts of a crashed server allowed per minute (at least 1)."`
	StderrLimit          string        `name:"stderr-limit" default:"64KiB" help:"Bytes of each server's stderr kept for error messages."`
	MaxMessage           string        `name:"max-message" default:"512MiB" help:"Largest JSON-RPC message accepted from a server: a stdio line, an HTTP answer, an SSE event."`
	MaxCatalog           int           `name:"max-catalog-items" default:"10000" help:"Objects kept of each list (tools, resources, resource templates, prompts) of one server, across its pages; past it the first are kept and list warns."`
	MaxCatalogSize       string        `name:"max-catalog-size" default:"64MiB" help:"Bytes kept of each list of one server, across its pages; past it the first objects are kept and list warns."`
	InheritEnv           bool          `name:"inherit-env" help:"Pass stdio servers all of dispatch's environment, not just HOME, PATH, USER, locale and the like (plus their configured env)."`
	StdinTimeout         time.Duration `name:"stdin-timeout" default:"30s" help:"How long writing one message to a stdio server's stdin may take before the server is treated as hung and stopped (time dispatch waits on the agent to read its answers does not count)."`
	ServerRequestTimeout time.Duration `name:"server-request-timeout" default:"5m" help:"How long a server's request to the agent (sampling, elicitation, roots) may wait for the agent's answer; past it the agent is told it is cancelled and the server gets an error answer."`
	Threshold            string        `name:"threshold" default:"50KiB" help:"Save results larger than this to a file (bytes, or 50KiB, 1MB...; 0 = never). One-shot commands need --spill-dir for this."`
	SpillDir             string        `name:"spill-dir" placeholder:"DIR" help:"Where result files go. Server: the parent of a private per-process directory. One-shot commands: files are written here and kept."`
	SpillMax             string        `name:"spill-max" default:"1GiB" help:"Total size of result files one dispatch process may keep."`
	Toon                 bool          `name:"toon" help:"Write object and array results as TOON: always in result files, inline when smaller than compact JSON."`
	ArgsDir              []string      `name:"args-dir" sep:"none" placeholder:"DIR" help:"Directories argumentsFile may read from, besides dispatch's own result files (default: the working directory, unless it is a filesystem root or the home directory or above it). Repeatable."`
	MaxArgsFile          string        `name:"max-args-file" default:"64MiB" help:"Largest argumentsFile (or call's arguments on stdin) accepted."`
	CacheDir             string        `name:"cache-dir" env:"DISPATCH_CACHE_DIR" placeholder:"DIR" help:"Where tool catalogs are cached (default: dispatch in the platform cache directory: ~/.cache, ~/Library/Caches, %LocalAppData%)."`
	NoCache              bool          `name:"no-cache" help:"Do not read or write the catalog cache: list and search start every server."`
	Expose               []string      `name:"expose" sep:"none" placeholder:"TOOL" help:"Serve mode: also list this tool to the agent under its own name, beside proxy-dispatch (a name, c1/tool or NAME/tool). Repeatable."`
	Transparent          bool          `name:"transparent" help:"Serve mode: also list every tool, resource, resource template and prompt of every server to the agent (a name on several servers is prefixed: NAME__tool)."`
	Eager                bool          `name:"eager" help:"Serve mode: start every server at startup instead of on first use."`
	MaxRequest           string        `name:"max-request" default:"64MiB" help:"Serve mode: largest message accepted from the agent; a longer one is answered with an error and skipped (pass large inputs with argumentsFile)."`
	RunConcurrency       int           `name:"run-concurrency" default:"4" help:"Steps of one run (action run) in flight at once."`
	MaxInFlight          int           `name:"max-in-flight" default:"256" help:"Serve mode: requests served at once; past it a request is answered at once that dispatch is busy."`
	JSON                 bool          `name:"json" help:"Print JSON instead of text (one-shot commands)."`
	LogLevel             string        `name:"log-level" default:"warn" enum:"debug,info,warn,error" help:"Log level (logs go to stderr, credentials masked): ${enum}. At info, one line per tool call."`
	LogFormat            string        `name:"log-format" default:"text" enum:"text,json" help:"Log line format: text (key=value) or json (one object per line)."`
	ConfigPoll           time.Duration `name:"config-poll" default:"1s" help:"Serve mode: how often the --config files are checked for changes, which are applied to the running servers; 0 turns watching off."`
	Session              string        `name:"session" env:"DISPATCH_SESSION" placeholder:"SOCKET" help:"Run one-shot commands in this shell session (set by eval \"$(dispatch session start ...)\")."`
	TokenStore           string        `name:"token-store" env:"DISPATCH_TOKEN_STORE" default:"file" enum:"file,keychain" help:"Where OAuth client secrets and tokens are kept: file (0600, in the state directory) or keychain (the OS keychain: macOS Keychain, Windows Credential Manager, a Secret Service over D-Bus)."`
	NoSession            bool          `name:"no-session" help:"Run this command in its own process even when DISPATCH_SESSION is set."`
	Version              versionFlag   `name:"version" help:"Print the version and exit."`

	// logTo is where logs go instead of stderr (a shell session's bounded
	// log file).
	logTo io.Writer
}

// app is everything a command runs against, and how to tear it down.
type app struct {
	svc   *dispatch.Service
	conns *connections.Set
	store *spill.Store
	log   *slog.Logger
	// catalogChanged is signalled when a server's own list_changed
	// changed its catalog (one pending signal at most).
	catalogChanged chan struct{}
	// resourceUpdated passes a server's resources/updated on, once serving
	// has set it.
	resourceUpdated *atomic.Pointer[func(alias, uri string)]
	// redactor masks secrets in everything logged and shown; a command
	// that makes a secret of its own (serve's token) teaches it.
	redactor *connections.Redactor
}

// storeMode says how a command keeps result files.
type storeMode int

const (
	storeNone    storeMode = iota // no result files unless --spill-dir names a kept directory
	storePrivate                  // a private per-process directory, deleted at exit
)

// pathPolicy says which files argumentsFile and readresult may read.
type pathPolicy int

const (
	// confinePaths: an agent reads only its result files and files under
	// --args-dir; a prompt-injected agent must not read the host's files.
	confinePaths pathPolicy = iota
	// userPaths: the CLI reads whatever file its user names.
	userPaths
)

// newApp loads the servers and builds the service. The caller must call
// close, which stops every server and deletes private result files.
func (g *Globals) newApp(mode storeMode, paths pathPolicy) (*app, error) {
	redactor := connections.NewRedactor()
	redactor.LearnEnviron(os.Environ())
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[g.LogLevel]
	log := slog.New(connections.NewRedactingHandler(g.logHandler(level), redactor))

	if err := g.checkLimits(); err != nil {
		return nil, err
	}
	configs, err := g.loadConfigs()
	if err != nil {
		return nil, err
	}
	stderrLimit, err := parseSizeFlag("--stderr-limit", g.StderrLimit)
	if err != nil {
		return nil, err
	}
	cache, err := g.openCache(log)
	if err != nil {
		return nil, err
	}
	maxMessage, err := parseLimitFlag("--max-message", g.MaxMessage, "it bounds every message a server sends")
	if err != nil {
		return nil, err
	}
	maxCatalogSize, err := parseLimitFlag("--max-catalog-size", g.MaxCatalogSize, "it bounds the catalog dispatch keeps of each server")
	if err != nil {
		return nil, err
	}
	threshold, err := parseSizeFlag("--threshold", g.Threshold)
	if err != nil {
		return nil, &usageErr{fmt.Errorf("%w (0 never saves results to files)", err)}
	}
	spillMax, err := parseLimitFlag("--spill-max", g.SpillMax, "it bounds the result files of one process")
	if err != nil {
		return nil, err
	}
	maxArgs, err := parseLimitFlag("--max-args-file", g.MaxArgsFile, "it bounds what argumentsFile passes on")
	if err != nil {
		return nil, err
	}
	for _, dir := range g.ArgsDir {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return nil, &usageErr{fmt.Errorf("--args-dir %s is not a directory", dir)}
		}
	}
	catalogChanged := make(chan struct{}, 1)
	resourceUpdated := new(atomic.Pointer[func(alias, uri string)])
	conns, err := connections.NewSet(configs, connections.Options{
		OnResourceUpdated: func(c *connections.Conn, uri string) {
			if pass := resourceUpdated.Load(); pass != nil {
				(*pass)(c.Alias, uri)
			}
		},
		OnCatalogChanged: func(*connections.Conn) {
			select {
			case catalogChanged <- struct{}{}:
			default: // one pending signal says it all
			}
		},
		Tokens:               g.tokenFile(redactor, log),
		Browser:              stepUpBrowser(paths == userPaths),
		Cache:                cache,
		MaxMessageBytes:      int(maxMessage),
		MaxCatalogItems:      g.MaxCatalog,
		MaxCatalogBytes:      maxCatalogSize,
		StdinTimeout:         g.StdinTimeout,
		ServerRequestTimeout: g.ServerRequestTimeout,
		InheritEnv:           g.InheritEnv,
		ConnectTimeout:       g.ConnectTimeout,
		MaxRestartsPerMinute: g.MaxRestarts,
		StderrLimit:          int(stderrLimit),
		ClientName:           "dispatch",
		ClientVersion:        buildVersion(),
		Logger:               log,
		Redactor:             redactor,
		// A new config lets the calls on a server it removes finish.
		RetireGrace: g.Timeout,
		// A server stuck in a call is stopped as wedged only past this.
		CallTimeout: g.Timeout,
		// A one-shot command prints a failed start in its answer.
		StartFailuresReported: paths == userPaths,
	})
	if err != nil {
		return nil, &usageErr{err}
	}
	var store *spill.Store
	switch {
	case mode == storePrivate:
		store, err = spill.Open(spill.Options{Dir: g.SpillDir, MaxBytes: spillMax})
	case g.SpillDir != "":
		store, err = spill.Open(spill.Options{Dir: g.SpillDir, MaxBytes: spillMax, Keep: true})
	}
	if err != nil {
		conns.Close()
		if g.SpillDir != "" {
			return nil, &usageErr{fmt.Errorf("--spill-dir %s: %w; give a directory dispatch can create and write to", g.SpillDir, err)}
		}
		return nil, fmt.Errorf("spill directory: %w", err)
	}
	// Every start sweeps what a dispatch killed with SIGKILL left where a
	// private store would go; a private store's Open has just done so.
	var swept []string
	var sweepErr error
	if store != nil && mode == storePrivate {
		swept, sweepErr = store.Swept()
	} else {
		swept, sweepErr = spill.Sweep(g.SpillDir)
	}
	logSweep(log, swept, sweepErr)
	svc := dispatch.New(conns, dispatch.Options{
		CallTimeout:           g.Timeout,
		Threshold:             threshold,
		Toon:                  g.Toon,
		Spill:                 store,
		ArgumentRoots:         g.ArgsDir,
		PrivateDirs:           g.privateDirs(),
		PrivateFiles:          g.privateFiles(),
		TrustPaths:            paths == userPaths,
		MaxArgumentsFileBytes: maxArgs,
		RunConcurrency:        g.RunConcurrency,
		Logger:                log,
	})
	return &app{svc: svc, conns: conns, store: store, log: log, redactor: redactor,
		catalogChanged: catalogChanged, resourceUpdated: resourceUpdated}, nil
}

// privateDirs are dispatch's own directories, which argumentsFile never
// reads whatever --args-dir says: the token store's, the catalog cache
// and the shell sessions'.
func (g *Globals) privateDirs() []string {
	var dirs []string
	if tokens, err := connections.DefaultTokenFile(); err == nil {
		dirs = append(dirs, filepath.Dir(tokens))
	}
	if g.CacheDir != "" {
		dirs = append(dirs, g.CacheDir)
	}
	if cache, err := connections.DefaultCacheDir(); err == nil {
		dirs = append(dirs, cache)
	}
	if sessions := upstream.ShellBasePath(); sessions != "" {
		dirs = append(dirs, sessions)
	}
	return dirs
}

// privateFiles are dispatch's own files that argumentsFile never reads,
// whatever path reaches them: the --config files, whose credentials a
// prompt-injected agent would otherwise hand to a tool in clear, and the
// token file.
func (g *Globals) privateFiles() []string {
	files := append([]string(nil), g.Config...)
	if tokens, err := connections.DefaultTokenFile(); err == nil {
		files = append(files, tokens)
	}
	return files
}

// logHandler writes log records to stderr in the --log-format.
func (g *Globals) logHandler(level slog.Level) slog.Handler {
	opts := &slog.HandlerOptions{Level: level}
	var w io.Writer = os.Stderr
	if g.logTo != nil {
		w = g.logTo
	}
	if g.LogFormat == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// logSweep logs the outcome of a sweep of leftover result directories,
// which never stops a command.
func logSweep(log *slog.Logger, swept []string, err error) {
	if err != nil {
		log.Warn("sweep leftover result directories", "error", err.Error())
	} else if len(swept) > 0 {
		log.Info("removed result directories of dead dispatch processes", "count", len(swept))
	}
}

// close stops every server (and its process group) and deletes private
// result files. It runs however the command ends.
func (a *app) close() {
	a.conns.Close()
	if a.store != nil {
		if err := a.store.Close(); err != nil {
			a.log.Warn("delete result files", "error", err.Error())
		}
	}
}

// openCache opens the catalog cache, or returns nil with --no-cache. A
// cache that cannot be opened is logged and done without: it only saves
// time.
func (g *Globals) openCache(log *slog.Logger) (*connections.Cache, error) {
	if g.NoCache {
		return nil, nil
	}
	dir := g.CacheDir
	if dir == "" {
		var err error
		if dir, err = connections.DefaultCacheDir(); err != nil {
			log.Warn("no catalog cache", "error", err.Error())
			return nil, nil
		}
	}
	cache, err := connections.OpenCache(dir)
	if err != nil {
		if g.CacheDir != "" {
			return nil, &usageErr{fmt.Errorf("--cache-dir: %w", err)}
		}
		log.Warn("no catalog cache", "error", err.Error())
		return nil, nil
	}
	return cache, nil
}

// checkLimits refuses limits that cannot mean what they say: zero or a
// negative value used to fall back silently to the default, so that
// --max-restarts 0 allowed 5 restarts and --timeout 0 meant 2m.
func (g *Globals) checkLimits() error {
	switch {
	case g.Timeout <= 0:
		return &usageErr{fmt.Errorf("--timeout must be a positive duration such as 2m or 1h, not %s", g.Timeout)}
	case g.ConnectTimeout <= 0:
		return &usageErr{fmt.Errorf("--connect-timeout must be a positive duration such as 60s or 5m, not %s", g.ConnectTimeout)}
	case g.RunConcurrency < 1:
		return &usageErr{fmt.Errorf("--run-concurrency must be at least 1, not %d", g.RunConcurrency)}
	case g.StdinTimeout <= 0:
		return &usageErr{fmt.Errorf("--stdin-timeout must be a positive duration such as 30s, not %s", g.StdinTimeout)}
	case g.ServerRequestTimeout <= 0:
		return &usageErr{fmt.Errorf("--server-request-timeout must be a positive duration such as 5m, not %s", g.ServerRequestTimeout)}
	case g.MaxInFlight < 1:
		return &usageErr{fmt.Errorf("--max-in-flight must be at least 1 (requests served at once), not %d", g.MaxInFlight)}
	case g.ConfigPoll < 0:
		return &usageErr{fmt.Errorf("--config-poll must be a duration such as 1s, or 0 to not watch the config files, not %s", g.ConfigPoll)}
	case g.MaxCatalog < 1:
		return &usageErr{fmt.Errorf("--max-catalog-items must be at least 1 (objects kept of each list of a server), not %d", g.MaxCatalog)}
	case g.MaxRestarts < 1:
		return &usageErr{fmt.Errorf("--max-restarts must be at least 1 (restarts of a crashed server per minute), not %d", g.MaxRestarts)}
	}
	return nil
}

func (g *Globals) loadConfigs() ([]connections.ServerConfig, error) {
	configs, err := g.gatherConfigs()
	if err != nil {
		return nil, err
	}
	if len(configs) == 0 {
		return nil, &usageErr{errors.New("no servers configured: add --mcp 'COMMAND ARGS' or --config FILE")}
	}
	return configs, nil
}

// gatherConfigs reads the servers of --mcp and --config, none if none
// are given.
func (g *Globals) gatherConfigs() ([]connections.ServerConfig, error) {
	var configs []connections.ServerConfig
	for _, spec := range g.MCP {
		c, err := connections.ParseSpec(spec)
		if err != nil {
			return nil, &usageErr{fmt.Errorf("--mcp: %w", err)}
		}
		if err := c.ExpandEnv(os.LookupEnv); err != nil {
			return nil, &usageErr{fmt.Errorf("--mcp: %w", err)}
		}
		configs = append(configs, c)
	}
	for _, path := range g.Config {
		loaded, err := connections.LoadFile(path, os.LookupEnv)
		if err != nil {
			return nil, &usageErr{err}
		}
		configs = append(configs, loaded...)
	}
	return configs, nil
}

// parseLimitFlag parses a size that bounds something. Zero would silently
// mean the default to the packages below, and a limit of nothing is not
// what anyone asking for 0 means, so it is refused, saying what it bounds.
func parseLimitFlag(flag, value, bounds string) (int64, error) {
	n, err := parseSizeFlag(flag, value)
	if err == nil && n <= 0 {
		err = &usageErr{fmt.Errorf("%s must be more than 0 (%s)", flag, bounds)}
	}
	return n, err
}

func parseSizeFlag(flag, value string) (int64, error) {
	n, err := spill.ParseSize(value)
	if err != nil {
		return 0, &usageErr{fmt.Errorf("%s: %w", flag, err)}
	}
	return n, nil
}

// usageErr marks an error as the user's to fix (exit code 2).
type usageErr struct{ err error }

func (e *usageErr) Error() string { return e.err.Error() }
func (e *usageErr) Unwrap() error { return e.err }

// serversDownError says that an answer already printed is missing the
// servers that could not be started (exit code 3).
// It carries the servers' errors whole: the answer may have cut them, and
// a one-shot command does not also log them.
type serversDownError struct {
	errs []string // "c1: initialize: ..."
}

func (e *serversDownError) Error() string {
	return "could not reach " + strings.Join(e.errs, "; ")
}

// classify maps an error to an exit code.
func classify(err error) int {
	var (
		usage *usageErr
		tool  *dispatch.ToolError
		conn  *connections.ConnError
		nf    *dispatch.ToolNotFoundError
		down  *serversDownError
		deny  *connections.ToolDeniedError
		sess  *upstream.ShellError
		link  *upstream.ShellLinkError
	)
	switch {
	case errors.As(err, &sess):
		return sess.Exit // the session classified it, as this process would have
	case errors.As(err, &link):
		return exitServer // the session is gone or did not answer in full
	case errors.As(err, &tool):
		return exitToolError
	case errors.As(err, &down), errors.As(err, &nf) && len(nf.Unreachable) > 0:
		return exitServer // the tool may well be on a server that did not start
	case errors.As(err, &usage), dispatch.IsUsage(err), errors.As(err, &nf), errors.As(err, &deny):
		return exitUsage
	case errors.As(err, &conn), errors.Is(err, context.DeadlineExceeded):
		return exitServer
	}
	return exitInternal
}
