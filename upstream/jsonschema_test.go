package upstream

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The jsonschema package mcp-go's server validates with is dispatch's copy
// in third_party/jsonschema (go.mod's replace), which compiles the drafts'
// meta-schemas at their first use instead of at init. dispatch turns no
// validation on, but the package must work as before: these tests use it
// directly and through mcp-go's input validation.

// draftSchemas are one schema per draft, naming its draft in $schema: each
// is checked against that draft's meta-schema when compiled.
var draftSchemas = map[string]string{
	"draft-04": "http://json-schema.org/draft-04/schema#",
	"draft-06": "http://json-schema.org/draft-06/schema#",
	"draft-07": "http://json-schema.org/draft-07/schema#",
	"2019-09":  "https://json-schema.org/draft/2019-09/schema",
	"2020-12":  "https://json-schema.org/draft/2020-12/schema",
}

// compileAndValidate compiles a small schema of the draft at metaURL and
// checks that it accepts a good instance and refuses a bad one, and that a
// schema its meta-schema refuses does not compile.
func compileAndValidate(name, metaURL string) error {
	c := jsonschema.NewCompiler()
	doc := map[string]any{
		"$schema":    metaURL,
		"type":       "object",
		"properties": map[string]any{"message": map[string]any{"type": "string", "minLength": float64(1)}},
		"required":   []any{"message"},
	}
	if err := c.AddResource("mem://"+name+".json", doc); err != nil {
		return fmt.Errorf("%s: add schema: %w", name, err)
	}
	sch, err := c.Compile("mem://" + name + ".json")
	if err != nil {
		return fmt.Errorf("%s: compile: %w", name, err)
	}
	if err := sch.Validate(map[string]any{"message": "hi"}); err != nil {
		return fmt.Errorf("%s: a valid instance refused: %w", name, err)
	}
	for _, bad := range []any{map[string]any{"message": float64(5)}, map[string]any{}, map[string]any{"message": ""}} {
		if sch.Validate(bad) == nil {
			return fmt.Errorf("%s: the invalid instance %v accepted", name, bad)
		}
	}
	badDoc := map[string]any{"$schema": metaURL, "type": float64(5)}
	if err := c.AddResource("mem://"+name+"-bad.json", badDoc); err != nil {
		return fmt.Errorf("%s: add bad schema: %w", name, err)
	}
	if _, err := c.Compile("mem://" + name + "-bad.json"); err == nil {
		return fmt.Errorf(`%s: {"type": 5} compiled: the meta-schema was not applied`, name)
	}
	return nil
}

func TestJSONSchema_EveryDraftValidates(t *testing.T) {
	for name, url := range draftSchemas {
		t.Run(name, func(t *testing.T) {
			if err := compileAndValidate(name, url); err != nil {
				t.Error(err)
			}
		})
	}
}

// firstUseChildEnv makes the test binary run the concurrent first use
// itself: only a fresh process has not compiled the meta-schemas yet.
const firstUseChildEnv = "DISPATCH_TEST_JSONSCHEMA_FIRST_USE"

// Many goroutines compiling schemas of every draft at once in a fresh
// process all wait for the one compilation of the meta-schemas (under
// -race, without a race).
func TestJSONSchema_ConcurrentFirstUse(t *testing.T) {
	if os.Getenv(firstUseChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestJSONSchema_ConcurrentFirstUse$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), firstUseChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestJSONSchema_ConcurrentFirstUse") {
			t.Fatalf("the first use in a fresh process failed: %v\n%s", err, out)
		}
		return
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(draftSchemas))
	for i := range 4 {
		for name, url := range draftSchemas {
			wg.Go(func() { errs <- compileAndValidate(fmt.Sprintf("%s-%d", name, i), url) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// mcp-go's input validation, the package's user in the binary, still
// refuses arguments that do not match a tool's input schema.
func TestJSONSchema_MCPInputValidation(t *testing.T) {
	srv := server.NewMCPServer("schema-check", "1.0.0", server.WithInputSchemaValidation())
	srv.AddTool(mcp.NewTool("echo", mcp.WithString("message", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		t.Fatal(err)
	}
	call := func(args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo", Arguments: args}})
		if err != nil {
			t.Fatalf("call %v: %v", args, err)
		}
		return res
	}
	if res := call(map[string]any{"message": "hi"}); res.IsError {
		t.Errorf("valid arguments refused: %+v", res.Content)
	}
	for _, bad := range []map[string]any{{"message": 5}, {}} {
		if res := call(bad); !res.IsError {
			t.Errorf("arguments %v accepted; want a validation error", bad)
		}
	}
}
