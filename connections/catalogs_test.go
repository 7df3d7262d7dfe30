package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// catalogServer is a real mcp-go server over streamable HTTP that counts
// the requests it gets by method.
type catalogServer struct {
	url string

	mu     sync.Mutex
	counts map[string]int
}

func (s *catalogServer) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method]
}

// startCatalogServer serves build's server, paginated pageSize items a page.
func startCatalogServer(t *testing.T, pageSize int, build func(*server.MCPServer), opts ...server.ServerOption) *catalogServer {
	t.Helper()
	s := &catalogServer{counts: map[string]int{}}
	hooks := &server.Hooks{}
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcp.MCPMethod, _ any) {
		s.mu.Lock()
		s.counts[string(method)]++
		s.mu.Unlock()
	})
	opts = append(opts, server.WithToolCapabilities(true), server.WithHooks(hooks))
	if pageSize > 0 {
		opts = append(opts, server.WithPaginationLimit(pageSize))
	}
	mcpSrv := server.NewMCPServer("catalogs", "1", opts...)
	mcpSrv.AddTool(mcp.NewTool("echo", mcp.WithString("message")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	build(mcpSrv)
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(mcpSrv))
	s.url = serveLoopback(t, mux) + "/mcp"
	return s
}

const catalogSecret = "sekret-token-4711"

// fullCatalog adds 5 resources (one with a size, one whose description
// leaks catalogSecret), 3 templates and 3 prompts.
func fullCatalog(srv *server.MCPServer) {
	read := func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	for i := 1; i <= 5; i++ {
		r := mcp.NewResource(fmt.Sprintf("test://r/%d", i), fmt.Sprintf("r%d", i), mcp.WithMIMEType("text/plain"),
			mcp.WithResourceDescription(fmt.Sprintf("Resource number %d.", i)))
		if i == 2 {
			size := int64(20 << 20)
			r.Size = &size
		}
		if i == 3 {
			r.Description = "Needs token " + catalogSecret + "."
		}
		srv.AddResource(r, read)
	}
	for i := 1; i <= 3; i++ {
		srv.AddResourceTemplate(mcp.NewResourceTemplate(fmt.Sprintf("test://t%d/{id}", i), fmt.Sprintf("t%d", i)), read)
	}
	get := func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
	for i := 1; i <= 3; i++ {
		srv.AddPrompt(mcp.NewPrompt(fmt.Sprintf("p%d", i), mcp.WithPromptDescription("A prompt."),
			mcp.WithArgument("name", mcp.RequiredArgument())), get)
	}
}

func catalogConfig(url string) ServerConfig {
	return ServerConfig{Transport: TransportHTTP, URL: url, Headers: map[string]string{"Authorization": "Bearer " + catalogSecret}}
}

func newTestConn(t *testing.T, cfg ServerConfig, cache *Cache) *Conn {
	t.Helper()
	set, err := NewSet([]ServerConfig{cfg}, Options{Cache: cache, Redactor: NewRedactor(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	return set.Conns()[0]
}

func fieldOf(t *testing.T, raw json.RawMessage, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return fmt.Sprint(m[field])
}

func TestConn_SideCatalogsFollowEveryPage(t *testing.T) {
	srv := startCatalogServer(t, 2, fullCatalog, server.WithResourceCapabilities(false, true), server.WithPromptCapabilities(true))
	c := newTestConn(t, catalogConfig(srv.url), nil)
	ctx := context.Background()

	resources, err := c.Resources(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := c.ResourceTemplates(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := c.Prompts(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(resources) != 5 || len(templates) != 3 || len(prompts) != 3 {
		t.Fatalf("got %d resources, %d templates, %d prompts; want 5, 3, 3", len(resources), len(templates), len(prompts))
	}
	// Pages of 2: 3 requests each for resources, 2 for templates and prompts.
	if got := srv.count("resources/list"); got != 3 {
		t.Errorf("resources/list sent %d times, want 3 (every page, once)", got)
	}
	if got := srv.count("resources/templates/list"); got != 2 {
		t.Errorf("resources/templates/list sent %d times, want 2", got)
	}
	if got := srv.count("prompts/list"); got != 2 {
		t.Errorf("prompts/list sent %d times, want 2", got)
	}
	var sized json.RawMessage
	for _, r := range resources {
		if fieldOf(t, r, "uri") == "test://r/2" {
			sized = r
		}
		if strings.Contains(string(r), catalogSecret) {
			t.Errorf("resource shows the secret: %s", r)
		}
	}
	// As published: every field the server sent, its size included.
	if want := `{"uri":"test://r/2","name":"r2","description":"Resource number 2.","mimeType":"text/plain","size":20971520}`; string(sized) != want {
		t.Errorf("resource r2 = %s, want %s", sized, want)
	}
	if got := fieldOf(t, templates[0], "uriTemplate"); !strings.HasPrefix(got, "test://t") {
		t.Errorf("template uriTemplate = %q", got)
	}
	if !strings.Contains(string(prompts[0]), `"arguments":[{"name":"name","required":true}]`) {
		t.Errorf("prompt lost its arguments: %s", prompts[0])
	}

	// Asked again: from memory, no request.
	if _, err := c.Prompts(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := srv.count("prompts/list"); got != 2 {
		t.Errorf("a second Prompts sent prompts/list again (%d requests)", got)
	}
	// refresh asks the server.
	if _, err := c.Prompts(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := srv.count("prompts/list"); got != 4 {
		t.Errorf("Prompts with refresh: %d prompts/list requests, want 4", got)
	}
}

func TestConn_SideCatalogsOnlyWhenDeclared(t *testing.T) {
	srv := startCatalogServer(t, 0, func(*server.MCPServer) {})
	c := newTestConn(t, catalogConfig(srv.url), nil)
	ctx := context.Background()
	for name, list := range map[string]func(context.Context, bool) ([]json.RawMessage, error){
		"Resources": c.Resources, "ResourceTemplates": c.ResourceTemplates, "Prompts": c.Prompts,
	} {
		items, err := list(ctx, false)
		if err != nil {
			t.Errorf("%s on a server without the capability: %v, want an empty list", name, err)
		}
		if items == nil || len(items) != 0 {
			t.Errorf("%s = %v, want an empty, non-nil list", name, items)
		}
	}
	for _, m := range []string{"resources/list", "resources/templates/list", "prompts/list"} {
		if n := srv.count(m); n != 0 {
			t.Errorf("%s sent %d times to a server that did not declare it", m, n)
		}
	}
	if caps, ok := c.Capabilities(); !ok || caps.Resources || caps.Prompts {
		t.Errorf("Capabilities = %+v, %v; want known, without resources or prompts", caps, ok)
	}
}

func TestConn_CatalogCacheCoversSideCatalogs(t *testing.T) {
	srv := startCatalogServer(t, 0, fullCatalog, server.WithResourceCapabilities(false, true), server.WithPromptCapabilities(true))
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := catalogConfig(srv.url)

	// One cold listing of tools lists the rest too, on the same session.
	if _, err := newTestConn(t, cfg, cache).Tools(ctx, false); err != nil {
		t.Fatal(err)
	}
	if n := srv.count("initialize"); n != 1 {
		t.Fatalf("%d initializations, want 1", n)
	}
	data, err := os.ReadFile(filepath.Join(cache.Dir(), cfg.ID()+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), catalogSecret) {
		t.Error("the cache holds a resource description's secret in clear")
	}

	// Warm: another dispatch answers all three from the cache, starting nothing.
	warm := newTestConn(t, cfg, cache)
	resources, err := warm.Resources(ctx, false)
	if err != nil || len(resources) != 5 {
		t.Fatalf("cached resources: %d, %v; want 5", len(resources), err)
	}
	templates, err := warm.ResourceTemplates(ctx, false)
	if err != nil || len(templates) != 3 {
		t.Fatalf("cached templates: %d, %v; want 3", len(templates), err)
	}
	prompts, err := warm.Prompts(ctx, false)
	if err != nil || len(prompts) != 3 {
		t.Fatalf("cached prompts: %d, %v; want 3", len(prompts), err)
	}
	if st := warm.State(); st.Status != StatusIdle {
		t.Errorf("status %s after cached listings, want idle", st.Status)
	}
	if n := srv.count("initialize"); n != 1 {
		t.Errorf("warm cache: %d initializations, want still 1", n)
	}
	if caps, ok := warm.Capabilities(); !ok || !caps.Resources || !caps.Prompts {
		t.Errorf("cached capabilities = %+v, %v", caps, ok)
	}
}

// A cache entry written before resources were cached (version 1) still
// gives its tools; the rest is fetched when first asked for.
func TestConn_VersionOneCacheEntry(t *testing.T) {
	srv := startCatalogServer(t, 0, fullCatalog, server.WithResourceCapabilities(false, true), server.WithPromptCapabilities(true))
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := catalogConfig(srv.url)
	old := fmt.Sprintf(`{"version":1,"id":%q,"savedAt":"2026-01-01T00:00:00Z","server":{"name":"catalogs"},"tools":[{"name":"cached_echo","inputSchema":{"type":"object"}}]}`, cfg.ID())
	if err := os.WriteFile(filepath.Join(cache.Dir(), cfg.ID()+".json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newTestConn(t, cfg, cache)
	ctx := context.Background()
	tools, err := c.Tools(ctx, false)
	if err != nil || len(tools) != 1 || fieldOf(t, tools[0], "name") != "cached_echo" {
		t.Fatalf("tools from a version 1 entry: %s, %v", tools, err)
	}
	if n := srv.count("initialize"); n != 0 {
		t.Fatalf("tools from the cache started the server (%d initializations)", n)
	}
	prompts, err := c.Prompts(ctx, false)
	if err != nil || len(prompts) != 3 {
		t.Fatalf("prompts past a version 1 entry: %d, %v; want 3 from the server", len(prompts), err)
	}
	// The server's start also confirms the cached tools in the
	// background, which lists the resources: wait for that to be saved.
	var entry CacheEntry
	ok := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if entry, ok = cache.Load(cfg.ID()); ok && len(entry.Resources) == 5 {
			break
		}
	}
	if !ok || entry.Version != cacheVersion || len(entry.Prompts) != 3 || len(entry.Resources) != 5 {
		t.Errorf("entry after the live listing: ok %v, version %d, %d prompts, %d resources; want version %d with 3 and 5",
			ok, entry.Version, len(entry.Prompts), len(entry.Resources), cacheVersion)
	}
}

// serveLoopback serves h on a loopback port until the test ends and
// returns its base URL, http://127.0.0.1:PORT.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Logf("close: %v", err)
		}
	})
	return "http://" + l.Addr().String()
}

// TestConn_CatalogsAtHand: a connection says its catalogs answer without a
// server only once every one of them is known: not before a listing, not
// with one side still unlisted, and yes from the cache in a new process's
// connection, which must then not start the server to answer.
func TestConn_CatalogsAtHand(t *testing.T) {
	srv := startCatalogServer(t, 0, fullCatalog, server.WithResourceCapabilities(false, true), server.WithPromptCapabilities(true))
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := newTestConn(t, catalogConfig(srv.url), cache)
	if c.CatalogsAtHand() {
		t.Fatal("at hand before anything was listed")
	}
	if _, err := c.Tools(ctx, false); err != nil {
		t.Fatal(err)
	}
	// Listing tools also lists the declared sides (fillSides) and saves
	// the entry; all four are known then.
	for _, list := range []func(context.Context, bool) ([]json.RawMessage, error){c.Resources, c.ResourceTemplates, c.Prompts} {
		if _, err := list(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	if !c.CatalogsAtHand() {
		t.Fatal("not at hand after every catalog was listed")
	}
	lists := srv.count("tools/list")

	warm := newTestConn(t, catalogConfig(srv.url), cache)
	if !warm.CatalogsAtHand() {
		t.Fatal("a connection loaded from the cache: not at hand")
	}
	for _, list := range []func(context.Context, bool) ([]json.RawMessage, error){warm.Tools, warm.Resources, warm.ResourceTemplates, warm.Prompts} {
		if _, err := list(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.count("tools/list"); got != lists {
		t.Errorf("answering from a catalog at hand listed tools again (%d lists, want %d)", got, lists)
	}
	if got := srv.count("initialize"); got != 1 {
		t.Errorf("server initialized %d times, want 1: the warm connection started it", got)
	}
}
