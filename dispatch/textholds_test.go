package dispatch

import (
	"encoding/json"
	"testing"
)

func TestTextHoldsStructured(t *testing.T) {
	text := func(s string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return b
	}
	image := json.RawMessage(`{"type":"image","data":"AAAA","mimeType":"image/png"}`)
	tests := []struct {
		name       string
		content    []json.RawMessage
		structured string
		want       bool
	}{
		{"no structured content", []json.RawMessage{text("hi")}, "", true},
		{"structured null", []json.RawMessage{text("hi")}, "null", true},
		{"a summary of richer data", []json.RawMessage{text("3 items, 203 bytes")}, `{"items":[1,2,3],"total":3}`, false},
		{"the same JSON, other spacing and order", []json.RawMessage{text(`{"total": 3, "items": [1, 2, 3]}`)}, `{"items":[1,2,3],"total":3}`, true},
		{"the same array", []json.RawMessage{text(`[1,2]`)}, `[1, 2]`, true},
		{"a wrapper of the text", []json.RawMessage{text("line 1\nline 2")}, `{"content":"line 1\nline 2"}`, true},
		{"a wrapper holding more than the text", []json.RawMessage{text("line 1")}, `{"content":"line 1\nline 2"}`, false},
		{"one member equal to the text's value", []json.RawMessage{text("5")}, `{"sum":5}`, true},
		{"one member, another value", []json.RawMessage{text("5")}, `{"sum":6}`, false},
		{"two members", []json.RawMessage{text("5")}, `{"sum":5,"a":2}`, false},
		{"no text at all", []json.RawMessage{image}, `{"sum":5}`, false},
		{"no content", nil, `{"sum":5}`, false},
		{"the value in a second text item", []json.RawMessage{text("summary"), text(`{"a":1}`)}, `{"a":1}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &CallResponse{Content: tt.content, StructuredContent: json.RawMessage(tt.structured)}
			if got := c.TextHoldsStructured(); got != tt.want {
				t.Errorf("TextHoldsStructured() = %v, want %v", got, tt.want)
			}
		})
	}
}
