package connections

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// spreadServer is a streamable HTTP MCP server whose tool spread answers
// on an SSE stream, its answer's data spread over one data line per
// byte of a result holding an array of n zeros ({"n": n}).
func startSpreadServer(t testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments struct{ N int } `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			http.Error(w, "bad message", http.StatusBadRequest)
			return
		}
		w.Header().Set("Mcp-Session-Id", "spread-session")
		result := func(result string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
		}
		switch msg.Method {
		case "initialize":
			result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"spread","version":"1"}}`)
		case "tools/list":
			result(`{"tools":[{"name":"spread","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			bw := bufio.NewWriter(w)
			fmt.Fprintf(bw, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\n", msg.ID)
			fmt.Fprint(bw, "data:\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"zeros\"}],\"structuredContent\":{\"v\":\n")
			bw.WriteString("data:[\n")
			for i := range msg.Params.Arguments.N {
				if i > 0 {
					bw.WriteString("data:,\n")
				}
				bw.WriteString("data:0\n")
			}
			bw.WriteString("data:]}}}\n\n")
			bw.Flush()
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// manyDataLines is how many zeros the spread tool is asked for in the
// tests: about 200,000 one-byte data lines, which cost mcp-go 3.4 s of
// CPU before their event was given it on one line (a million never
// ended).
const manyDataLines = 100_000

// An answer spread over 200,000 one-byte data lines decodes, through
// mcp-go's client, to the value its lines joined make.
func TestConn_HTTPAnswerOfManyDataLines(t *testing.T) {
	c := testConn(t, ServerConfig{Name: "spread", Transport: TransportHTTP, URL: startSpreadServer(t)})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	raw, err := c.Call(ctx, CallRequest{Tool: "spread", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, manyDataLines))})
	if err != nil {
		t.Fatal(err)
	}
	var result struct {
		StructuredContent struct{ V []int } `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		t.Fatalf("result %.200s: %v", raw, err)
	}
	if len(result.StructuredContent.V) != manyDataLines {
		t.Errorf("%d zeros, want %d (result %.200s)", len(result.StructuredContent.V), manyDataLines, raw)
	}
}

// The work mcp-go does for an event grows with its data lines times its
// data: what it reads of an answer of many data lines is one data line.
func TestHTTPClient_GivesMCPGoOneDataLinePerEvent(t *testing.T) {
	client, _ := newHTTPClient(nil, httpLimits{streamable: true}, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"spread","arguments":{"n":1000}}}`
	resp, err := client.Post(startSpreadServer(t), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stream, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(stream, []byte("data:")); lines != 1 {
		t.Errorf("mcp-go read %d data lines, want 1:\n%.300s", lines, stream)
	}
}

// Each event's data lines reach mcp-go as one line, joined by tabs; every
// other line passes on as it came, a field mcp-go reads only once whole.
func TestSSEDataJoinBody(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"one data line", "event: message\ndata: {\"id\":1}\n\n", "event: message\ndata: {\"id\":1}\n\n"},
		{"no space", "data:{\"id\":1}\n\n", "data: {\"id\":1}\n\n"},
		{"lines joined", "data: {\"id\":\ndata:  1,\r\ndata:\ndata: \"x\":2}\r\n\r\n", "data: {\"id\":\t 1,\t\t\"x\":2}\n\r\n"},
		{"leading empty lines", "data:\ndata: \r\ndata: 1\n\n", "data: 1\n\n"},
		{"only empty lines", "data:\ndata:\n\n", "\n"},
		{"other lines in between", "data: [1,\nid: 7\n: comment\nevent: message\ndata: 2]\n\n", "id: 7\n: comment\nevent: message\ndata: [1,\t2]\n\n"},
		{"a line starting with a CR", "data: 1\n\rdata: 2\n\n", "\rdata: 2\ndata: 1\n\n"},
		{"field names cut short", "dat\nretry\nid:1\n\n", "dat\nretry\nid:1\n\n"},
		{"two events", "data: a\ndata: b\n\ndata: c\n\n", "data: a\tb\n\ndata: c\n\n"},
		{"the stream ends in an event", "data: a\ndata: b\n", "data: a\tb\n"},
		{"a data line cut off", "data: a\ndata: b", "data: a\n"},
		{"a field cut off", "data: a\nevent: x", "data: a\n"},
		{"a comment cut off", "data: a\n: x", ": x\ndata: a\n"},
		{"a data line with a tab and a CR", "data: a\tb\rc\r\r\n\n", "data: a\tb\rc\n\n"},
		{"both request and answer", "data: {\"method\":\"ping\",\ndata:\"id\":1,\"result\":{}}\n\ndata: {\"\\u006dethod\":\"x\",\"error\":{}}\n\n", "\n\n"},
		{"a method in the result", "data: {\"id\":1,\"result\":{\"method\":1}}\n\n", "data: {\"id\":1,\"result\":{\"method\":1}}\n\n"},
	} {
		for _, chunk := range []int{1, 2, 7, len(tc.in)} {
			body := newSSEDataJoinBody(io.NopCloser(&chunkReader{data: []byte(tc.in), chunk: chunk}))
			got, err := io.ReadAll(body)
			if err != nil || string(got) != tc.want {
				t.Errorf("%s, read %d bytes at a time: got (%v) %q, want %q", tc.name, chunk, err, got, tc.want)
			}
		}
	}
}

// Joined with tabs, an event's data decodes as it did with the line
// breaks mcp-go puts between its lines, or fails as it did: a line break
// within a string or a number is as invalid as a tab.
func TestSSEDataJoin_SameJSON(t *testing.T) {
	for _, lines := range [][]string{
		{`{"a":`, `[1,`, ``, `2]}`},
		{`{"a":"x`, `y"}`},
		{`{"a":1`, `2}`},
		{`{"a":tr`, `ue}`},
		{`{"a":"x"}`},
	} {
		var split, joined any
		splitErr := json.Unmarshal([]byte(strings.Join(lines, "\n")), &split)
		joinedErr := json.Unmarshal([]byte(strings.Join(lines, "\t")), &joined)
		if (splitErr == nil) != (joinedErr == nil) || fmt.Sprint(split) != fmt.Sprint(joined) {
			t.Errorf("%q: %v (%v) joined by line breaks, %v (%v) by tabs", lines, split, splitErr, joined, joinedErr)
		}
	}
}

// BenchmarkSSEManyDataLines: one answer of n one-byte data lines read by
// mcp-go's streamable HTTP client, straight from the server (as before)
// and through dispatch's HTTP client.
func BenchmarkSSEManyDataLines(b *testing.B) {
	for _, n := range []int{5_000, 20_000} {
		url := startSpreadServer(b)
		dispatchClient, _ := newHTTPClient(nil, httpLimits{streamable: true}, nil)
		for _, tc := range []struct {
			name   string
			client *http.Client
		}{{"mcp-go alone", http.DefaultClient}, {"through dispatch", dispatchClient}} {
			b.Run(fmt.Sprintf("%d zeros/%s", n, tc.name), func(b *testing.B) {
				tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(tc.client))
				if err != nil {
					b.Fatal(err)
				}
				if err := tr.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1)), Method: "tools/call",
					Params: json.RawMessage(fmt.Sprintf(`{"name":"spread","arguments":{"n":%d}}`, n))}
				for b.Loop() {
					resp, err := tr.SendRequest(context.Background(), req)
					if err != nil || resp.Error != nil {
						b.Fatal(err, resp)
					}
				}
			})
		}
	}
}
