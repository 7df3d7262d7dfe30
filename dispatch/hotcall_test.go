package dispatch

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestAppendPassedThrough_AsTheGeneralPath holds the byte-level splice to
// what the general path (inlineCallResult, stampProxy, encoding/json)
// makes of the same server result, and checks which results it leaves to
// that path.
func TestAppendPassedThrough_AsTheGeneralPath(t *testing.T) {
	cases := []struct {
		name    string
		raw     string
		spliced bool
	}{
		{"text", `{"content":[{"type":"text","text":"hello"}]}`, true},
		{"html and unicode kept", `{"content":[{"type":"text","text":"<b>h\u00e9llo</b> & \u2028"}]}`, true},
		{"empty content", `{"content":[]}`, true},
		{"isError", `{"content":[{"type":"text","text":"no"}],"isError":true}`, true},
		{"isError false", `{"isError":false,"content":[{"type":"text","text":"ok"}]}`, true},
		{"structured", `{"content":[{"type":"text","text":"{\"sum\":42}"}],"structuredContent":{"sum":42}}`, true},
		{"server meta", `{"_meta":{"trace":"x","n":1.5,"progressToken":"p"},"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`, true},
		{"empty server meta", `{"content":[],"_meta":{}}`, true},
		{"spaces", `{ "content" : [ {"type":"text", "text":"a"} ] , "_meta" : { "k" : [1, 2] } }`, true},
		{"unknown item type", `{"content":[{"type":"future","x":{"y":[1,null,true]}}]}`, true},

		{"unknown member", `{"content":[],"extra":1}`, false},
		{"input required", `{"resultType":"input_required","content":[]}`, false},
		{"no content", `{"structuredContent":{"a":1}}`, false},
		{"content not an array", `{"content":{"type":"text"}}`, false},
		{"null structured", `{"content":[],"structuredContent":null}`, false},
		{"repeated member", `{"content":[],"content":[{"type":"text","text":"b"}]}`, false},
		{"isError not a boolean", `{"content":[],"isError":"yes"}`, false},
		{"meta not an object", `{"content":[],"_meta":"x"}`, false},
		{"meta with our key", `{"content":[],"_meta":{"dispatch":1}}`, false},
		{"meta with a proxy fact", `{"content":[],"_meta":{"proxyAction":"x"}}`, false},
		{"meta with a repeated key", `{"content":[],"_meta":{"a":1,"a":2}}`, false},
		{"not an object", `[1]`, false},
		{"not JSON", `{"content":[}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := Request{Action: "call", Tool: "echo"}
			resp := &CallResponse{Connection: "c1", Tool: "echo", Bytes: int64(len(c.raw)), EstimatedTokens: 7, raw: json.RawMessage(c.raw)}
			got, ok := appendPassedThrough([]byte("prefix:"), resp, proxyFacts(req))
			if ok != c.spliced {
				t.Fatalf("spliced = %v, want %v (%s)", ok, c.spliced, got)
			}
			if !ok {
				if string(got) != "prefix:" {
					t.Errorf("a refused result left %q behind", got)
				}
				return
			}
			if string(got[:7]) != "prefix:" {
				t.Fatalf("the prefix was not kept: %s", got)
			}
			var result callResult
			if err := decodeCallResult(resp.raw, &result); err != nil {
				t.Fatal(err)
			}
			resp.Content, resp.StructuredContent, resp.IsError, resp.Meta = result.Content, result.StructuredContent, result.IsError, result.Meta
			general := inlineCallResult(resp)
			stampProxy(general, req)
			want, err := json.Marshal(general)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(decoded(t, got[7:]), decoded(t, want)) {
				t.Errorf("spliced:\n %s\nthe general path:\n %s", got[7:], want)
			}
		})
	}
}

// A server's result whose _meta is null is answered as one without: it
// panicked (a nil map written to), through the hot path and mcp-go alike.
func TestInlineCallResult_NullMetaIsNone(t *testing.T) {
	for _, meta := range []string{`null`, ` null `} {
		resp := &CallResponse{Connection: "c1", Tool: "echo", Bytes: 9, EstimatedTokens: 3,
			Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":"a"}`)}, Meta: json.RawMessage(meta)}
		result := inlineCallResult(resp)
		stampProxy(result, Request{Action: "call", Tool: "echo"})
		got, err := json.Marshal(result)
		if err != nil {
			t.Fatal(err)
		}
		const want = `{"_meta":{"dispatch":{"bytes":9,"connection":"c1","estimatedTokens":3,"tool":"echo"},"proxyAction":"call","proxyPath":"echo","proxyType":"tool"},"content":[{"type":"text","text":"a"}]}`
		if string(got) != want {
			t.Errorf("_meta %q: answer %s, want %s", meta, got, want)
		}
	}
}

// decoded is data's meaning, with an absent isError taken as false.
func decoded(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if v["isError"] == false {
		delete(v, "isError")
	}
	return v
}

// TestPlainCall_AsParseRequest holds the hot path's reading of a call's
// arguments to ParseRequest's, and checks which it leaves to ParseRequest.
func TestPlainCall_AsParseRequest(t *testing.T) {
	cases := []struct {
		raw   string
		plain bool
	}{
		{`{"action":"call","tool":"echo"}`, true},
		{`{"action":"call","tool":"echo","arguments":{"message":"hi"}}`, true},
		{`{"tool":"c1/echo","connection":"c1","action":"call","arguments":{ "a" : [1,2] }}`, true},
		{`{"action":"call","tool":"héllo","arguments":{}}`, true},

		{`{"action":"call","tool":"e\u0063ho"}`, false},                    // an escape: ParseRequest reads it
		{`{"action":"call","tool":"echo","arguments":"{\"a\":1}"}`, false}, // a string holding the object
		{`{"action":"call","tool":"echo","arguments":null}`, false},
		{`{"action":"call","tool":"echo","meta":{"k":1}}`, false},
		{`{"action":"call","tool":"echo","timeout":5}`, false},
		{`{"action":"call","path":"echo"}`, false}, // the Proxy Extension's spelling
		{`{"action":"call","tool":"echo","tool":"add"}`, false},
		{`{"action":"call","tool":""}`, false},
		{`{"action":"call"}`, false},
		{`{"action":"list"}`, false},
		{`{"action":"call","tool":"echo","message":"stray"}`, false},
		{`{"action":"call","tool":7}`, false},
		{`{"action":"call","tool":"a` + "\xff" + `"}`, false},
		{`[]`, false},
	}
	for _, c := range cases {
		got, ok := plainCall([]byte(c.raw))
		if ok != c.plain {
			t.Errorf("plainCall(%s) ok = %v, want %v", c.raw, ok, c.plain)
			continue
		}
		if !ok {
			continue
		}
		want, err := ParseRequest(json.RawMessage(c.raw))
		if err != nil {
			t.Errorf("ParseRequest(%s): %v; plainCall took it", c.raw, err)
			continue
		}
		// PlainCall notes that the arguments, an object of a message
		// checked whole, need no second check; ParseRequest's are
		// checked by Check itself. Otherwise the requests are the same.
		if len(got.Arguments) > 0 && !got.argumentsChecked {
			t.Errorf("plainCall(%s): arguments not noted as checked; Check validates them again", c.raw)
		}
		got.argumentsChecked = false
		if !reflect.DeepEqual(got, want) {
			t.Errorf("plainCall(%s) = %+v, ParseRequest = %+v", c.raw, got, want)
		}
	}
}
