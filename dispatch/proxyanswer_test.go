package dispatch

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestAnnotateItem(t *testing.T) {
	facts := map[string]string{"proxyAction": "call", "proxyType": "tool", "proxyPath": "echo"}
	tests := []struct {
		name, item, want string
	}{
		{name: "no annotations: spliced, bytes kept",
			item: `{"type":"text","text":"a \u003c b"}`,
			want: `{"type":"text","text":"a \u003c b","annotations":{"proxyAction":"call","proxyPath":"echo","proxyType":"tool"}}`},
		{name: "empty object", item: `{}`,
			want: `{"annotations":{"proxyAction":"call","proxyPath":"echo","proxyType":"tool"}}`},
		{name: "whitespace around", item: " {\"type\":\"text\" } \n",
			want: `{"type":"text","annotations":{"proxyAction":"call","proxyPath":"echo","proxyType":"tool"}}`},
		{name: "own annotations merged",
			item: `{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5}}`,
			want: `{"annotations":{"audience":["user"],"priority":0.5,"proxyAction":"call","proxyPath":"echo","proxyType":"tool"},"text":"x","type":"text"}`},
		{name: "server's forged fact replaced",
			item: `{"type":"text","annotations":{"proxyPath":"other"}}`,
			want: `{"annotations":{"proxyAction":"call","proxyPath":"echo","proxyType":"tool"},"type":"text"}`},
		{name: "annotations null", item: `{"type":"text","annotations":null}`,
			want: `{"annotations":{"proxyAction":"call","proxyPath":"echo","proxyType":"tool"},"type":"text"}`},
		{name: "annotations an array: left as sent", item: `{"type":"text","annotations":[1]}`, want: `{"type":"text","annotations":[1]}`},
		{name: "annotations a string: left as sent", item: `{"type":"text","annotations":"x"}`, want: `{"type":"text","annotations":"x"}`},
		{name: "not an object: left as sent", item: `["a"]`, want: `["a"]`},
		{name: "a string: left as sent", item: `"text"`, want: `"text"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := annotateItem(json.RawMessage(tt.item), facts)
			if string(got) != tt.want {
				t.Errorf("annotateItem(%s)\n got %s\nwant %s", tt.item, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("result is not valid JSON: %s", got)
			}
		})
	}
}

func TestStampProxy(t *testing.T) {
	result := mcp.NewToolResultText(`{"connections":[]}`)
	stampProxy(result, Request{Action: "list"})
	if got := result.Meta.AdditionalFields; got["proxyAction"] != "list" || got["proxyType"] != "tool" || got["proxyPath"] != nil {
		t.Errorf("list _meta = %v", got)
	}
	if raw, _ := json.Marshal(result.Content[0]); string(raw) != `{"type":"text","text":"{\"connections\":[]}"}` {
		t.Errorf("list content changed: %s", raw)
	}
	search := mcp.NewToolResultText(`{}`)
	stampProxy(search, Request{Action: "search", Query: "q"})
	if _, ok := search.Meta.AdditionalFields["proxyType"]; ok {
		t.Errorf("search of every kind says a proxyType: %v", search.Meta.AdditionalFields)
	}
	// In dispatch's own spelling a call's content stays as the server sent it.
	own := inlineCallResult(&CallResponse{Connection: "c1", Tool: "echo", Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":"hi"}`)}})
	stampProxy(own, Request{Action: "call", Tool: "echo"})
	ownRaw, err := json.Marshal(own.Content)
	if err != nil {
		t.Fatal(err)
	}
	if string(ownRaw) != `[{"type":"text","text":"hi"}]` || own.Meta.AdditionalFields["proxyPath"] != "echo" {
		t.Errorf("call in dispatch's spelling: content %s, _meta %v", ownRaw, own.Meta.AdditionalFields)
	}
	call := inlineCallResult(&CallResponse{Connection: "c1", Tool: "echo", Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":"hi"}`)}})
	stampProxy(call, Request{Action: "call", Type: "resource", URI: "demo://x", ProxyShape: true})
	raw, err := json.Marshal(call)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Meta    map[string]any `json:"_meta"`
		Content []struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Meta["proxyPath"] != "demo://x" || back.Meta["proxyType"] != "resource" || back.Meta["dispatch"] == nil {
		t.Errorf("call _meta = %v", back.Meta)
	}
	if a := back.Content[0].Annotations; a["proxyAction"] != "call" || a["proxyPath"] != "demo://x" {
		t.Errorf("call item annotations = %v", a)
	}
	// An answer to a request that could not be parsed says nothing.
	failed := mcp.NewToolResultError("bad")
	stampProxy(failed, Request{})
	if failed.Meta != nil {
		t.Errorf("unparsed request stamped: %v", failed.Meta)
	}
}
