package dispatch

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"
)

// MaxToolDefinitionBytes bounds the tool definition an agent reads on
// every turn: name, description, inputSchema and annotations, as compact
// JSON.
const maxToolDefinitionBytes = 3072

func TestTool_DefinitionSize(t *testing.T) {
	def, err := json.Marshal(Tool())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tool definition: %d bytes", len(def))
	if len(def) > maxToolDefinitionBytes {
		t.Errorf("tool definition is %d bytes, want at most %d: describe new parameters tersely and put details in info, errors and the README", len(def), maxToolDefinitionBytes)
	}
}

// The schema declares exactly the parameters some action accepts, and its
// action enum names exactly the actions ParseRequest knows.
func TestActionParams_MatchSchema(t *testing.T) {
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(InputSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	var declared, accepted []string
	for name := range schema.Properties {
		declared = append(declared, name)
	}
	for name := range allParams {
		accepted = append(accepted, name)
	}
	sort.Strings(declared)
	sort.Strings(accepted)
	if !reflect.DeepEqual(declared, accepted) {
		t.Errorf("schema declares %v\nactions accept %v", declared, accepted)
	}
	var actions []string
	for a := range actionParams {
		actions = append(actions, a)
	}
	enum := append([]string(nil), schema.Properties["action"].Enum...)
	sort.Strings(actions)
	sort.Strings(enum)
	if !reflect.DeepEqual(enum, actions) {
		t.Errorf("schema's action enum %v, actions %v", enum, actions)
	}
	typeEnum := schema.Properties["type"].Enum
	if !reflect.DeepEqual(typeEnum, []string{TypeTool, TypeResource, TypePrompt}) {
		t.Errorf("schema's type enum %v", typeEnum)
	}
}
