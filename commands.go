package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/kong"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"dispatch/connections"
	"dispatch/dispatch"
	"dispatch/pipeio"
	"dispatch/safefile"
	"dispatch/spill"
	"dispatch/upstream"
)

// ServeCmd serves proxy-dispatch over MCP on stdio, or with --listen over
// streamable HTTP.
type ServeCmd struct {
	Listen          string        `name:"listen" placeholder:"ADDR" help:"Serve MCP streamable HTTP at /mcp on host:port (e.g. 127.0.0.1:8931) or unix:PATH, to many sessions, instead of stdio. Without a token only loopback addresses and unix sockets are allowed."`
	TokenFile       string        `name:"token-file" type:"existingfile" placeholder:"FILE" help:"With --listen: a file holding the bearer token every request must carry (or set DISPATCH_TOKEN). At least 16 characters."`
	SessionIdle     time.Duration `name:"session-idle" default:"30m" help:"With --listen: a session with nothing in flight this long ends, and its result files are deleted."`
	MaxSessions     int           `name:"max-sessions" default:"64" help:"With --listen: sessions open at once; past it an initialize is answered 503."`
	MaxHTTPInFlight int           `name:"max-http-in-flight" default:"512" help:"With --listen: HTTP requests in flight over all sessions (--max-in-flight bounds each session's); past it 503."`
	AllowHost       []string      `name:"allow-host" placeholder:"NAME" help:"With --listen: one more host name clients may reach dispatch by (repeatable), accepted in the Host and Origin headers besides loopback names and the --listen host: this machine's name, or a reverse proxy's."`
}

func (c *ServeCmd) Run(ctx context.Context, g *Globals) error {
	maxRequest, err := parseLimitFlag("--max-request", g.MaxRequest, "it bounds one message from the agent")
	if err != nil {
		return err
	}
	var listen *httpListen
	if c.Listen == "" && c.TokenFile != "" {
		return &usageErr{errors.New("--token-file is for serving over HTTP: add --listen ADDR (e.g. 127.0.0.1:8931), or drop --token-file (serving on stdio needs no token)")}
	}
	if c.Listen == "" && len(c.AllowHost) > 0 {
		return &usageErr{errors.New("--allow-host is for serving over HTTP: add --listen ADDR, or drop --allow-host")}
	}
	if c.Listen != "" {
		if listen, err = c.prepareHTTP(g); err != nil {
			return err
		}
		defer listen.close()
	}
	a, err := g.newApp(storePrivate, confinePaths)
	if err != nil {
		return err
	}
	defer a.close()

	// Servers start on first use: list, search and info come from the
	// catalog cache where it has an entry. With --eager they all start now,
	// in the background, so the agent's initialize is answered at once; a
	// request that needs a server still starting waits for it.
	// Over stdio the agent's capabilities are known at its first request:
	// servers start after it (see agentArrival).
	var arrival *agentArrival
	if listen == nil {
		arrival = newAgentArrival()
	}
	if g.Eager {
		connectCtx, cancelConnect := context.WithCancel(ctx)
		connected := make(chan struct{})
		go func() {
			defer close(connected)
			if arrival.wait(connectCtx) {
				a.conns.ConnectAll(connectCtx)
			}
		}()
		defer func() {
			cancelConnect()
			<-connected
		}()
	}

	if listen != nil {
		listen.learnSecrets(a)
	}
	surface := upstream.NewSurface(a.svc, g.exposeOptions(), a.log)
	var srv *server.MCPServer
	var httpSrv *upstream.HTTPServer
	runner := upstream.StdioRunner(a.svc)
	if listen != nil {
		if httpSrv, err = listen.server(a, g, maxRequest, surface.ServerOptions()); err != nil {
			return err
		}
		srv, runner = httpSrv.MCP(), httpSrv.InSession
	} else {
		srv = upstream.NewMCPServer(a.svc, buildVersion(), surface.ServerOptions()...)
		arrival.watch(srv)
	}
	surfaceCtx, stopSurface := context.WithCancel(ctx)
	following, err := a.startSurface(surfaceCtx, surface, srv, runner, arrival)
	if err != nil {
		stopSurface()
		return err
	}
	defer func() {
		stopSurface()
		following.wait()
	}()
	if g.ConfigPoll > 0 && len(g.Config) > 0 {
		watcher := &configWatcher{g: g, conns: a.conns, interval: g.ConfigPoll, log: a.log,
			changed: func(connections.Changes) {
				srv.SendNotificationToAllClients(string(mcp.MethodNotificationToolsListChanged), nil)
				following.changed()
			}}
		watchCtx, stopWatching := context.WithCancel(ctx)
		watching := make(chan struct{})
		go func() {
			defer close(watching)
			watcher.run(watchCtx)
		}()
		defer func() {
			stopWatching()
			<-watching
		}()
	}
	if httpSrv != nil {
		// It returns on a signal, having ended every session.
		return httpSrv.Serve(ctx, listen.listener)
	}
	// It returns at stdin EOF (the agent went away) or on a signal.
	opts := upstream.StdioOptions{MaxInFlight: g.MaxInFlight, MaxRequestBytes: maxRequest, Relay: a.conns, Direct: a.svc, Exposed: surface.ExposedTool, Logger: a.log}
	in, out, restore := pipeio.Stdio()
	defer restore()
	if err := upstream.ServeStdio(ctx, srv, in, out, opts); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve stdio: %w", err)
	}
	return nil
}

// ListCmd lists connections and their tools.
type ListCmd struct {
	Connection  string `short:"C" help:"Only this connection (alias, name or ID); lists its tools."`
	Tools       bool   `help:"List tools one per line with a short description."`
	Schema      bool   `help:"Include each tool's input schema."`
	Annotations bool   `help:"Include each tool's annotations."`
	Format      string `enum:"compact,detail" default:"compact" help:"compact or detail."`
	Limit       *int   `help:"Tools per page (default 50, at most 500)."`
	Offset      int64  `help:"Skip this many tools."`
	Refresh     bool   `help:"Re-read tool lists from the servers."`
	Type        string `name:"type" enum:"tool,resource,prompt" default:"tool" help:"List tools (default), resources and resource templates, or prompts."`
}

// Help is shown under list's usage line.
func (c *ListCmd) Help() string {
	return `Without -C or --tools, one line per connection and the names of its tools. Examples:

    dispatch -m SERVER list
    dispatch -m SERVER list -C c1 --tools --limit 20 --offset 20
    dispatch -m SERVER list --type resource
    dispatch -m SERVER list --format detail --json`
}

func (c *ListCmd) Run(ctx context.Context, g *Globals) error {
	collectLessForCatalogs()
	typ := c.Type
	if typ == dispatch.TypeTool {
		typ = "" // the tool list's own answer, connections first
	}
	req := dispatch.Request{Action: "list", Type: typ, Connection: c.Connection, IncludeInputSchema: c.Schema,
		IncludeAnnotations: c.Annotations, Format: c.Format, Limit: c.Limit, Offset: c.Offset, Refresh: c.Refresh}
	if c.Tools {
		req.IncludeTools = &c.Tools
	}
	return g.oneShot(ctx, req)
}

// SearchCmd searches tools, resources and prompts.
type SearchCmd struct {
	Query      []string `arg:"" help:"What you want to do, in words."`
	Type       string   `enum:",tool,resource,prompt" default:"" help:"Only tools, resources (and templates) or prompts (default: all, ranked together)."`
	Connection string   `short:"C" help:"Only this connection."`
	Limit      *int     `help:"Most hits to show (default 10, at most 50)."`
	Format     string   `enum:"compact,detail" default:"compact" help:"compact or detail."`
	Schema     bool     `help:"Include each hit's input schema."`
	Refresh    bool     `help:"Re-read tool lists from the servers."`
}

// Help is shown under search's usage line.
func (c *SearchCmd) Help() string {
	return `The query is the task in a few words; the best hits come first, each with its parameters (? marks optional ones). Examples:

    dispatch -m SERVER search read a file
    dispatch -m SERVER search --type prompt greet someone
    dispatch -m SERVER search -C c1 --limit 20 --schema send a message`
}

func (c *SearchCmd) Run(ctx context.Context, g *Globals) error {
	collectLessForCatalogs()
	return g.oneShot(ctx, dispatch.Request{Action: "search", Query: strings.Join(c.Query, " "), Type: c.Type,
		Connection: c.Connection, Limit: c.Limit, Format: c.Format, IncludeInputSchema: c.Schema, Refresh: c.Refresh})
}

// InfoCmd shows a tool's definition.
type InfoCmd struct {
	Tool       string `arg:"" help:"Tool name (with --type: a resource's URI or template, or a prompt's name)."`
	Connection string `short:"C" help:"Connection, when the name exists on several."`
	Type       string `name:"type" enum:"tool,resource,prompt" default:"tool" help:"Show a tool (default), a resource or template, or a prompt."`
}

// Help is shown under info's usage line.
func (c *InfoCmd) Help() string {
	return `Prints the definition exactly as its server published it; the names below are those of the reference filesystem and everything servers. Examples:

    dispatch -m SERVER info read_file
    dispatch -m SERVER info c1/read_file
    dispatch -m SERVER info --type resource 'demo://resource/dynamic/text/{resourceId}'
    dispatch -m SERVER info --type prompt args-prompt`
}

func (c *InfoCmd) Run(ctx context.Context, g *Globals) error {
	req := dispatch.Request{Action: "info", Tool: c.Tool, Connection: c.Connection}
	switch c.Type {
	case dispatch.TypeResource:
		req.Type, req.Tool, req.URI = c.Type, "", c.Tool
	case dispatch.TypePrompt:
		req.Type, req.Tool, req.Prompt = c.Type, "", c.Tool
	}
	return g.oneShot(ctx, req)
}

// CallCmd calls a tool.
type CallCmd struct {
	Tool          string   `arg:"" help:"Tool name (with --type: the resource's URI or the prompt's name)."`
	Type          string   `name:"type" enum:"tool,resource,prompt" default:"tool" help:"What to call: a tool, a resource (read it, as dispatch read) or a prompt (as dispatch prompt)."`
	Arguments     []string `arg:"" optional:"" help:"The tool's arguments: NAME=VALUE words (typed from the tool's input schema), NAME:=JSON, and/or one JSON object ('{\"a\": 1}', or - to read it from stdin)."`
	Connection    string   `short:"C" help:"Connection, when the name exists on several."`
	ArgumentsFile string   `name:"arguments-file" short:"f" placeholder:"FILE" help:"JSON or TOON file with the arguments; the other arguments override its keys."`
	ArgumentsPath string   `name:"arguments-path" placeholder:"GJSON" help:"Select part of the arguments file."`
	ArgumentsKey  string   `name:"arguments-key" placeholder:"KEY" help:"Place the selected value under this key."`
	Meta          string   `help:"JSON object forwarded as the request's _meta."`
	ResultToFile  string   `name:"result-to-file" short:"o" placeholder:"PATH" help:"Write the result's payload to PATH (kept) and print a summary."`
	CallTimeout   *float64 `name:"call-timeout" help:"Seconds before this call is cancelled (overrides --timeout)."`
}

// Help is shown under call's usage line, before its flags and the global
// flags.
func (c *CallCmd) Help() string {
	return `NAME=VALUE is a string, or a number, boolean, array or object when the tool's input schema says the parameter is one (a=2 sends 2, not "2"); NAME:=JSON is always JSON. Examples:

    dispatch -m SERVER call get-sum a=2 b=3
    dispatch -m SERVER call read_file path=/tmp/notes.md
    dispatch -m SERVER call search '{"query": "auth", "limit": 5}'
    dispatch -m SERVER call create_issue title='Login fails' labels:='["bug"]'
    echo '{"a": 1}' | dispatch -m SERVER call TOOL -
    dispatch -m SERVER call list_files -o files.json
    dispatch -m SERVER call write_file -f notes.md --arguments-key content path=/tmp/n.md`
}

func (c *CallCmd) Run(ctx context.Context, g *Globals, k *kong.Context) error {
	if c.Type != dispatch.TypeTool {
		return c.readOrGet(ctx, g, k)
	}
	req := dispatch.Request{Action: "call", Tool: c.Tool, Connection: c.Connection, ArgumentsFile: c.ArgumentsFile,
		ArgumentsPath: c.ArgumentsPath, ArgumentsKey: c.ArgumentsKey, Timeout: c.CallTimeout, TimeoutName: "--call-timeout"}
	if err := g.checkOneShotThreshold(flagGiven(k, "threshold") && !thresholdNever(g.Threshold), c.ResultToFile != ""); err != nil {
		return err
	}
	maxArgs, err := parseLimitFlag("--max-args-file", g.MaxArgsFile, "it bounds what argumentsFile passes on")
	if err != nil {
		return err
	}
	object, pairs, err := splitCallArgs(c.Arguments, os.Stdin, maxArgs)
	if err != nil {
		return err
	}
	if req.Meta, err = metaFlag(c.Meta); err != nil {
		return err
	}
	build := func(ctx context.Context, a core) (dispatch.Request, error) {
		if len(pairs) == 0 {
			if strings.TrimSpace(object) != "" {
				req.Arguments = json.RawMessage(object)
			}
			return req, nil
		}
		schema, err := inputSchema(ctx, a, req)
		if err != nil {
			return req, err
		}
		req.Arguments, err = mergeCallArgs(req.Tool, object, schema, pairs)
		return req, err
	}
	if c.ResultToFile != "" {
		req.AsSent = true
		// The whole result goes to the user's file: saving it to a result
		// file first (a session's or --spill-dir's threshold) would leave
		// nothing for -o to write.
		req.ResultSizeThreshold = new(int64)
		return g.callToFile(ctx, build, c.ResultToFile)
	}
	return g.withRequest(ctx, build, func(_ core, resp any) (any, error) { return resp, nil })
}

// metaFlag is --meta's JSON object, kept as written: its numbers reach
// the server with every digit (decoded, they would be float64s), and 1e400
// goes on as it does in the arguments. "" and null are no meta.
func metaFlag(value string) (json.RawMessage, error) {
	if value == "" {
		return nil, nil
	}
	var meta json.RawMessage
	if err := json.Unmarshal([]byte(value), &meta); err != nil {
		return nil, &usageErr{fmt.Errorf(`--meta must be a JSON object, such as --meta '{"key": "value"}': %w`, err)}
	}
	switch meta[0] {
	case '{':
		return meta, nil
	case 'n':
		return nil, nil
	}
	return nil, &usageErr{fmt.Errorf(`--meta must be a JSON object, such as --meta '{"key": "value"}', not %s`, value)}
}

// inputSchema is the input schema of req's tool, to type NAME=VALUE words.
func inputSchema(ctx context.Context, a core, req dispatch.Request) (json.RawMessage, error) {
	resp, err := a.do(ctx, dispatch.Request{Action: "info", Tool: req.Tool, Connection: req.Connection})
	if err != nil {
		return nil, err
	}
	var def struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if info, ok := resp.(*dispatch.InfoResponse); ok {
		if err := json.Unmarshal(info.Tool, &def); err != nil {
			return nil, fmt.Errorf("tool %s: read its input schema: %w", req.Tool, err)
		}
	}
	return def.InputSchema, nil
}

// thresholdNever reports whether --threshold is 0, "never save", which
// needs nowhere to keep files. A malformed value is newApp's to report.
func thresholdNever(value string) bool {
	n, err := spill.ParseSize(value)
	return err == nil && n == 0
}

// checkOneShotThreshold refuses --threshold on a one-shot call that has
// nowhere to keep a result file: the file would be deleted when the
// command ends, so the whole result is printed whatever --threshold says.
func (g *Globals) checkOneShotThreshold(given, toFile bool) error {
	if g.SpillDir != "" || toFile || !given {
		return nil
	}
	if _, err := spill.ParseSize(g.Threshold); err != nil {
		return nil // what is wrong with the value comes first, from newApp
	}
	return &usageErr{errors.New("--threshold needs --spill-dir DIR in a one-shot call: without it a result file would be deleted when the command ends, so the whole result is printed; add --spill-dir DIR to keep large results there, or -o FILE to save this one")}
}

// ReadresultCmd reads a result file. Unlike the MCP tool, it reads any
// file the user names: the confinement protects an agent's host, not a
// person at a shell.
type ReadresultCmd struct {
	File       string `arg:"" type:"existingfile" help:"The file."`
	Op         string `default:"stat" enum:"stat,head,tail,slice,grep,read,query" help:"${enum}."`
	Lines      *int   `short:"n" help:"head/tail: lines (default 50, at least 1)."`
	FromLine   int64  `name:"from-line" help:"slice: first line; grep: line to start searching at (1-based; where a cut grep says to continue)."`
	ToLine     int64  `name:"to-line" help:"slice: last line."`
	Pattern    string `short:"e" help:"grep: case-insensitive regular expression."`
	Context    int    `short:"C" help:"grep: lines around each match."`
	MaxMatches *int   `name:"max-matches" help:"grep: matches to show (default 50, at least 1)."`
	MaxBytes   *int64 `name:"max-bytes" help:"read: bytes to return (default 16384, at least 1)."`
	Offset     int64  `help:"read: byte offset."`
	Path       string `help:"query: gjson path."`
}

// Help is shown under readresult's usage line.
func (c *ReadresultCmd) Help() string {
	return `Prints the data on stdout and its notes (what was cut, how to continue) on stderr. Examples:

    dispatch readresult FILE
    dispatch readresult FILE --op head -n 20
    dispatch readresult FILE --op slice --from-line 100 --to-line 150
    dispatch readresult FILE --op grep -e 'error|timeout' -C 2 --max-matches 20
    dispatch readresult FILE --op read --offset 32768 --max-bytes 16384
    dispatch readresult FILE --op query --path 'items.#(size>1000)#.name'`
}

func (c *ReadresultCmd) Run(ctx context.Context, g *Globals) error {
	req := dispatch.Request{Action: "readresult", ResultFile: c.File, Op: c.Op, Lines: c.Lines, FromLine: c.FromLine,
		ToLine: c.ToLine, Pattern: c.Pattern, Context: c.Context, MaxMatches: c.MaxMatches, MaxBytes: c.MaxBytes,
		Offset: c.Offset, Path: c.Path}
	resp, err := dispatch.ReadFile(c.File, req, spillLimits().WithContext(ctx))
	if err != nil {
		return shellError(err)
	}
	if g.JSON {
		return g.render(os.Stdout, resp)
	}
	// Data on stdout, notes (what was cut, how to get the rest) on
	// stderr: $(dispatch readresult F --op query --path total) is the value.
	body := resp.Body
	if isTerminal(os.Stdout) {
		body = escapeControls(body, true)
	}
	if _, err := io.WriteString(os.Stdout, body); err != nil {
		return err
	}
	_, err = io.WriteString(os.Stderr, escapeControls(shellNotes(resp.Notes), true))
	return err
}

// agentParams are the request parameters that readresult's notes name, as
// an agent writes them ("continue with slice fromLine=501").
var agentParams = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(slice |read )?(fromLine|offset)=`) })

// shellNotes rewrites readresult's notes for a shell user: "continue with
// slice fromLine=501" becomes "continue with --op slice --from-line 501".
func shellNotes(notes string) string {
	return agentParams().ReplaceAllStringFunc(notes, func(m string) string {
		op, param, _ := strings.Cut(m, " ")
		if param == "" {
			op, param = "", op
		}
		flag := map[string]string{"fromLine=": "--from-line ", "offset=": "--offset "}[param]
		if op != "" {
			return "--op " + op + " " + flag
		}
		return flag
	})
}

// oneShot runs one request in this process and prints its answer.
func (g *Globals) oneShot(ctx context.Context, req dispatch.Request) error {
	return g.withAnswer(ctx, req, func(_ core, resp any) (any, error) { return resp, nil })
}

// callToFile runs a call and writes its payload to a file the user keeps.
// The file is checked first: a tool's side effects must not happen when
// its result has nowhere to go.
func (g *Globals) callToFile(ctx context.Context, build requestBuilder, path string) (err error) {
	created, err := checkResultFile(path)
	if err != nil {
		return err
	}
	defer func() {
		// An empty file left by a failed call would pass for a result.
		if err != nil && created {
			os.Remove(path)
		}
	}()
	return g.withRequest(ctx, build, func(a core, resp any) (any, error) {
		call := resp.(*dispatch.CallResponse)
		if call.IsError {
			return nil, g.toolErrorNotSaved(call, path, created)
		}
		return a.savePayload(ctx, call, path)
	})
}

// toolErrorNotSaved reports a tool's isError answer to call -o as the
// failed call it is: its text would otherwise replace the data of an
// existing file, or sit in a new one passing for a result. The answer goes
// to stderr, as every failure's message does, so that stdout, which holds
// the summary of a saved result, stays empty.
func (g *Globals) toolErrorNotSaved(call *dispatch.CallResponse, path string, created bool) error {
	left := ", which is as it was"
	if created {
		left = ""
	}
	failed := fmt.Errorf("%w (above); nothing was saved to %s%s", &dispatch.ToolError{Tool: call.Tool}, path, left)
	if err := g.render(os.Stderr, call); err != nil {
		// Still the tool's failure (exit 1), with why its text is missing.
		return errors.Join(failed, fmt.Errorf("print the error tool %s returned: %w", call.Tool, err))
	}
	return failed
}

// checkResultFile makes sure -o PATH can be written, creating it when it
// does not exist (created says so); an existing file is left as it is
// until the result replaces it.
func checkResultFile(path string) (created bool, err error) {
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return false, &usageErr{fmt.Errorf("-o/--result-to-file %s is %s, not a regular file; name a file to write the result to (or leave -o out to print it)", path, fileKind(info.Mode()))}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, os.ErrExist) {
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	} else if err == nil {
		created = true
	}
	if err != nil {
		return false, &usageErr{fmt.Errorf("-o/--result-to-file: %w; name a file in a directory that exists and that you can write to (nothing was called)", err)}
	}
	if err := f.Close(); err != nil {
		return created, fmt.Errorf("-o/--result-to-file %s: %w", path, err)
	}
	return created, nil
}

// withAnswer runs req in a fresh app, lets then turn the answer into what
// is printed, prints it, and reports a tool's isError as the exit code.
func (g *Globals) withAnswer(ctx context.Context, req dispatch.Request, then func(core, any) (any, error)) error {
	return g.withRequest(ctx, func(context.Context, core) (dispatch.Request, error) { return req, nil }, then)
}

// flagGiven reports whether the command line gave the flag (its default
// does not count).
func flagGiven(k *kong.Context, name string) bool {
	for _, p := range k.Path {
		if p.Flag != nil && p.Flag.Name == name {
			return true
		}
	}
	return false
}

// requestBuilder makes a command's request once the app is up: call looks
// up the tool's schema to type NAME=VALUE arguments.
type requestBuilder func(context.Context, core) (dispatch.Request, error)

// withRequest is withAnswer for a request built by build.
func (g *Globals) withRequest(ctx context.Context, build requestBuilder, then func(core, any) (any, error)) error {
	a, err := g.openCore()
	if err != nil {
		return err
	}
	defer a.close()
	req, err := build(ctx, a)
	if err != nil {
		return shellError(err)
	}
	resp, err := a.do(ctx, req)
	if err != nil {
		return shellError(err)
	}
	shown, err := then(a, resp)
	if err != nil {
		return err
	}
	if err := g.render(os.Stdout, shown); err != nil {
		return err
	}
	if call, ok := resp.(*dispatch.CallResponse); ok && call.IsError {
		return &dispatch.ToolError{Tool: call.Tool}
	}
	return incompleteAnswer(resp)
}

// incompleteAnswer reports, after the answer is printed, that a server
// could not be reached, so that a script sees exit code 3 rather than
// taking a failed server's silence for "no tools": list fails when any
// server failed, search when it found nothing and some server was not
// searched (hits from the others are still an answer).
func incompleteAnswer(resp any) error {
	down := &serversDownError{}
	switch r := resp.(type) {
	case *dispatch.ListResponse:
		for _, c := range r.Connections {
			if c.Status == string(connections.StatusFailed) || c.Status == string(connections.StatusNeedsAuth) {
				down.errs = append(down.errs, c.Error)
			}
		}
	case *dispatch.SearchResponse:
		if len(r.Hits) == 0 {
			for _, u := range r.Unreachable {
				down.errs = append(down.errs, u)
			}
		}
	}
	if len(down.errs) == 0 {
		return nil
	}
	return down
}

// openNamed opens a file named on the command line. A FIFO or device is
// refused rather than waited on (a pipe goes on stdin, as "-").
func openNamed(path string) (*os.File, error) {
	f, err := safefile.Open(path)
	if errors.Is(err, safefile.ErrNotRegular) {
		return nil, fmt.Errorf("%s is not a regular file; to read from a pipe, give - and pipe it to stdin", path)
	}
	return f, err
}

// fileKind names what a path that is not a regular file is.
func fileKind(mode os.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&os.ModeCharDevice != 0, mode&os.ModeDevice != 0:
		return "a device"
	case mode&os.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}
