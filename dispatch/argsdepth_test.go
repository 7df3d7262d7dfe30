package dispatch

import (
	"context"
	"strings"
	"testing"
)

func TestValidDeepJSON(t *testing.T) {
	deep := strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000)
	for _, tt := range []struct {
		name string
		data string
		want bool
	}{
		{"deep arrays", deep, true},
		{"deep, in an object", `{"a":` + deep + `,"b":{"c":"]]"}}`, true},
		{"a scalar", `"x"`, true},
		{"deep, then more", deep + ` x`, false},
		{"deep, then a second value", deep + ` []`, false},
		{"deep, unclosed", deep[:len(deep)-1], false},
		{"deep, broken inside", `{"a":` + deep + `,"b" 1}`, false},
		{"brackets in text", strings.Repeat("[", 20_000) + " notes", false},
	} {
		if got := validDeepJSON(context.Background(), []byte(tt.data)); got != tt.want {
			t.Errorf("%s: validDeepJSON = %v, want %v", tt.name, got, tt.want)
		}
	}
}
