package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"dispatch/connections"
	"dispatch/spill"
)

// Defaults for Options.
const (
	// DefaultCallTimeout bounds one downstream call unless the server's
	// config or the request says otherwise.
	DefaultCallTimeout = 2 * time.Minute
	// DefaultThreshold is the result size above which a call's result is
	// saved to a file instead of returned inline.
	DefaultThreshold = 50 << 10
)

// Options configure a Service.
type Options struct {
	// CallTimeout bounds each call (--timeout); zero means DefaultCallTimeout.
	CallTimeout time.Duration
	// Threshold spills results larger than this many bytes (--threshold);
	// zero never spills on size.
	Threshold int64
	// Toon writes object and array results as TOON (--toon): always in
	// result files, and inline when TOON is smaller than compact JSON.
	Toon bool
	// Spill stores result files; nil means results are never spilled and
	// resultToFile is an error.
	Spill *spill.Store
	// ReadLimits bound every readresult answer.
	ReadLimits spill.Limits
	// ArgumentRoots are the directories argumentsFile may read besides the
	// spill store's own files (--args-dir).
	ArgumentRoots []string
	// PrivateDirs are never read as arguments, whatever ArgumentRoots
	// say: dispatch's own state (OAuth tokens), catalog cache and session
	// directories. /proc, /sys and /dev are refused besides.
	PrivateDirs []string
	// PrivateFiles are files never read as arguments, found by identity
	// (device and inode) whatever the path, link or mount that reaches
	// them: dispatch's config files (the credentials they hold would go
	// to a downstream tool in clear) and its token file.
	PrivateFiles []string
	// TrustPaths lets argumentsFile and readresult read any file: for the
	// CLI, whose user names their own files. The MCP server leaves it off,
	// confining an agent to its result files and ArgumentRoots.
	TrustPaths bool
	// MaxArgumentsFileBytes bounds an argumentsFile (--max-args-file).
	MaxArgumentsFileBytes int64
	// RunConcurrency bounds the steps of one run in flight at once
	// (--run-concurrency); zero means DefaultRunConcurrency.
	RunConcurrency int
	// MaxRunSteps bounds the steps of one run; zero means
	// DefaultMaxRunSteps.
	MaxRunSteps int
	Logger      *slog.Logger
}

// Service runs proxy-dispatch requests against a set of connections. It is
// safe for concurrent use: the MCP server calls it from many goroutines.
type Service struct {
	conns *connections.Set
	opts  Options
	log   *slog.Logger
	// The caches are pointers so that the copies ForSession makes share
	// them: every session sees the same servers.
	index *indexCache
	// parsed memoizes each connection's parsed catalog: every call
	// resolves its tool through the catalogs, and parsing them afresh each
	// time cost more CPU under load than relaying the call.
	parsed *toolDefCache
	// links remembers the resource URIs each connection returned, to read
	// them from it later.
	links *linkMemory
	// toonDecodes holds a slot per TOON argumentsFile being decoded
	// (MaxConcurrentTOONDecodes), shared by every session.
	toonDecodes chan struct{}
	// argumentBytes bounds the argumentsFile bytes all sessions read at
	// once (ArgumentsReadFactor).
	argumentBytes *byteBudget
}

// MaxConcurrentTOONDecodes bounds the TOON argumentsFiles decoded at once
// across all sessions: one decode may take about 200 MB
// (toon.DefaultMaxDecodeValues), and an agent may send --max-in-flight
// calls together.
const MaxConcurrentTOONDecodes = 2

// New returns a Service over conns.
func New(conns *connections.Set, opts Options) *Service {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MaxArgumentsFileBytes <= 0 {
		opts.MaxArgumentsFileBytes = DefaultMaxArgumentsFileBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if !opts.TrustPaths {
		for _, root := range opts.ArgumentRoots {
			if tooBroadForDefault(root) {
				// Named on purpose, so honoured; but said once, since an agent
				// may then feed any file under it (keys, ~/.ssh) to a tool.
				opts.Logger.Warn("--args-dir names a filesystem root or home directory: an agent may feed any file under it (keys, ~/.ssh, other projects' secrets) to a tool; dispatch's config and token files, its cache and session directories and /proc, /sys and /dev stay refused. Name the project directories instead.", "dir", root)
			}
		}
	}
	return &Service{conns: conns, opts: opts, log: opts.Logger,
		index: &indexCache{}, parsed: &toolDefCache{}, links: &linkMemory{},
		toonDecodes:   make(chan struct{}, MaxConcurrentTOONDecodes),
		argumentBytes: newByteBudget(ArgumentsReadFactor * opts.MaxArgumentsFileBytes)}
}

// ForSession returns a Service over the same connections and caches whose
// result files go to store: one agent session's own directory, so that
// readresult and argumentsFile of one session never reach another's files.
// Its log lines go to log (which names the session). Serving many agents
// over HTTP makes one per session; it costs a copy of the Options, no
// server and no cache.
func (s *Service) ForSession(store *spill.Store, log *slog.Logger) *Service {
	session := *s
	session.opts.Spill = store
	session.opts.Logger = log
	session.log = log
	return &session
}

// Connections returns the set the service runs against.
func (s *Service) Connections() *connections.Set { return s.conns }

// Hooks carry what only the caller's transport can do while a call runs.
type Hooks struct {
	// Progress receives the downstream server's progress notifications for
	// this call (progress, total, message); the token is already stripped.
	Progress func(params map[string]any)
}

// Do runs one request and returns its response value: a *ListResponse,
// *SideListResponse, *SearchResponse, *InfoResponse, *ResourceInfoResponse,
// *PromptInfoResponse, *CallResponse, *ReadResponse, *ResourceResponse,
// *PromptResponse, *RunResponse, or for a request in the Proxy Extension's spelling
// *ProxyQueryResponse.
func (s *Service) Do(ctx context.Context, req Request, hooks Hooks) (any, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	if req.ProxyShaped() {
		return s.ProxyQuery(ctx, req)
	}
	switch req.Action {
	case "list":
		switch req.kind() {
		case TypeResource:
			return s.ListResources(ctx, req)
		case TypePrompt:
			return s.ListPrompts(ctx, req)
		}
		return s.List(ctx, req)
	case "search":
		return s.Search(ctx, req)
	case "info":
		switch req.kind() {
		case TypeResource:
			return s.InfoResource(ctx, req)
		case TypePrompt:
			return s.InfoPrompt(ctx, req)
		}
		return s.Info(ctx, s.qualifyTool(ctx, req))
	case "call":
		switch req.Type {
		case TypeResource:
			return s.ReadResource(ctx, req, hooks)
		case TypePrompt:
			return s.GetPrompt(ctx, req, hooks)
		}
		return s.Call(ctx, s.qualifyTool(ctx, req), hooks)
	case "readresult":
		return s.ReadResult(ctx, req)
	case "run":
		return s.Run(ctx, req)
	}
	return nil, usagef(actionList(), "unknown action %q", req.Action)
}

// IsUsage reports whether err is the caller's mistake rather than a
// server's failure.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
