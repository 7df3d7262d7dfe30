// Command dispatch sits between an AI agent and many MCP servers: it
// exposes them all through one tool, proxy-dispatch, and keeps large
// results out of the agent's context by saving them to files.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/alecthomas/kong"
)

// CLI is every command and global flag.
type CLI struct {
	// Grouped so that a command's help lists its own flags first.
	Globals `group:"global"`

	Serve      ServeCmd      `cmd:"" default:"withargs" help:"Serve proxy-dispatch over MCP on stdio (the default: this is how an agent starts dispatch)."`
	List       ListCmd       `cmd:"" help:"List connections and their tools (or, with --type, their resources or prompts)."`
	Search     SearchCmd     `cmd:"" help:"Search the tools, resources and prompts of all connections."`
	Info       InfoCmd       `cmd:"" help:"Show one tool's full definition (or, with --type, a resource's or prompt's)."`
	Call       CallCmd       `cmd:"" help:"Call a tool."`
	Read       ReadCmd       `cmd:"" help:"Read a resource (by URI, or a URI template with NAME=VALUE variables)."`
	Prompt     PromptCmd     `cmd:"" help:"Get a prompt's messages (NAME=VALUE arguments)."`
	Readresult ReadresultCmd `cmd:"" help:"Read a result file: stat, head, tail, slice, grep, read, query."`
	Toon       ToonCmd       `cmd:"" help:"Convert JSON to TOON (or back with --decode); reads a file or stdin."`
	Auth       AuthCmd       `cmd:"" help:"OAuth for remote servers: login, status, logout."`
	Run        RunCmd        `cmd:"" help:"Run several proxy-dispatch requests as action run does, over one set of connections: a step can use an earlier one's \"$ID.resultFile\" or \"$ID.value\"; every step is checked before any runs."`
	Session    SessionCmd    `cmd:"" help:"A shell session: servers kept warm and result files kept across commands (start, status, stop)."`
}

// Exit codes, distinct so that scripts can tell failures apart.
const (
	exitOK        = 0
	exitToolError = 1 // the tool ran and returned isError
	exitUsage     = 2 // bad flags, arguments or request
	exitServer    = 3 // a server could not be started, reached or called
	exitInternal  = 4 // anything else: I/O, spill directory, ...
	exitSignal    = 130
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	var cli CLI
	// kong calls Exit after printing help or the version; recording the
	// code instead of exiting keeps os.Exit in main alone.
	exited := -1
	parser, err := newParser(&cli, func(code int) {
		if exited < 0 {
			exited = code
		}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dispatch:", err)
		return exitInternal
	}
	kctx, err := parser.Parse(args)
	if exited >= 0 {
		return exited
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "dispatch: %s\nRun 'dispatch --help' for usage.\n", escapeControls(err.Error(), true))
		return exitUsage
	}
	if err := cli.Globals.checkSessionFlags(kctx); err != nil {
		fmt.Fprintln(os.Stderr, "dispatch:", err)
		return exitUsage
	}
	ctx, caught, stop := notifyShutdown(context.Background())
	defer stop()

	kctx.BindTo(ctx, (*context.Context)(nil))
	err = kctx.Run(&cli.Globals)
	// A signal wins over the command's own result: serve mode returns
	// cleanly when a signal stops it, and a script must still see 130.
	// SIGTERM is how a service manager stops a server, though: serve
	// shut down cleanly by it has done what was asked and exits 0.
	switch {
	case ctx.Err() != nil && err == nil && caught() == syscall.SIGTERM && isServe(kctx.Command()):
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(os.Stderr, "dispatch: interrupted")
		return exitSignal
	case err == nil:
		return exitOK
	}
	// Errors quote servers and tools: escaped, so none can drive the terminal.
	fmt.Fprintln(os.Stderr, "dispatch:", escapeControls(err.Error(), true))
	return classify(err)
}

// newParser is the command line's grammar over cli; exit is called
// instead of os.Exit after help or the version is printed.
func newParser(cli *CLI, exit func(int)) (*kong.Kong, error) {
	return kong.New(cli,
		kong.Name("dispatch"),
		kong.Description("One MCP tool in front of many MCP servers, with large results kept in files."),
		kong.Groups{"global": "Global flags:"},
		kong.Exit(exit),
	)
}

// notifyShutdown is signal.NotifyContext for shutdownSignals that also
// says which signal ended ctx (nil if none), and notifies pipeSignals too
// (see catchSigpipe's note on each platform).
//
// The first signal.Notify of a process starts the Go runtime's signal
// thread and waits for it to run: 0.1 to 0.3 ms, and signal.Stop waits
// for it again, together an eighth of a warm search's whole run. So the
// signals are registered beside the command, not before it, and not
// unregistered at its end, when the process exits anyway: a signal in the
// registration's first fraction of a millisecond has its default effect,
// as one during flag parsing does. stop ends the watch.
func notifyShutdown(parent context.Context) (ctx context.Context, caught func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	var mu sync.Mutex
	var first os.Signal
	done := make(chan struct{})
	go func() {
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, shutdownSignals()...)
		if pipes := pipeSignals(); len(pipes) > 0 {
			// Never read: notified, a write to a closed pipe fails
			// with EPIPE instead of killing dispatch.
			signal.Notify(make(chan os.Signal, 1), pipes...)
		}
		select {
		case sig := <-signals:
			mu.Lock()
			first = sig
			mu.Unlock()
			cancel()
		case <-done:
		}
	}()
	caught = func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(done)
			cancel()
		})
	}
	return ctx, caught, stop
}

// isServe says whether the command line ran serve (stdio or HTTP), the
// default command.
func isServe(command string) bool {
	name, _, _ := strings.Cut(command, " ")
	return name == "serve"
}
