package connections

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hostileServer is a streamable HTTP MCP server written by hand, so that
// it can answer what no SDK would send. answer gets each request's method
// and params and returns its result (or an *RPCError); initialize is
// answered with caps as the server's capabilities.
func hostileServer(t *testing.T, caps string, answer func(method string, params json.RawMessage) (any, error)) string {
	t.Helper()
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if len(req.ID) == 0 { // a notification
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any
		var err error
		if req.Method == "initialize" {
			result = json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"hostile","version":"1"}}`)
		} else {
			result, err = answer(req.Method, req.Params)
		}
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		var rpc *RPCError
		if errors.As(err, &rpc) {
			resp["error"] = map[string]any{"code": rpc.Code, "message": rpc.Message}
		} else {
			resp["result"] = result
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(resp); err != nil {
			t.Logf("answer: %v", err)
		}
	})
	return serveLoopback(t, handler) + "/mcp"
}

func TestConn_HostileSideCatalogs(t *testing.T) {
	const caps = `{"tools":{},"resources":{},"prompts":{},"completions":{}}`
	url := hostileServer(t, caps, func(method string, params json.RawMessage) (any, error) {
		switch method {
		case "tools/list":
			return map[string]any{"tools": []any{}}, nil
		case "resources/list":
			return map[string]any{"resources": "not a list"}, nil
		case "resources/templates/list":
			return nil, &RPCError{Code: -32601, Message: "Method not found"}
		case "prompts/list":
			// The same cursor for ever.
			return map[string]any{"prompts": []any{map[string]any{"name": "p"}}, "nextCursor": "again"}, nil
		case "completion/complete":
			if strings.Contains(string(params), `"hang"`) {
				time.Sleep(5 * time.Second)
			}
			values := make([]string, 500)
			for i := range values {
				values[i] = strings.Repeat("v", 1000)
			}
			return map[string]any{"completion": map[string]any{"values": values}}, nil
		}
		return nil, &RPCError{Code: -32601, Message: "Method not found"}
	})
	c := newTestConn(t, ServerConfig{Transport: TransportHTTP, URL: url}, nil)
	ctx := context.Background()

	if _, err := c.Resources(ctx, false); err == nil || !strings.Contains(err.Error(), `invalid resources/list result: "resources"`) {
		t.Errorf("resources that are not a list: %v", err)
	}
	templates, err := c.ResourceTemplates(ctx, false)
	if err != nil || len(templates) != 0 {
		t.Errorf("templates/list not found: %v, %v; want an empty list", templates, err)
	}
	if _, err := c.Prompts(ctx, false); err == nil || !strings.Contains(err.Error(), `list prompts: server repeated cursor "again"`) {
		t.Errorf("a cursor repeated for ever: %v", err)
	}

	got, err := c.Complete(ctx, CompleteRequest{URITemplate: "x://{a}", Argument: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Values) != MaxCompletionValues || !got.HasMore {
		t.Errorf("500 completions: kept %d (more: %v), want %d and more", len(got.Values), got.HasMore, MaxCompletionValues)
	}
	if v := got.Values[0]; len(v) > MaxCompletionValueBytes+len("…") || !strings.HasSuffix(v, "…") {
		t.Errorf("a 1000-byte completion kept as %d bytes, want it cut at %d", len(v), MaxCompletionValueBytes)
	}
	_, err = c.Complete(ctx, CompleteRequest{Prompt: "p", Argument: "hang", Timeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrCallTimeout) {
		t.Errorf("a completion that never answers: %v, want ErrCallTimeout", err)
	}
}

func TestConn_CompleteNeedsTheCapability(t *testing.T) {
	url := hostileServer(t, `{"tools":{},"resources":{}}`, func(string, json.RawMessage) (any, error) {
		t.Error("a server without completions was asked for some")
		return nil, &RPCError{Code: -32601, Message: "Method not found"}
	})
	c := newTestConn(t, ServerConfig{Transport: TransportHTTP, URL: url}, nil)
	_, err := c.Complete(context.Background(), CompleteRequest{URITemplate: "x://{a}", Argument: "a"})
	if err == nil || !strings.Contains(err.Error(), "does not offer completions") {
		t.Errorf("Complete without the capability: %v", err)
	}
}
