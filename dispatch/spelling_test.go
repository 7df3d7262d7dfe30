package dispatch

import (
	"encoding/json"
	"strings"
	"testing"
)

// The Proxy Extension's spelling (Magg's proxy tool) parses into the same
// request as dispatch's own, and says it was used.
func TestParseRequest_ProxySpelling(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		want       Request
		proxyShape bool
	}{
		{name: "path names the tool", raw: `{"action":"info","type":"tool","path":"echo"}`,
			want: Request{Action: "info", Type: "tool", Tool: "echo"}, proxyShape: true},
		{name: "path and args on call", raw: `{"action":"call","type":"tool","path":"add","args":{"a":1}}`,
			want: Request{Action: "call", Type: "tool", Tool: "add", Arguments: json.RawMessage(`{"a":1}`)}, proxyShape: true},
		{name: "args as a JSON string", raw: `{"action":"call","path":"add","args":"{\"a\":1}"}`,
			want: Request{Action: "call", Tool: "add", Arguments: json.RawMessage(`{"a":1}`)}, proxyShape: true},
		{name: "path without type is a tool", raw: `{"action":"call","path":"/tmp/a.txt"}`,
			want: Request{Action: "call", Tool: "/tmp/a.txt"}, proxyShape: true},
		{name: "path names a resource", raw: `{"action":"call","type":"resource","path":"demo://a/1"}`,
			want: Request{Action: "call", Type: "resource", URI: "demo://a/1"}, proxyShape: true},
		{name: "path names a prompt", raw: `{"action":"info","type":"prompt","path":"greet"}`,
			want: Request{Action: "info", Type: "prompt", Prompt: "greet"}, proxyShape: true},
		{name: "path equal to tool", raw: `{"action":"info","tool":"echo","path":"echo"}`,
			want: Request{Action: "info", Tool: "echo"}, proxyShape: true},
		{name: "filter_server", raw: `{"action":"list","type":"tool","filter_server":"c1"}`,
			want: Request{Action: "list", Type: "tool", FilterServer: ptr("c1")}, proxyShape: true},
		{name: "empty filter_server", raw: `{"action":"list","filter_server":""}`,
			want: Request{Action: "list", FilterServer: ptr("")}, proxyShape: true},
		{name: "args null", raw: `{"action":"call","tool":"t","args":null,"arguments":{"a":1}}`,
			want: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`{"a":1}`)}},
		{name: "readresult path stays the gjson path", raw: `{"action":"readresult","resultFile":"/r","op":"query","path":"a.b"}`,
			want: Request{Action: "readresult", ResultFile: "/r", Op: "query", Path: "a.b"}},
		{name: "search type", raw: `{"action":"search","query":"q","type":"prompt"}`,
			want: Request{Action: "search", Query: "q", Type: "prompt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRequest(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatalf("ParseRequest(%s) = %v", tt.raw, err)
			}
			if got.ProxyShape != tt.proxyShape {
				t.Errorf("ProxyShape = %v, want %v", got.ProxyShape, tt.proxyShape)
			}
			got.ProxyShape, tt.want.ProxyShape = false, false
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tt.want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("ParseRequest(%s)\n got %s\nwant %s", tt.raw, gotJSON, wantJSON)
			}
			// Check again (as Do does) changes nothing.
			again := got
			if err := again.Check(); err != nil {
				t.Fatalf("second Check: %v", err)
			}
			againJSON, _ := json.Marshal(again)
			if string(againJSON) != string(gotJSON) {
				t.Errorf("second Check changed the request:\n%s\n%s", gotJSON, againJSON)
			}
		})
	}
}

func TestParseRequest_ProxySpellingConflicts(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{name: "args and arguments", raw: `{"action":"call","tool":"t","args":{"a":1},"arguments":{"a":2}}`,
			want: []string{`both "arguments" and "args" given`, `Give the inputs once`}},
		{name: "path and uri differ", raw: `{"action":"call","type":"resource","uri":"a://1","path":"a://2"}`,
			want: []string{`"path" "a://2" and "uri" "a://1" differ`, `"path" is the Proxy Extension's name for "uri"`}},
		{name: "path and prompt differ", raw: `{"action":"info","type":"prompt","prompt":"a","path":"b"}`,
			want: []string{`"path" "b" and "prompt" "a" differ`}},
		{name: "path and tool differ on info", raw: `{"action":"info","tool":"a","path":"b"}`,
			want: []string{`"path" "b" and "tool" "a" differ`}},
		{name: "path beside tool on call is a tool input", raw: `{"action":"call","tool":"read_file","path":"/tmp/a"}`,
			want: []string{`"path" on call names the tool`, `"arguments":{"path":"/tmp/a"}`}},
		{name: "args an array", raw: `{"action":"call","path":"t","args":[1]}`,
			want: []string{`"args" (the Proxy Extension's name for "arguments") must be a JSON object`}},
		{name: "unknown type", raw: `{"action":"list","type":"tools"}`,
			want: []string{`unknown type "tools"`, `"tool" (the default), "resource" or "prompt"`}},
		{name: "uri on a tool request", raw: `{"action":"call","type":"tool","uri":"a://1"}`,
			want: []string{`call needs a "tool"`, `Add "type":"resource" to read a resource by "uri"`}},
		{name: "tool and uri", raw: `{"action":"info","tool":"t","uri":"a://1"}`,
			want: []string{`takes "tool" only, not "uri"`}},
		{name: "tool on a prompt request", raw: `{"action":"call","type":"prompt","tool":"t","prompt":"p"}`,
			want: []string{`call type=prompt takes a "prompt", not "tool"`}},
		{name: "resource without uri", raw: `{"action":"call","type":"resource"}`,
			want: []string{`needs a "uri"`}},
		{name: "path on list", raw: `{"action":"list","path":"x"}`,
			want: []string{`"path" do not apply to action list`}},
		{name: "args on info", raw: `{"action":"info","path":"x","args":{}}`,
			want: []string{`"args" do not apply to action info`}},
		{name: "filter_server on search", raw: `{"action":"search","query":"q","filter_server":"c"}`,
			want: []string{`"filter_server" do not apply to action search`}},
		{name: "filter_server not a string", raw: `{"action":"list","filter_server":3}`,
			want: []string{`"filter_server" must be of type string`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRequest(json.RawMessage(tt.raw))
			if !IsUsage(err) {
				t.Fatalf("ParseRequest(%s) = %v, want a usage error", tt.raw, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestRequest_ProxyShaped(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{`{"action":"list"}`, false},
		{`{"action":"list","type":"tool"}`, true},
		{`{"action":"list","type":"resource","limit":5,"offset":5}`, true},
		{`{"action":"list","type":"tool","connection":"c1"}`, false},
		{`{"action":"list","type":"tool","format":"compact"}`, false},
		{`{"action":"list","filter_server":"c1","format":"detail"}`, false},
		{`{"action":"list","filter_server":"c1"}`, true},
		{`{"action":"info","tool":"echo"}`, false},
		{`{"action":"info","type":"tool","tool":"echo"}`, false},
		{`{"action":"info","path":"echo"}`, true},
		{`{"action":"call","path":"echo"}`, false},
		{`{"action":"search","query":"q","type":"tool"}`, false},
	}
	for _, tt := range tests {
		req, err := ParseRequest(json.RawMessage(tt.raw))
		if err != nil {
			t.Fatalf("ParseRequest(%s) = %v", tt.raw, err)
		}
		if got := req.ProxyShaped(); got != tt.want {
			t.Errorf("ProxyShaped(%s) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
