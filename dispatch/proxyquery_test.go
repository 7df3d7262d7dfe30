package dispatch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"dispatch/connections"
)

// findPublished finds resources and prompts in their servers' raw
// catalogs, generically, for whichever branch supplies them.
func TestFindPublished(t *testing.T) {
	raw := func(items ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(items))
		for i, s := range items {
			out[i] = json.RawMessage(s)
		}
		return out
	}
	c1, c2, c3 := &connections.Conn{Alias: "c1"}, &connections.Conn{Alias: "c2"}, &connections.Conn{Alias: "c3"}
	cats := []rawCatalog{
		{conn: c1, items: raw(`{"uri":"demo://a","name":"A"}`, `{"uriTemplate":"demo://t/{id}","name":"T"}`, `{"name":"greet"}`)},
		{conn: c2, items: raw(`{"uri":"demo://shared","name":"S"}`, `not json`)},
		{conn: c3, items: raw(`{"uri":"demo://shared","name":"S"}`)},
	}
	for _, tt := range []struct{ typ, name, want, err string }{
		{typ: TypeResource, name: "demo://a", want: `{"uri":"demo://a","name":"A"}`},
		{typ: TypeResource, name: "A", want: `{"uri":"demo://a","name":"A"}`},
		{typ: TypeResource, name: "demo://t/{id}", want: `{"uriTemplate":"demo://t/{id}","name":"T"}`},
		{typ: TypePrompt, name: "greet", want: `{"name":"greet"}`},
		{typ: TypePrompt, name: "nobody", err: `no prompt "nobody" on any connection`},
		{typ: TypeResource, name: "demo://shared", err: `resource "demo://shared" is offered by 2 connections. Add "connection": one of "c2", "c3"`},
		{typ: TypeResource, name: "demo://zzz", err: `no resource "demo://zzz" on any connection. Did you mean "demo://a"`},
		// A URI a template expands to finds the template, as info with
		// "uri" does; a near miss is named.
		{typ: TypeResource, name: "demo://t/5", want: `{"uriTemplate":"demo://t/{id}","name":"T"}`},
		{typ: TypeResource, name: "demo://sharde", err: `Did you mean "demo://shared"`},
		{typ: TypePrompt, name: "gret", err: `no prompt "gret" on any connection. Did you mean "greet"`},
	} {
		got, err := findPublished(cats, tt.typ, tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("findPublished(%s %s) error = %v, want %q", tt.typ, tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("findPublished(%s %s) = %s, %v; want %s", tt.typ, tt.name, got, err, tt.want)
		}
	}
	down := []rawCatalog{{conn: c1, err: errors.New("c1: server exited")}}
	if _, err := findPublished(down, TypePrompt, "greet"); err == nil || !strings.Contains(err.Error(), "c1: server exited") {
		t.Errorf("a server that cannot be asked: %v", err)
	}
}

func TestProxyQueryResult(t *testing.T) {
	list, err := proxyQueryResult(&ProxyQueryResponse{Action: "list", Type: TypeTool, PythonType: "Tool",
		Items: []json.RawMessage{json.RawMessage(`{"name":"a<b"}`)}, Total: 3, Offset: 1, Limit: 1, NextOffset: 2,
		Errors: map[string]string{"c2": "down"}})
	if err != nil {
		t.Fatal(err)
	}
	raw := list.Content[0].(rawContent).raw
	want := `{"annotations":{"errors":{"c2":"down"},"limit":1,"many":true,"nextOffset":2,"offset":1,"proxyAction":"list","proxyType":"tool","pythonType":"Tool","totalCount":3},` +
		`"resource":{"mimeType":"application/json","text":"[{\"name\":\"a<b\"}]","uri":"proxy:list/tool"},"type":"resource"}`
	if string(raw) != want {
		t.Errorf("list item\n got %s\nwant %s", raw, want)
	}
	info, err := proxyQueryResult(&ProxyQueryResponse{Action: "info", Type: TypePrompt, Path: "greet", PythonType: "Prompt", Item: json.RawMessage(`{"name":"greet"}`)})
	if err != nil {
		t.Fatal(err)
	}
	raw = info.Content[0].(rawContent).raw
	want = `{"annotations":{"many":false,"proxyAction":"info","proxyPath":"greet","proxyType":"prompt","pythonType":"Prompt"},` +
		`"resource":{"mimeType":"application/json","text":"{\"name\":\"greet\"}","uri":"proxy:info/prompt/greet"},"type":"resource"}`
	if string(raw) != want {
		t.Errorf("info item\n got %s\nwant %s", raw, want)
	}
}
