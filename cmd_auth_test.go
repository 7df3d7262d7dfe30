package main

import (
	"strings"
	"testing"
	"time"

	"dispatch/connections"

	"github.com/mark3labs/mcp-go/client/transport"
)

func TestDescribeToken(t *testing.T) {
	cfg := connections.ServerConfig{Name: "gh", Transport: connections.TransportHTTP, URL: "https://example.com/mcp", OAuth: &connections.OAuthSettings{}}
	tests := []struct {
		name  string
		entry *connections.TokenEntry
		want  string
	}{
		{"none", nil, "not logged in (run dispatch auth login gh)"},
		{"valid", &connections.TokenEntry{Token: &transport.Token{AccessToken: "a", ExpiresAt: time.Now().Add(time.Hour)}}, "logged in; access token expires in"},
		{"refresh refused", &connections.TokenEntry{LoginNeeded: "the authorization server refused the refresh token"}, "needs login: the authorization server refused the refresh token (run dispatch auth login gh)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeToken(tt.entry, cfg); !strings.HasPrefix(got, tt.want) {
				t.Errorf("describeToken = %q, want it to start with %q", got, tt.want)
			}
		})
	}
}
