package upstream

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestMostVerbose(t *testing.T) {
	tests := []struct {
		name   string
		levels []mcp.LoggingLevel
		want   mcp.LoggingLevel
	}{
		{"none", nil, ""},
		{"none set", []mcp.LoggingLevel{"", ""}, ""},
		{"one", []mcp.LoggingLevel{"", mcp.LoggingLevelWarning}, mcp.LoggingLevelWarning},
		{"debug wins", []mcp.LoggingLevel{mcp.LoggingLevelError, mcp.LoggingLevelDebug, mcp.LoggingLevelWarning}, mcp.LoggingLevelDebug},
		{"order does not matter", []mcp.LoggingLevel{mcp.LoggingLevelNotice, mcp.LoggingLevelEmergency, mcp.LoggingLevelInfo}, mcp.LoggingLevelInfo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mostVerbose(tt.levels); got != tt.want {
				t.Errorf("mostVerbose(%q) = %q, want %q", tt.levels, got, tt.want)
			}
		})
	}
}
