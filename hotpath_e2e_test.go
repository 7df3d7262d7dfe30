//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestServe_HotPathAnswersAsTheGeneralPath calls each fixture tool twice
// through one dispatch: in the plain form the hot path serves, and with
// an empty params._meta, which sends the same call through mcp-go's
// server and the general answer code. Both answers must mean the same.
// The fixture's "mixed" result carries in its _meta an integer a float64
// cannot hold: the hot path passes it through as the server wrote it,
// where the general path decodes it into a float. That is how the test
// knows the hot path served the plain call at all.
func TestServe_HotPathAnswersAsTheGeneralPath(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture(), "--threshold", "2000", "--spill-dir", t.TempDir())
	cases := []struct {
		name string
		args map[string]any
	}{
		{"echo", map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "<b>héllo</b> & more"}}},
		{"qualified name", map[string]any{"action": "call", "tool": "c1/echo", "arguments": map[string]any{"message": "hi"}}},
		{"connection named", map[string]any{"action": "call", "connection": "c1", "tool": "echo", "arguments": map[string]any{"message": "hi"}}},
		{"structured", map[string]any{"action": "call", "tool": "add", "arguments": map[string]any{"a": 2, "b": 40}}},
		{"tool error", map[string]any{"action": "call", "tool": "fail", "arguments": map[string]any{"message": "disk full"}}},
		{"content types", map[string]any{"action": "call", "tool": "mixed"}},
		{"links", map[string]any{"action": "call", "tool": "links"}},
		{"arguments as a string", map[string]any{"action": "call", "tool": "echo", "arguments": `{"message":"hi"}`}},
		{"unknown tool", map[string]any{"action": "call", "tool": "nope"}},
		{"saved to a file", map[string]any{"action": "call", "tool": "large", "arguments": map[string]any{"bytes": 5000}}},
		{"not a call", map[string]any{"action": "list"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hot := callRaw(t, tc, mcp.NewRequestId(int64(42)), map[string]any{"name": "proxy-dispatch", "arguments": c.args})
			general := callRaw(t, tc, mcp.NewRequestId("general"), map[string]any{"name": "proxy-dispatch", "arguments": c.args, "_meta": map[string]any{}})
			if got, want := meaning(t, hot), meaning(t, general); !reflect.DeepEqual(got, want) {
				t.Errorf("answers differ:\n hot path: %s\n general:  %s", hot, general)
			}
		})
	}

	mixed := map[string]any{"action": "call", "tool": "mixed"}
	const serial = `"serial":9007199254740993`
	if hot := callRaw(t, tc, mcp.NewRequestId(int64(43)), map[string]any{"name": "proxy-dispatch", "arguments": mixed}); !bytes.Contains(hot, []byte(serial)) {
		t.Errorf("hot answer %s: want the server's _meta as it sent it, %s", hot, serial)
	}
	// The general path (mcp-go's server reads a request with a _meta;
	// parseHotCall's test holds that) keeps it too.
	if general := callRaw(t, tc, mcp.NewRequestId(int64(44)), map[string]any{"name": "proxy-dispatch", "arguments": mixed, "_meta": map[string]any{}}); !bytes.Contains(general, []byte(serial)) {
		t.Errorf("general answer %s: want the server's _meta as it sent it, %s", general, serial)
	}
}

// TestServe_HotPathIDsAndCancellation checks what the hot path echoes and
// finds by the request's id: ids of every form get their answer, and a
// cancellation naming a call's id ends it.
func TestServe_HotPathIDsAndCancellation(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture())
	echo := map[string]any{"name": "proxy-dispatch", "arguments": map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "hi"}}}
	for _, id := range []mcp.RequestId{
		mcp.NewRequestId(int64(0)), mcp.NewRequestId(int64(-7)), mcp.NewRequestId(int64(1) << 53),
		mcp.NewRequestId("abc"), mcp.NewRequestId("a<b"), mcp.NewRequestId("quote\"d"), mcp.NewRequestId("ünïcode"),
	} {
		// The transport matches the answer to the request by its id: an
		// answer to another id would leave this call waiting.
		result := callRaw(t, tc, id, echo)
		if !strings.Contains(string(result), `"text":"hi"`) {
			t.Errorf("id %v: answer %s", id, result)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	started := time.Now()
	go func() {
		_, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(77)), Method: "tools/call",
			Params: map[string]any{"name": "proxy-dispatch", "arguments": map[string]any{"action": "call", "tool": "hang"}}})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // let the call reach the server
	if err := tc.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: string(mcp.MethodNotificationCancelled), Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": 77}}}}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("cancelled call: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the cancelled call was still running after %s", time.Since(started))
	}
}

// meaning decodes a result for comparison: an absent isError means
// false, and a result file's name (which differs from call to call) is
// written FILE wherever it appears.
func meaning(t *testing.T, result json.RawMessage) any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(result, &v); err != nil {
		t.Fatalf("decode %s: %v", result, err)
	}
	if v["isError"] == false {
		delete(v, "isError")
	}
	text, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return resultFileName.ReplaceAllString(string(text), "FILE")
}

var resultFileName = regexp.MustCompile(`/[^"\\\s]*/[0-9a-f]{32}\.[a-z]+`)

// TestServe_HotPathServesExposedTools is the same comparison for a tool
// listed beside proxy-dispatch (--expose): the hot path answers its plain
// call as mcp-go's handler (CallExposed) would.
func TestServe_HotPathServesExposedTools(t *testing.T) {
	tc := startDispatch(t, nil, "--mcp", fixture(), "--expose", "mixed", "--expose", "echo", "--expose", "fail")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"echo", map[string]any{"message": "hi"}},
		{"fail", map[string]any{"message": "no"}},
		{"mixed", map[string]any{}},
	} {
		// Ids of the test's own, never the client's: mcp-go's stdio
		// transport forgets an answered id only after handing its answer
		// on, so reusing the initialize's id 1 at once could have that
		// late forgetting drop this call's registration, and its answer.
		hot := callRaw(t, tc, mcp.NewRequestId(int64(101)), map[string]any{"name": c.tool, "arguments": c.args})
		general := callRaw(t, tc, mcp.NewRequestId(int64(102)), map[string]any{"name": c.tool, "arguments": c.args, "_meta": map[string]any{}})
		if got, want := meaning(t, hot), meaning(t, general); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: answers differ:\n hot path: %s\n general:  %s", c.tool, hot, general)
		}
		if c.tool == "mixed" && !bytes.Contains(hot, []byte(`"serial":9007199254740993`)) {
			t.Errorf("hot answer %s: want the server's _meta as it sent it", hot)
		}
	}
}
