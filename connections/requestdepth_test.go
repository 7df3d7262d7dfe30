package connections

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func nestedArrays(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// nestedMeta is a _meta {"a": …} nesting depth levels, its own object
// counted, as raw JSON (as meta travels).
func nestedMeta(depth int) json.RawMessage {
	return json.RawMessage(`{"a":` + nestedArrays(depth-1) + `}`)
}

func TestCheckParamsNesting(t *testing.T) {
	fits := `{"a":` + nestedArrays(MaxParamsMemberNesting-1) + `}`
	deep := `{"a":` + nestedArrays(MaxParamsMemberNesting) + `}`
	for _, tt := range []struct {
		name      string
		arguments string
		meta      json.RawMessage
		member    string // "" for none refused
	}{
		{"arguments that fit", fits, nil, ""},
		{"arguments one level too deep", deep, nil, "arguments"},
		{"_meta that fits", `{}`, nestedMeta(MaxParamsMemberNesting), ""},
		{"_meta one level too deep", `{}`, nestedMeta(MaxParamsMemberNesting + 1), "_meta"},
		{"_meta far too deep", `{}`, nestedMeta(3 * MaxRequestNesting), "_meta"},
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
