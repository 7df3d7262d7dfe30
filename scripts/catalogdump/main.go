//go:build unix

// Command catalogdump starts one MCP server over stdio, lists all of its tools
// (following nextCursor) and writes the raw tool objects, exactly as the server
// published them, to a JSON file. When the server declares the resources or
// prompts capability, its resources, resource templates and prompts are
// listed and written the same way:
//
//	{"server": "...", "package": "name@version", "tools": [ ... ],
//	 "resources": [ ... ], "resourceTemplates": [ ... ], "prompts": [ ... ]}
//
// It is used by scripts/collect-catalogs.sh to build the search evaluation
// catalogs under testdata/catalogs/.
//
// Usage:
//
//	catalogdump -server NAME -package PKG@VER -out FILE [-env K=V]... -- COMMAND [ARGS...]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// maxPages bounds the nextCursor loop against a server that never stops paging.
const maxPages = 100

type envList []string

func (e *envList) String() string     { return strings.Join(*e, ",") }
func (e *envList) Set(s string) error { *e = append(*e, s); return nil }

type options struct {
	server  string
	pkg     string
	out     string
	timeout time.Duration
	env     []string
	command []string
}

// catalog is the file written for one server.
type catalog struct {
	Server  string            `json:"server"`
	Package string            `json:"package"`
	Tools   []json.RawMessage `json:"tools"`
	// Resources, ResourceTemplates and Prompts are written only when the
	// server declares the capability and lists at least one.
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates,omitempty"`
	Prompts           []json.RawMessage `json:"prompts,omitempty"`
}

func main() {
	var opts options
	var env envList
	flag.StringVar(&opts.server, "server", "", "short server name written to the file")
	flag.StringVar(&opts.pkg, "package", "", "package name@version written to the file")
	flag.StringVar(&opts.out, "out", "", "output file")
	flag.DurationVar(&opts.timeout, "timeout", 60*time.Second, "time allowed for start, initialize and listing")
	flag.Var(&env, "env", "K=V added to the child's environment (repeatable)")
	flag.Parse()
	opts.env = env
	opts.command = flag.Args()
	if opts.server == "" || opts.out == "" || len(opts.command) == 0 {
		fmt.Fprintln(os.Stderr, "usage: catalogdump -server NAME -package PKG@VER -out FILE [-env K=V]... -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	if err := run(opts); err != nil {
		fmt.Fprintf(os.Stderr, "catalogdump %s: %v\n", opts.server, err)
		os.Exit(1)
	}
}

func run(opts options) error {
	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout)
	defer cancel()

	var child *exec.Cmd
	var stderr bytes.Buffer
	cmdFunc := func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		// Not CommandContext: the child must outlive the start context; the
		// whole process group is killed explicitly below.
		cmd := exec.Command(command, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Stderr = &stderr
		child = cmd
		return cmd, nil
	}
	tr := transport.NewStdioWithOptions(opts.command[0], opts.env, opts.command[1:],
		transport.WithCommandFunc(cmdFunc))
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	defer func() {
		// Kill the whole group first: grandchildren (npx -> node) may hold
		// the pipes open. The exit status of a killed child is expected.
		killGroup(child)
		var exitErr *exec.ExitError
		if err := c.Close(); err != nil && !errors.As(err, &exitErr) && !errors.Is(err, os.ErrProcessDone) {
			fmt.Fprintf(os.Stderr, "catalogdump %s: close: %v\n", opts.server, err)
		}
	}()

	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "dispatch-catalogdump", Version: "0"}
	initResult, err := c.Initialize(ctx, init)
	if err != nil {
		return fmt.Errorf("initialize: %w (stderr: %s)", err, tail(stderr.String()))
	}

	cat := catalog{Server: opts.server, Package: opts.pkg}
	if cat.Tools, err = listAll(ctx, tr, mcp.MethodToolsList, "tools"); err != nil {
		return fmt.Errorf("list tools: %w (stderr: %s)", err, tail(stderr.String()))
	}
	if len(cat.Tools) == 0 {
		return errors.New("server listed no tools")
	}
	if initResult.Capabilities.Resources != nil {
		if cat.Resources, err = listAll(ctx, tr, mcp.MethodResourcesList, "resources"); err != nil {
			return fmt.Errorf("list resources: %w (stderr: %s)", err, tail(stderr.String()))
		}
		if cat.ResourceTemplates, err = listAll(ctx, tr, mcp.MethodResourcesTemplatesList, "resourceTemplates"); err != nil {
			return fmt.Errorf("list resource templates: %w (stderr: %s)", err, tail(stderr.String()))
		}
	}
	if initResult.Capabilities.Prompts != nil {
		if cat.Prompts, err = listAll(ctx, tr, mcp.MethodPromptsList, "prompts"); err != nil {
			return fmt.Errorf("list prompts: %w (stderr: %s)", err, tail(stderr.String()))
		}
	}
	data, err := json.MarshalIndent(cat, "", "  ")
	if err != nil {
		return fmt.Errorf("encode catalog: %w", err)
	}
	if err := os.WriteFile(opts.out, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	fmt.Fprintf(os.Stderr, "catalogdump %s: %d tools, %d resources, %d templates, %d prompts -> %s\n",
		opts.server, len(cat.Tools), len(cat.Resources), len(cat.ResourceTemplates), len(cat.Prompts), opts.out)
	return nil
}

// listAll sends raw list requests of one method (tools/list, resources/list,
// ...) and gathers the array named key of every page, so that every field of
// every object is kept exactly as the server sent it.
func listAll(ctx context.Context, tr transport.Interface, method mcp.MCPMethod, key string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	cursor := ""
	for page := 1; page <= maxPages; page++ {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(fmt.Sprintf("catalogdump-%s-%d", key, page)),
			Method:  string(method),
			Params:  params,
		})
		if err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("server error %d: %s", resp.Error.Code, resp.Error.Message)
		}
		var result map[string]json.RawMessage
		if err := json.Unmarshal(resp.Result, &result); err != nil {
			return nil, fmt.Errorf("decode page %d: %w", page, err)
		}
		var pageItems []json.RawMessage
		if raw, ok := result[key]; ok {
			if err := json.Unmarshal(raw, &pageItems); err != nil {
				return nil, fmt.Errorf("decode page %d %s: %w", page, key, err)
			}
		}
		items = append(items, pageItems...)
		var next string
		if raw, ok := result["nextCursor"]; ok {
			if err := json.Unmarshal(raw, &next); err != nil {
				return nil, fmt.Errorf("decode page %d nextCursor: %w", page, err)
			}
		}
		if next == "" {
			return items, nil
		}
		cursor = next
	}
	return nil, fmt.Errorf("more than %d pages", maxPages)
}

// killGroup kills the child's whole process group (npx, node and anything it
// spawned).
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		fmt.Fprintf(os.Stderr, "catalogdump: kill process group %d: %v\n", cmd.Process.Pid, err)
	}
}

func tail(s string) string {
	const n = 600
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}
