package connections

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func nestedArrays(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// nestedMeta is a decoded _meta {"a": …} nesting depth levels, its own
// object counted.
func nestedMeta(t *testing.T, depth int) map[string]any {
	t.Helper()
	var meta map[string]any
	// depth-1 arrays under the object: at most 10,000 levels, which
	// json.Unmarshal decodes.
	if err := json.Unmarshal([]byte(`{"a":`+nestedArrays(depth-1)+`}`), &meta); err != nil {
		t.Fatal(err)
	}
	return meta
}

func TestCheckParamsNesting(t *testing.T) {
	fits := `{"a":` + nestedArrays(MaxParamsMemberNesting-1) + `}`
	deep := `{"a":` + nestedArrays(MaxParamsMemberNesting) + `}`
	for _, tt := range []struct {
		name      string
		arguments string
		meta      map[string]any
		member    string // "" for none refused
	}{
		{"arguments that fit", fits, nil, ""},
		{"arguments one level too deep", deep, nil, "arguments"},
		{"_meta that fits", `{}`, nestedMeta(t, MaxParamsMemberNesting), ""},
		{"_meta one level too deep", `{}`, nestedMeta(t, MaxParamsMemberNesting+1), "_meta"},
		{"_meta holding raw JSON too deep", `{}`, map[string]any{"a": json.RawMessage(nestedArrays(MaxParamsMemberNesting))}, "_meta"},
		{"_meta holding raw JSON that fits", `{}`, map[string]any{"a": json.RawMessage(nestedArrays(MaxParamsMemberNesting - 1))}, ""},
	} {
		err := checkParamsNesting([]byte(tt.arguments), tt.meta)
		var deep *RequestTooDeepError
		switch {
		case tt.member == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.member != "" && !errors.As(err, &deep):
			t.Errorf("%s: got %v, want a RequestTooDeepError", tt.name, err)
		case tt.member != "" && deep.Member != tt.member:
			t.Errorf("%s: refused %s, want %s", tt.name, deep.Member, tt.member)
		case tt.member != "" && !strings.Contains(err.Error(), "MaxRequestNesting"):
			t.Errorf("%s: %q does not name the limit", tt.name, err)
		}
	}
}
