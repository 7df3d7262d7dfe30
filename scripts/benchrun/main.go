// Command benchrun measures what action run saves an agent: the bytes of
// tool results that reach it, and the bytes it must write, for one
// five-step chain over the npm filesystem and memory servers, done once as
// separate proxy-dispatch calls and once as one run. scripts/bench-run.sh
// builds dispatch and runs it:
//
//	go run ./scripts/benchrun DISPATCH_BINARY FILESYSTEM_SERVER MEMORY_SERVER
//
// The chain: (1) read a 1.2 MB JSON file of 1,500 entities with the
// filesystem server; (2) create those entities in the memory server; (3)
// search the graph for their entity type; (4) open every node by name; (5)
// write the names the search found to a file with the filesystem server.
// Separately, the agent must read the values it passes on (steps 3 and 5)
// into its context and write them back; in a run, references do that.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const entities = 1500

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: benchrun DISPATCH_BINARY FILESYSTEM_SERVER MEMORY_SERVER")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func run(dispatchBin, filesystem, memory string) error {
	work, err := os.MkdirTemp("", "benchrun-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	for _, d := range []string{"files", "out"} {
		if err := os.Mkdir(filepath.Join(work, d), 0o755); err != nil {
			return err
		}
	}
	input := filepath.Join(work, "files", "entities.json")
	size, err := writeEntities(input)
	if err != nil {
		return err
	}
	fmt.Printf("input: %s, %d bytes, %d entities\n", input, size, entities)

	separate, err := measure(work, dispatchBin, filesystem, memory, "separate", func(a *agent) error { return separateCalls(a, input, work) })
	if err != nil {
		return fmt.Errorf("separate calls: %w", err)
	}
	oneRun, err := measure(work, dispatchBin, filesystem, memory, "run", func(a *agent) error { return asOneRun(a, input, work) })
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	for _, name := range []string{"separate", "run"} {
		data, err := os.ReadFile(filepath.Join(work, "out", name+".json"))
		if err != nil {
			return fmt.Errorf("the %s chain wrote no names: %w", name, err)
		}
		var names []string
		if err := json.Unmarshal(data, &names); err != nil || len(names) != entities {
			return fmt.Errorf("the %s chain wrote %d names, want %d (%v)", name, len(names), entities, err)
		}
	}
	fmt.Printf("separate calls: %2d calls, %8d bytes reach the agent, %7d bytes written by it\n", separate.calls, separate.received, separate.sent)
	fmt.Printf("one run:        %2d call,  %8d bytes reach the agent, %7d bytes written by it\n", oneRun.calls, oneRun.received, oneRun.sent)
	fmt.Printf("servers' results moved by the run: %d bytes\n", oneRun.serverBytes)
	fmt.Printf("ratio (separate / run, bytes reaching the agent): %.1fx\n", float64(separate.received)/float64(oneRun.received))
	return nil
}

// writeEntities writes the memory server's create_entities arguments.
func writeEntities(path string) (int, error) {
	type entity struct {
		Name         string   `json:"name"`
		EntityType   string   `json:"entityType"`
		Observations []string `json:"observations"`
	}
	list := make([]entity, entities)
	for i := range list {
		e := entity{Name: fmt.Sprintf("entity-%05d", i), EntityType: "bench"}
		for j := range 3 {
			e.Observations = append(e.Observations, fmt.Sprintf("observation %d of entity %05d: %s", j, i, strings.Repeat("lorem ipsum dolor sit amet ", 8)))
		}
		list[i] = e
	}
	data, err := json.Marshal(map[string]any{"entities": list})
	if err != nil {
		return 0, err
	}
	return len(data), os.WriteFile(path, data, 0o644)
}

// tally is what one way of doing the chain cost the agent.
type tally struct {
	calls       int
	received    int // bytes of tools/call results
	sent        int // bytes of tools/call arguments
	serverBytes int64
}

// agent is a real MCP client talking to dispatch over stdio.
type agent struct {
	tr  *transport.Stdio
	seq int
	t   tally
}

func measure(work, dispatchBin, filesystem, memory, name string, chain func(*agent) error) (tally, error) {
	cfg := filepath.Join(work, name+".toml")
	toml := fmt.Sprintf("[servers.files]\ncommand = %q\nargs = [%q, %q]\n\n[servers.memory]\ncommand = %q\nenv = { MEMORY_FILE_PATH = %q }\n",
		filesystem, filepath.Join(work, "files"), filepath.Join(work, "out"), memory, filepath.Join(work, name+"-memory.jsonl"))
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		return tally{}, err
	}
	tr := transport.NewStdio(dispatchBin, []string{"XDG_CACHE_HOME=" + filepath.Join(work, "cache")}, "--no-cache", "--config", cfg, "--timeout", "5m")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		return tally{}, err
	}
	defer tr.Close()
	a := &agent{tr: tr}
	if _, err := a.request(ctx, "initialize", map[string]any{
		"protocolVersion": mcp.ProtocolVersion20251125, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "benchrun", "version": "1"},
	}); err != nil {
		return tally{}, fmt.Errorf("initialize: %w", err)
	}
	if err := tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: "notifications/initialized"}}); err != nil {
		return tally{}, err
	}
	if err := chain(a); err != nil {
		return tally{}, err
	}
	return a.t, nil
}

func (a *agent) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	a.seq++
	resp, err := a.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(a.seq)), Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result, nil
}

// call invokes proxy-dispatch, counts the bytes both ways, and returns
// the result's first text and its structuredContent.
func (a *agent) call(args map[string]any) (string, json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sent, err := json.Marshal(args)
	if err != nil {
		return "", nil, err
	}
	result, err := a.request(ctx, "tools/call", map[string]any{"name": "proxy-dispatch", "arguments": json.RawMessage(sent)})
	if err != nil {
		return "", nil, err
	}
	a.t.calls++
	a.t.sent += len(sent)
	a.t.received += len(result)
	var r struct {
		Content           []struct{ Text string } `json:"content"`
		StructuredContent json.RawMessage         `json:"structuredContent"`
		IsError           bool                    `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", nil, err
	}
	text := ""
	if len(r.Content) > 0 {
		text = r.Content[0].Text
	}
	if r.IsError {
		return "", nil, fmt.Errorf("%s: %s", sent, text)
	}
	return text, r.StructuredContent, nil
}

// callSpilled calls and returns the result file the answer names.
func (a *agent) callSpilled(args map[string]any) (string, error) {
	text, _, err := a.call(args)
	if err != nil {
		return "", err
	}
	var answer struct {
		Bytes int64 `json:"bytes"`
		Spill struct {
			ResultFile string `json:"resultFile"`
		} `json:"spill"`
	}
	if err := json.Unmarshal([]byte(text), &answer); err != nil || answer.Spill.ResultFile == "" {
		return "", fmt.Errorf("%v: result not saved to a file: %.300s", args["tool"], text)
	}
	a.t.serverBytes += answer.Bytes
	return answer.Spill.ResultFile, nil
}

// query reads a value from a result file into the agent's context.
func (a *agent) query(file, path string) (json.RawMessage, error) {
	_, structured, err := a.call(map[string]any{"action": "readresult", "resultFile": file, "op": "query", "path": path})
	if err != nil {
		return nil, err
	}
	var v struct {
		Value     json.RawMessage `json:"value"`
		Truncated bool            `json:"truncated"`
	}
	if err := json.Unmarshal(structured, &v); err != nil || v.Value == nil || v.Truncated {
		return nil, fmt.Errorf("query %s: no whole value (%v): %s", path, err, structured)
	}
	return v.Value, nil
}

func separateCalls(a *agent, input, work string) error {
	doc, err := a.callSpilled(map[string]any{"action": "call", "tool": "read_text_file", "arguments": map[string]any{"path": input}})
	if err != nil {
		return err
	}
	made, err := a.callSpilled(map[string]any{"action": "call", "tool": "create_entities", "argumentsFile": doc})
	if err != nil {
		return err
	}
	entityType, err := a.query(made, "entities.0.entityType")
	if err != nil {
		return err
	}
	found, err := a.callSpilled(map[string]any{"action": "call", "tool": "search_nodes", "arguments": map[string]any{"query": json.RawMessage(entityType)}})
	if err != nil {
		return err
	}
	if _, err := a.callSpilled(map[string]any{"action": "call", "tool": "open_nodes", "argumentsFile": made, "argumentsPath": "entities.#.name", "argumentsKey": "names"}); err != nil {
		return err
	}
	names, err := a.query(found, "entities.#.name|@tostr")
	if err != nil {
		return err
	}
	_, _, err = a.call(map[string]any{"action": "call", "tool": "write_file", "arguments": map[string]any{"path": filepath.Join(work, "out", "separate.json"), "content": names}})
	return err
}

func asOneRun(a *agent, input, work string) error {
	text, _, err := a.call(map[string]any{"action": "run", "steps": []any{
		map[string]any{"id": "doc", "action": "call", "tool": "read_text_file", "arguments": map[string]any{"path": input}},
		map[string]any{"id": "made", "action": "call", "tool": "create_entities", "argumentsFile": "$doc.resultFile"},
		map[string]any{"id": "found", "action": "call", "tool": "search_nodes", "arguments": map[string]any{"query": "$made.value.entities.0.entityType"}},
		map[string]any{"id": "opened", "action": "call", "tool": "open_nodes", "arguments": map[string]any{"names": "$made.value.entities.#.name"}},
		map[string]any{"action": "call", "tool": "write_file", "arguments": map[string]any{"path": filepath.Join(work, "out", "run.json"), "content": "$found.value.entities.#.name|@tostr"}},
	}})
	if err != nil {
		return err
	}
	var answer struct {
		Steps []struct {
			Error    string `json:"error"`
			Response struct {
				Bytes int64 `json:"bytes"`
			} `json:"response"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(text), &answer); err != nil {
		return err
	}
	for i, s := range answer.Steps {
		if s.Error != "" {
			return errors.New("step " + fmt.Sprint(i+1) + ": " + s.Error)
		}
		a.t.serverBytes += s.Response.Bytes
	}
	return nil
}
