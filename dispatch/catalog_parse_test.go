package dispatch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parseToolDefByUnmarshal is parseToolDef as it was, with encoding/json:
// the reference its gjson reading must agree with.
func parseToolDefByUnmarshal(raw json.RawMessage) (toolDef, bool) {
	var t struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Annotations map[string]any  `json:"annotations"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Execution   struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
		return toolDef{}, false
	}
	// A schema dispatch cannot read costs the tool its parameters, not its
	// place in the catalog (toolsearch.DocFromRaw does the same).
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		// Keep the properties if only "required" was malformed.
		var props struct {
			Properties json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(t.InputSchema, &props); err != nil {
			props.Properties = nil
		}
		schema.Properties, schema.Required = props.Properties, nil
	}
	def := toolDef{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations,
		RunsAsTask: t.Execution.TaskSupport == "required", Raw: raw}
	if def.Title == "" {
		if title, ok := t.Annotations["title"].(string); ok {
			def.Title = title
		}
	}
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	var props map[string]struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema.Properties, &props); err != nil {
		props = nil // a schema without usable properties still names the tool
	}
	for _, name := range propertyNamesInOrder(schema.Properties) {
		def.Params = append(def.Params, paramDef{Name: name, Type: typeNameOfAny(props[name].Type), Required: required[name]})
	}
	return def, true
}
func propertyNamesInOrder(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		name, ok := tok.(string)
		if !ok {
			return names
		}
		names = append(names, name)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return names
		}
	}
	return names
}

func typeNameOfAny(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, p := range v {
			if s, ok := p.(string); ok && s != "null" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "|")
	}
	return ""
}

// realTools are the tool definitions of every real catalog in
// testdata/catalogs.
func realTools(t testing.TB) []json.RawMessage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "catalogs", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no catalogs: %v", err)
	}
	var tools []json.RawMessage
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cat struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(data, &cat); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tools = append(tools, cat.Tools...)
	}
	return tools
}

func sameToolDef(t *testing.T, raw []byte) {
	t.Helper()
	want, wantOK := parseToolDefByUnmarshal(raw)
	got, ok := parseToolDef(raw)
	if ok != wantOK || !reflect.DeepEqual(got, want) {
		t.Fatalf("parseToolDef(%s) =\n  %+v, %v\nencoding/json reads\n  %+v, %v", raw, got, ok, want, wantOK)
	}
}

// Every real tool reads as encoding/json read it.
func TestParseToolDef_RealToolsAsUnmarshal(t *testing.T) {
	tools := realTools(t)
	if len(tools) < 300 {
		t.Fatalf("only %d real tools", len(tools))
	}
	for _, raw := range tools {
		sameToolDef(t, raw)
	}
}

// Whatever the bytes, parseToolDef agrees with encoding/json: member
// names in any case, repeated members, members of the wrong type,
// escapes and invalid UTF-8 alike.
func FuzzParseToolDef_AsUnmarshal(f *testing.F) {
	for _, seed := range []string{
		`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["null","integer"]}},"required":["a"]}}`,
		`{"NAME":"t","Title":"T","inputschema":{"Properties":{"a":{"TYPE":"string"}},"REQUIRED":["a",null]}}`,
		`{"name":"t","name":"u","inputSchema":{"properties":{"a":{"type":"string"},"a":{}},"required":["a"],"required":[]}}`,
		`{"name":"t","annotations":{"title":"A","readOnlyHint":true},"execution":{"taskSupport":"required"}}`,
		`{"name":"t","execution":{"taskSupport":5}}`, `{"name":"t","execution":[]}`, `{"name":"t","annotations":[]}`,
		`{"name":"t","inputSchema":{"properties":{"a":"string","b":{"type":"integer"}}}}`,
		`{"name":"t","inputSchema":{"properties":{"a":{"type":"string"}},"required":"a"}}`,
		`{"name":"t","inputSchema":{"properties":{"a":{"type":"string"}},"required":[1]}}`,
		`{"name":"\u0074\ud800","description":"line\nnext \"q\"","inputSchema":{"properties":{"\u00e9":{}}}}`,
		"{\"name\":\"t\xff\",\"inputSchema\":{\"properties\":{\"\xfe\":{}}}}",
		`{"name":"t","inputSchema":true}`, `{"name":"t","inputSchema":null}`, `{"name":null}`, `{"name":1}`,
		`["t"]`, `{"name":`, ``, `{"name":"t","title":null,"description":null,"annotations":null,"execution":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameToolDef(t, raw)
	})
}

// BenchmarkParseToolDef parses every real tool, with gjson and with
// encoding/json as before.
func BenchmarkParseToolDef(b *testing.B) {
	tools := realTools(b)
	for _, parse := range []struct {
		name string
		fn   func(json.RawMessage) (toolDef, bool)
	}{{"gjson", parseToolDef}, {"unmarshal", parseToolDefByUnmarshal}} {
		b.Run(parse.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, raw := range tools {
					parse.fn(raw)
				}
			}
		})
	}
}
