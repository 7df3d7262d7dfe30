package dispatch

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func boolPtr(b bool) *bool    { return &b }
func int64Ptr(n int64) *int64 { return &n }

func TestParseRequest_Valid(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want Request
	}{
		{name: "list", raw: `{"action":"list"}`, want: Request{Action: "list"}},
		{
			name: "list with everything",
			raw: `{"action":"list","connection":"c1","refresh":true,"includeTools":false,"includeInputSchema":true,
				"includeAnnotations":true,"format":"detail","limit":20,"offset":40}`,
			want: Request{Action: "list", Connection: "c1", Refresh: true, IncludeTools: boolPtr(false), IncludeInputSchema: true,
				IncludeAnnotations: true, Format: "detail", Limit: ptr(20), Offset: 40},
		},
		{name: "search", raw: `{"action":"search","query":"read a file"}`, want: Request{Action: "search", Query: "read a file"}},
		{name: "argumentsFile with spaces and accents", raw: `{"action":"call","tool":"t","argumentsFile":"/tmp/my résumé (1).json"}`,
			want: Request{Action: "call", Tool: "t", ArgumentsFile: "/tmp/my résumé (1).json"}},
		{
			name: "search with everything",
			raw:  `{"action":"search","query":"q","connection":"fs","refresh":true,"includeInputSchema":true,"format":"compact","limit":5}`,
			want: Request{Action: "search", Query: "q", Connection: "fs", Refresh: true, IncludeInputSchema: true, Format: "compact", Limit: ptr(5)},
		},
		{name: "info", raw: `{"action":"info","tool":"read_file"}`, want: Request{Action: "info", Tool: "read_file"}},
		{name: "info on a connection", raw: `{"action":"info","tool":"t","connection":"c2"}`, want: Request{Action: "info", Tool: "t", Connection: "c2"}},
		{
			name: "call",
			raw:  `{"action":"call","tool":"read_file","arguments":{"path":"/tmp/a.txt"}}`,
			want: Request{Action: "call", Tool: "read_file", Arguments: json.RawMessage(`{"path":"/tmp/a.txt"}`)},
		},
		{name: "call without arguments", raw: `{"action":"call","tool":"now"}`, want: Request{Action: "call", Tool: "now"}},
		{
			name: "call with null arguments",
			raw:  `{"action":"call","tool":"now","arguments":null}`,
			want: Request{Action: "call", Tool: "now", Arguments: json.RawMessage(`{}`)},
		},
		{
			name: "call with arguments as a string",
			raw:  `{"action":"call","tool":"t","arguments":"{\"a\": [1, 2]}"}`,
			want: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`{"a": [1, 2]}`)},
		},
		{
			name: "call with arguments as a padded string",
			raw:  `{"action":"call","tool":"t","arguments":"  {\"a\":1}\n"}`,
			want: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`{"a":1}`)},
		},
		{
			name: "call with arguments as an empty string",
			raw:  `{"action":"call","tool":"t","arguments":""}`,
			want: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`{}`)},
		},
		{
			name: "call with arguments as a string of null",
			raw:  `{"action":"call","tool":"t","arguments":"null"}`,
			want: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`{}`)},
		},
		{
			name: "call with everything",
			raw: `{"action":"call","tool":"t","connection":"c1","argumentsFile":"/tmp/r1.json","argumentsPath":"items",
				"argumentsKey":"rows","meta":{"progressToken":"p"},"resultToFile":true,"resultSizeThreshold":0,"timeout":1.5}`,
			want: Request{Action: "call", Tool: "t", Connection: "c1", ArgumentsFile: "/tmp/r1.json", ArgumentsPath: "items",
				ArgumentsKey: "rows", Meta: json.RawMessage(`{"progressToken":"p"}`), ResultToFile: true,
				ResultSizeThreshold: int64Ptr(0), Timeout: ptr(1.5)},
		},
		{
			// As written: decoded into a map, these were float64s, and
			// 1e400 failed the request.
			name: "call with meta numbers a float64 does not hold",
			raw:  `{"action":"call","tool":"t","meta":{"big":123456789012345678901234567890,"f":1.000000000000000000001,"x":[1e400,-0,1.0]}}`,
			want: Request{Action: "call", Tool: "t", Meta: json.RawMessage(`{"big":123456789012345678901234567890,"f":1.000000000000000000001,"x":[1e400,-0,1.0]}`)},
		},
		{
			name: "call with meta null",
			raw:  `{"action":"call","tool":"t","meta":null}`,
			want: Request{Action: "call", Tool: "t"},
		},
		{
			name: "readresult",
			raw:  `{"action":"readresult","resultFile":"/tmp/x/r1.json"}`,
			want: Request{Action: "readresult", ResultFile: "/tmp/x/r1.json"},
		},
		{
			name: "readresult with everything",
			raw: `{"action":"readresult","resultFile":"/r","op":"grep","lines":5,"fromLine":1,"toLine":9,"pattern":"err",
				"context":2,"maxMatches":3,"maxBytes":100,"offset":7,"path":"a.b"}`,
			want: Request{Action: "readresult", ResultFile: "/r", Op: "grep", Lines: ptr(5), FromLine: 1, ToLine: 9, Pattern: "err",
				Context: 2, MaxMatches: ptr(3), MaxBytes: int64Ptr(100), Offset: 7, Path: "a.b"},
		},
		{name: "padded input", raw: "\n  {\"action\" : \"list\"}  \n", want: Request{Action: "list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRequest(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatalf("ParseRequest(%s): %v", tt.raw, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseRequest(%s) =\n  %+v\nwant\n  %+v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestParseRequest_Invalid(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string // substrings of the error text: what is wrong and what to do
		not  []string // substrings that must not appear
	}{
		{name: "maxMatches zero", raw: `{"action":"readresult","resultFile":"/r","op":"grep","pattern":"x","maxMatches":0}`,
			want: []string{`"maxMatches" must be at least 1, got 0`, `Leave it out to show the first 50`}},
		{name: "maxMatches negative", raw: `{"action":"readresult","resultFile":"/r","op":"grep","pattern":"x","maxMatches":-3}`,
			want: []string{`"maxMatches" must be at least 1, got -3`}},
		{name: "empty input", raw: ``, want: []string{"must be a JSON object", `"action"`, "Example:"}},
		{name: "null", raw: `null`, want: []string{"must be a JSON object"}},
		{name: "array", raw: `[{"action":"list"}]`, want: []string{"must be a JSON object"}},
		{name: "string", raw: `"list"`, want: []string{"must be a JSON object"}},
		{name: "number", raw: `42`, want: []string{"must be a JSON object"}},
		{name: "truncated object", raw: `{"action":"list"`, want: []string{"must be a JSON object"}},
		{name: "missing action", raw: `{}`, want: []string{`missing "action"`, "list, search, info, call, readresult"}},
		{name: "missing action with params", raw: `{"tool":"t"}`, want: []string{`missing "action"`, "list, search, info, call, readresult"}},
		{name: "empty action", raw: `{"action":""}`, want: []string{`missing "action"`}},
		{name: "null action", raw: `{"action":null}`, want: []string{`missing "action"`}},
		{name: "action not a string", raw: `{"action":1}`, want: []string{`"action" must be a string`, "list, search, info, call, readresult"}},
		{name: "unknown action", raw: `{"action":"batch"}`, want: []string{`unknown action "batch"`, "list, search, info, call, readresult, run"}},
		{name: "action case matters", raw: `{"action":"List"}`, want: []string{`unknown action "List"`}},
		{name: "pattern on list", raw: `{"action":"list","pattern":"x"}`, want: []string{`"pattern"`, "do not apply to action list", "Parameters for list:"}},
		{name: "tool on list", raw: `{"action":"list","tool":"x"}`, want: []string{`"tool"`, "action list"}},
		{name: "several foreign params sorted", raw: `{"action":"search","query":"q","tool":"t","arguments":{}}`, want: []string{`"arguments", "tool" do not apply to action search`}},
		{name: "query on info", raw: `{"action":"info","tool":"t","query":"q"}`, want: []string{`"query"`, "action info", "Parameters for info: type, tool, uri, prompt, path, connection"}},
		{name: "limit on call", raw: `{"action":"call","tool":"t","limit":1}`, want: []string{`"limit"`, "action call"}},
		{name: "arguments on readresult", raw: `{"action":"readresult","resultFile":"/r","arguments":{}}`, want: []string{`"arguments"`, "action readresult"}},
		{name: "unknown param on list", raw: `{"action":"list","verbose":true}`, want: []string{`unknown parameter(s) "verbose"`, "Parameters for list:"}},
		{
			name: "tool inputs at the top level of call",
			raw:  `{"action":"call","tool":"read_file","path":"/tmp/a.txt","encoding":"utf8"}`,
			want: []string{`parameter(s) "encoding", "path" do not apply to action call`, `inside "arguments"`,
				`{"action":"call","arguments":{"encoding":"utf8","path":"/tmp/a.txt"},"tool":"read_file"}`},
		},
		{
			name: "unknown tool inputs at the top level of call",
			raw:  `{"action":"call","tool":"fetch","url":"https://example.com","max_length":100}`,
			want: []string{`unknown parameter(s) "max_length", "url" for action call`,
				`{"action":"call","arguments":{"max_length":100,"url":"https://example.com"},"tool":"fetch"}`},
		},
		{
			name: "tool inputs named like other actions' parameters",
			raw:  `{"action":"call","tool":"grep","pattern":"TODO","path":"src","limit":5}`,
			want: []string{`"limit", "path", "pattern" do not apply to action call`,
				`"arguments":{"limit":5,"path":"src","pattern":"TODO"}`},
		},
		{
			name: "top-level inputs next to arguments keep both",
			raw:  `{"action":"call","tool":"t","arguments":{"a":1},"b":2}`,
			want: []string{`unknown parameter(s) "b"`, `"arguments":{"a":1,"b":2}`},
		},
		{
			// Regression: null arguments decoded to a nil map, and moving the
			// stray key into it panicked (found by FuzzParseRequest).
			name: "top-level inputs next to null arguments",
			raw:  `{"action":"call","tool":"t","arguments":null,"b":2}`,
			want: []string{`unknown parameter(s) "b"`, `"arguments":{"b":2}`},
		},
		{
			name: "top-level inputs next to arguments given as a string",
			raw:  `{"action":"call","tool":"t","arguments":"{\"a\":1}","b":2}`,
			want: []string{`unknown parameter(s) "b"`, `"arguments":{"a":1,"b":2}`},
		},
		{
			name: "params instead of arguments",
			raw:  `{"action":"call","tool":"add","params":{"a":1}}`,
			want: []string{`unknown parameter "params"`, `"arguments":{"a":1}`},
		},
		{
			name: "name instead of tool",
			raw:  `{"action":"call","name":"echo","arguments":{"message":"hi"}}`,
			want: []string{`unknown parameter "name" for action call; the tool's name goes in "tool"`, `{"action":"call","arguments":{"message":"hi"},"tool":"echo"}`},
			not:  []string{`"TOOL"`, `"name":"echo"`},
		},
		{
			name: "toolName instead of tool",
			raw:  `{"action":"call","toolName":"echo"}`,
			want: []string{`unknown parameter "toolName"`, `"tool":"echo"`},
			not:  []string{`"TOOL"`},
		},
		{
			name: "tool_name instead of tool",
			raw:  `{"action":"call","tool_name":"echo"}`,
			want: []string{`unknown parameter "tool_name"`, `"tool":"echo"`},
		},
		{
			name: "name instead of tool, with inputs at the top level",
			raw:  `{"action":"call","name":"echo","message":"hi"}`,
			want: []string{`the tool's name goes in "tool"; also unknown parameter(s) "message"`, `{"action":"call","arguments":{"message":"hi"},"tool":"echo"}`},
			not:  []string{`"TOOL"`},
		},
		{
			name: "name instead of tool, with args instead of arguments",
			raw:  `{"action":"call","name":"add","args":{"a":1}}`,
			want: []string{`the tool's name goes in "tool"`, `Use: {"action":"call","args":{"a":1},"tool":"add"}`},
		},
		{
			name: "name that is not a string is a tool input",
			raw:  `{"action":"call","name":{"first":"a"}}`,
			want: []string{`"arguments":{"name":{"first":"a"}}`, `"tool":"TOOL"`},
		},
		{name: "arguments an array", raw: `{"action":"call","tool":"t","arguments":[1,2]}`, want: []string{`"arguments" must be a JSON object`, "Example:"}},
		{name: "arguments a number", raw: `{"action":"call","tool":"t","arguments":3}`, want: []string{`"arguments" must be a JSON object`}},
		{name: "arguments true", raw: `{"action":"call","tool":"t","arguments":true}`, want: []string{`"arguments" must be a JSON object`}},
		{name: "arguments a string of an array", raw: `{"action":"call","tool":"t","arguments":"[1]"}`, want: []string{`"arguments" must be a JSON object`}},
		{name: "arguments a string of invalid JSON", raw: `{"action":"call","tool":"t","arguments":"{a: 1}"}`, want: []string{`"arguments" is a string that does not hold valid JSON`}},
		{name: "arguments a plain string", raw: `{"action":"call","tool":"t","arguments":"path=/tmp"}`, want: []string{`"arguments" is a string that does not hold valid JSON`}},
		{name: "search without query", raw: `{"action":"search"}`, want: []string{`search needs a "query"`, `{"action":"search","query":`}},
		{name: "search with blank query", raw: `{"action":"search","query":"  \t"}`, want: []string{`search needs a "query"`}},
		{name: "info without tool", raw: `{"action":"info"}`, want: []string{`info needs a "tool"`, `{"action":"info","tool":`}},
		{name: "call without tool", raw: `{"action":"call","arguments":{}}`, want: []string{`call needs a "tool"`, `{"action":"call","tool":`}},
		{name: "negative limit", raw: `{"action":"list","limit":-1}`, want: []string{`"limit" must be at least 1, got -1`}},
		{name: "negative search limit", raw: `{"action":"search","query":"q","limit":-5}`, want: []string{`"limit" must be at least 1, got -5`}},
		{name: "negative offset", raw: `{"action":"list","offset":-10}`, want: []string{`"offset" must not be negative`}},
		{name: "negative readresult offset", raw: `{"action":"readresult","resultFile":"/r","offset":-1}`, want: []string{`"offset" must not be negative`}},
		{name: "negative timeout", raw: `{"action":"call","tool":"t","timeout":-1}`, want: []string{`"timeout" must be more than 0 seconds, got -1`, `"timeout": 120`}},
		{name: "timeout longer than a time.Duration", raw: `{"action":"call","tool":"t","timeout":1e11}`, want: []string{`"timeout" of 100000000000 seconds is too long`, "at most 9223372036", `"timeout": 120`}},
		{name: "timeout just past the longest, in its digits", raw: `{"action":"call","tool":"t","timeout":9223372036.5}`, want: []string{`"timeout" of 9223372036.5 seconds is too long: at most 9223372036`}},
		{name: "timeout far past the longest", raw: `{"action":"call","tool":"t","timeout":1e300}`, want: []string{`"timeout" of 1e+300 seconds is too long`}},
		{name: "negative threshold", raw: `{"action":"call","tool":"t","resultSizeThreshold":-1}`, want: []string{`"resultSizeThreshold" must not be negative`, "0 to never"}},
		{name: "bad format", raw: `{"action":"list","format":"json"}`, want: []string{`unknown format "json"`, `"compact"`, `"detail"`}},
		{name: "argumentsPath without file", raw: `{"action":"call","tool":"t","argumentsPath":"items"}`, want: []string{`need an "argumentsFile"`, `"argumentsFile":`}},
		{name: "argumentsKey without file", raw: `{"action":"call","tool":"t","argumentsKey":"rows"}`, want: []string{`need an "argumentsFile"`}},
		{name: "readresult without file", raw: `{"action":"readresult","op":"head"}`, want: []string{`readresult needs a "resultFile"`, `"resultFile":`}},
		{name: "limit a string", raw: `{"action":"list","limit":"ten"}`, want: []string{`"limit" must be of type integer, not string`}},
		{name: "limit a fraction", raw: `{"action":"list","limit":2.5}`, want: []string{`"limit" must be of type integer`}},
		{name: "offset a string", raw: `{"action":"list","offset":"5"}`, want: []string{`"offset" must be of type integer, not string`}},
		{name: "refresh a string", raw: `{"action":"list","refresh":"yes"}`, want: []string{`"refresh" must be of type boolean, not string`}},
		{name: "includeTools a string", raw: `{"action":"list","includeTools":"yes"}`, want: []string{`"includeTools" must be of type boolean, not string`}},
		{name: "query a number", raw: `{"action":"search","query":42}`, want: []string{`"query" must be of type string, not number`}},
		{name: "tool an object", raw: `{"action":"info","tool":{"name":"x"}}`, want: []string{`"tool" must be of type string, not object`}},
		{name: "timeout a string", raw: `{"action":"call","tool":"t","timeout":"30s"}`, want: []string{`"timeout" must be of type number, not string`, `Write it as "timeout": 120 (seconds)`}, not: []string{"read_file"}},
		{name: "run timeout a string", raw: `{"action":"run","steps":[],"timeout":"5"}`, want: []string{`Write it as "timeout": 120 (seconds)`}, not: []string{"read_file"}},
		{name: "limit a string says how to write it", raw: `{"action":"list","limit":"ten"}`, want: []string{`Write it as "limit": 20`}},
		{name: "threshold a string", raw: `{"action":"call","tool":"t","resultSizeThreshold":"1MB"}`, want: []string{`"resultSizeThreshold" must be of type integer, not string`}},
		{name: "meta an array", raw: `{"action":"call","tool":"t","meta":[1]}`, want: []string{`"meta" must be of type object, not array`}},
		{name: "meta a string", raw: `{"action":"call","tool":"t","meta":"{}"}`, want: []string{`"meta" must be of type object, not string`, `Write it as "meta": {...}`}},
		{name: "meta a number", raw: `{"action":"call","tool":"t","meta":1e400}`, want: []string{`"meta" must be of type object, not number`}},
		{name: "argumentsFile empty", raw: `{"action":"call","tool":"t","argumentsFile":""}`,
			want: []string{"argumentsFile is empty: give a path or leave it out"}},
		{name: "argumentsFile NUL", raw: `{"action":"call","tool":"t","argumentsFile":"\u0000x"}`,
			want: []string{`argumentsFile "\x00x" holds a control character (U+0000 at byte 0)`, "Give the path of a file"}, not: []string{"invalid argument"}},
		{name: "argumentsFile newline", raw: `{"action":"call","tool":"t","argumentsFile":"/tmp/a\nb.json"}`,
			want: []string{`holds a control character (U+000A at byte 6)`}},
		{name: "argumentsFile ESC", raw: `{"action":"call","tool":"t","argumentsFile":"r\u001b[31m.json"}`,
			want: []string{`holds a control character (U+001B at byte 1)`}},
		{name: "argumentsFile C1", raw: `{"action":"call","tool":"t","argumentsFile":"r\u009b.json"}`,
			want: []string{`holds a control character (U+009B at byte 1)`}},
		{name: "lines a string", raw: `{"action":"readresult","resultFile":"/r","lines":"all"}`, want: []string{`"lines" must be of type integer, not string`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseRequest(json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("ParseRequest(%s) = %+v, want an error", tt.raw, req)
			}
			var usage *UsageError
			if !errors.As(err, &usage) || !IsUsage(err) {
				t.Fatalf("ParseRequest(%s) error %T %q is not a *UsageError", tt.raw, err, err)
			}
			if usage.Hint == "" {
				t.Errorf("ParseRequest(%s) error %q has no hint of what to do", tt.raw, err)
			}
			msg := err.Error()
			for _, want := range tt.want {
				if !strings.Contains(msg, want) {
					t.Errorf("ParseRequest(%s) error =\n  %s\nwant it to contain\n  %s", tt.raw, msg, want)
				}
			}
			for _, not := range tt.not {
				if strings.Contains(msg, not) {
					t.Errorf("ParseRequest(%s) error = %s, must not contain %s", tt.raw, msg, not)
				}
			}
		})
	}
}

func TestUsageError_Error(t *testing.T) {
	tests := []struct {
		err  UsageError
		want string
	}{
		{err: UsageError{Msg: "bad thing"}, want: "bad thing"},
		{err: UsageError{Msg: "bad thing", Hint: "Do this"}, want: "bad thing. Do this"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRequest_Check(t *testing.T) {
	// The CLI builds requests in code; Check must hold them to the same rules.
	tests := []struct {
		name    string
		req     Request
		wantErr string
		wantArg string // the normalized arguments, when no error
	}{
		{name: "list", req: Request{Action: "list"}},
		{name: "call with object", req: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(` {"a":1} `)}, wantArg: `{"a":1}`},
		{name: "call with string", req: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`"{\"a\":1}"`)}, wantArg: `{"a":1}`},
		{name: "call with invalid object", req: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`{"a":`)}, wantErr: `"arguments" is not valid JSON`},
		{name: "call with invalid string", req: Request{Action: "call", Tool: "t", Arguments: json.RawMessage(`"{\"a`)}, wantErr: `"arguments" is not valid JSON`},
		{name: "call without tool", req: Request{Action: "call"}, wantErr: `call needs a "tool"`},
		{name: "call with invalid meta", req: Request{Action: "call", Tool: "t", Meta: json.RawMessage(`{"a":`)}, wantErr: `"meta" is not valid JSON`},
		{name: "call with meta not an object", req: Request{Action: "call", Tool: "t", Meta: json.RawMessage(`true`)}, wantErr: `"meta" must be of type object, not bool`},
		{name: "zero threshold allowed", req: Request{Action: "call", Tool: "t", ResultSizeThreshold: int64Ptr(0)}},
		{name: "negative threshold", req: Request{Action: "call", Tool: "t", ResultSizeThreshold: int64Ptr(-2)}, wantErr: "resultSizeThreshold"},
		{name: "argumentsPath with file", req: Request{Action: "call", Tool: "t", ArgumentsFile: "/f", ArgumentsPath: "a"}},
		{name: "negative limit", req: Request{Action: "search", Query: "q", Limit: ptr(-1)}, wantErr: `"limit"`},
		{name: "bad format", req: Request{Action: "search", Query: "q", Format: "Detail"}, wantErr: `unknown format "Detail"`},
		{name: "maxMatches one", req: Request{Action: "readresult", ResultFile: "/r", Op: "grep", Pattern: "x", MaxMatches: ptr(1)}},
		{name: "maxMatches zero", req: Request{Action: "readresult", ResultFile: "/r", Op: "grep", Pattern: "x", MaxMatches: ptr(0)}, wantErr: `"maxMatches" must be at least 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			err := req.Check()
			if tt.wantErr != "" {
				if !IsUsage(err) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Check() = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check(): %v", err)
			}
			if tt.wantArg != "" && string(req.Arguments) != tt.wantArg {
				t.Errorf("Arguments = %s, want %s", req.Arguments, tt.wantArg)
			}
		})
	}
}

// TestActionParams_InSchema guards that every action's parameters are
// fields of Request, so that none is accepted and then lost in decoding.
func TestActionParams_InSchema(t *testing.T) {
	fields := map[string]bool{}
	typ := reflect.TypeFor[Request]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	for action, params := range actionParams {
		if _, ok := examples[action]; !ok {
			t.Errorf("action %s has no example", action)
		}
		for _, p := range params {
			if !fields[p] {
				t.Errorf("action %s accepts %q, which is not a Request field", action, p)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

// Zero and negative counts and time limits are refused alike, each naming
// the allowed range and the default that leaving the parameter out gives;
// zero used to mean the default for some of them and not for others.
func TestParseRequest_zeroIsNotDefault(t *testing.T) {
	tests := []struct {
		raw   string
		wants []string
	}{
		{`{"action":"list","limit":0}`, []string{`"limit" must be at least 1, got 0`, "Use 1 to 500, or leave it out for 50"}},
		{`{"action":"list","limit":-3}`, []string{`"limit" must be at least 1, got -3`, "Use 1 to 500, or leave it out for 50"}},
		{`{"action":"list","limit":501}`, []string{`"limit" of list may be at most 500, got 501`, "Use 1 to 500"}},
		{`{"action":"search","query":"q","limit":51}`, []string{`"limit" of search may be at most 50, got 51`, "Use 1 to 50"}},
		{`{"action":"search","query":"q","limit":0}`, []string{`"limit" must be at least 1, got 0`, "Use 1 to 50, or leave it out for 10"}},
		{`{"action":"call","tool":"t","timeout":0}`, []string{`"timeout" must be more than 0 seconds, got 0`, "more than 0 and at most 9223372036", "leave it out for the server's"}},
		{`{"action":"call","tool":"t","timeout":-5}`, []string{`"timeout" must be more than 0 seconds, got -5`, "leave it out"}},
		{`{"action":"readresult","resultFile":"/r","op":"head","lines":0}`, []string{`"lines" must be at least 1, got 0`, "Leave it out for 50 lines; at most 200"}},
		{`{"action":"readresult","resultFile":"/r","op":"tail","lines":-5}`, []string{`"lines" must be at least 1, got -5`, "Leave it out for 50 lines"}},
		{`{"action":"readresult","resultFile":"/r","op":"read","maxBytes":0}`, []string{`"maxBytes" must be at least 1, got 0`, "Leave it out for 16384 bytes; at most 32768"}},
		{`{"action":"readresult","resultFile":"/r","op":"read","maxBytes":-1}`, []string{`"maxBytes" must be at least 1, got -1`}},
		{`{"action":"readresult","resultFile":"/r","op":"grep","pattern":"x","maxMatches":0}`, []string{`"maxMatches" must be at least 1, got 0`, "Leave it out"}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			_, err := ParseRequest(json.RawMessage(tt.raw))
			if !IsUsage(err) {
				t.Fatalf("ParseRequest = %v, want a usage error", err)
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// The smallest allowed values pass.
	for _, raw := range []string{
		`{"action":"list","limit":1}`, `{"action":"search","query":"q","limit":1}`, `{"action":"call","tool":"t","timeout":0.001}`,
		`{"action":"readresult","resultFile":"/r","op":"head","lines":1}`, `{"action":"readresult","resultFile":"/r","op":"read","maxBytes":1}`,
	} {
		if _, err := ParseRequest(json.RawMessage(raw)); err != nil {
			t.Errorf("ParseRequest(%s): %v", raw, err)
		}
	}
}
