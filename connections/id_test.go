package connections

import (
	"regexp"
	"testing"
	"time"
)

var md5Hex = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestServerConfig_ID(t *testing.T) {
	base := func() ServerConfig {
		return ServerConfig{
			Name:      "gh",
			Transport: TransportStdio,
			Command:   "gh-mcp",
			Args:      []string{"--read-only"},
			Env:       map[string]string{"A": "1", "B": "2", "C": "3"},
		}
	}
	tests := []struct {
		name   string
		modify func(*ServerConfig)
		same   bool // whether the ID must equal base's
	}{
		{name: "unchanged", modify: func(*ServerConfig) {}, same: true},
		{name: "other name", modify: func(c *ServerConfig) { c.Name = "github" }, same: true},
		{name: "no name", modify: func(c *ServerConfig) { c.Name = "" }, same: true},
		{
			name: "env built in another order",
			modify: func(c *ServerConfig) {
				c.Env = map[string]string{}
				c.Env["C"] = "3"
				c.Env["A"] = "1"
				c.Env["B"] = "2"
			},
			same: true,
		},
		{name: "default protocol version spelled out", modify: func(c *ServerConfig) { c.ProtocolVersion = DefaultProtocolVersion }, same: true},
		{name: "other protocol version", modify: func(c *ServerConfig) { c.ProtocolVersion = "2025-03-26" }, same: false},
		{name: "env value differs", modify: func(c *ServerConfig) { c.Env["B"] = "22" }, same: false},
		{name: "env key added", modify: func(c *ServerConfig) { c.Env["D"] = "4" }, same: false},
		{name: "no env", modify: func(c *ServerConfig) { c.Env = nil }, same: false},
		{name: "args differ", modify: func(c *ServerConfig) { c.Args = []string{"--write"} }, same: false},
		{name: "args split differently", modify: func(c *ServerConfig) { c.Args = []string{"--read", "-only"} }, same: false},
		{name: "command differs", modify: func(c *ServerConfig) { c.Command = "gh-mcp2" }, same: false},
		{name: "cwd differs", modify: func(c *ServerConfig) { c.Cwd = "/tmp" }, same: false},
		{name: "timeout differs", modify: func(c *ServerConfig) { c.Timeout = time.Minute }, same: false},
	}
	want := base().ID()
	if !md5Hex.MatchString(want) {
		t.Fatalf("ID() = %q, want 32 lower-case hex digits", want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.modify(&c)
			got := c.ID()
			if !md5Hex.MatchString(got) {
				t.Fatalf("ID() = %q, want 32 lower-case hex digits", got)
			}
			if (got == want) != tt.same {
				t.Errorf("ID() = %s, base ID %s; want same=%v", got, want, tt.same)
			}
			if again := c.ID(); again != got {
				t.Errorf("ID() not stable: %s then %s", got, again)
			}
		})
	}
}

func TestServerConfig_ID_Transports(t *testing.T) {
	configs := []ServerConfig{
		{Transport: TransportStdio, Command: "srv"},
		{Transport: TransportHTTP, URL: "https://h/mcp"},
		{Transport: TransportSSE, URL: "https://h/mcp"},
		{Transport: TransportHTTP, URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer a"}},
		{Transport: TransportHTTP, URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer b"}},
	}
	seen := map[string]int{}
	for i, c := range configs {
		id := c.ID()
		if j, ok := seen[id]; ok {
			t.Errorf("configs %d and %d share ID %s", j, i, id)
		}
		seen[id] = i
	}
}

func TestServerConfig_ID_MapOrder(t *testing.T) {
	// Go randomizes map iteration; building the same maps many times in
	// different orders must give one ID.
	keys := []string{"K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8"}
	var first string
	for round := range 50 {
		env := map[string]string{}
		headers := map[string]string{}
		for i := range keys {
			k := keys[(i+round)%len(keys)]
			env[k] = "v" + k
			headers[k] = "h" + k
		}
		id := ServerConfig{Transport: TransportHTTP, URL: "https://h", Env: env, Headers: headers}.ID()
		if round == 0 {
			first = id
		} else if id != first {
			t.Fatalf("round %d: ID %s, want %s", round, id, first)
		}
	}
}
