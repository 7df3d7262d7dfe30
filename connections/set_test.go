package connections

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func stdio(name, command string, args ...string) ServerConfig {
	return ServerConfig{Name: name, Transport: TransportStdio, Command: command, Args: args}
}

func TestNewSet(t *testing.T) {
	tests := []struct {
		name    string
		configs []ServerConfig
		// want maps each connection's alias to its command, in order.
		want    []string
		wantErr string
	}{
		{name: "empty", configs: nil, want: nil},
		{
			name:    "aliases follow order",
			configs: []ServerConfig{stdio("z", "zz"), stdio("", "anon"), stdio("a", "aa")},
			want:    []string{"c1=zz", "c2=anon", "c3=aa"},
		},
		{
			name:    "identical configs are connected once",
			configs: []ServerConfig{stdio("one", "srv", "-x"), stdio("two", "other"), stdio("three", "srv", "-x")},
			want:    []string{"c1=srv", "c2=other"},
		},
		{
			name:    "identical unnamed configs",
			configs: []ServerConfig{stdio("", "srv"), stdio("", "srv")},
			want:    []string{"c1=srv"},
		},
		{
			name: "different protocol version is another server",
			configs: []ServerConfig{
				stdio("", "srv"),
				{Transport: TransportStdio, Command: "srv", ProtocolVersion: DefaultProtocolVersion},
				{Transport: TransportStdio, Command: "srv", ProtocolVersion: "2025-03-26"},
			},
			want: []string{"c1=srv", "c2=srv"},
		},
		{
			name:    "invalid config names the server",
			configs: []ServerConfig{stdio("ok", "srv"), {Name: "bad", Transport: TransportStdio}},
			wantErr: `server "bad": stdio server has no command`,
		},
		{
			name:    "invalid unnamed config gets its alias",
			configs: []ServerConfig{stdio("", "srv"), {Transport: TransportHTTP}},
			wantErr: "server c2: http server has no url",
		},
		{
			name:    "same name for two servers",
			configs: []ServerConfig{stdio("x", "a"), stdio("x", "b")},
			wantErr: `server name "x" clashes with c1`,
		},
		{
			name:    "name of a duplicate clashes with another server",
			configs: []ServerConfig{stdio("x", "a"), stdio("y", "b"), stdio("y", "a")},
			wantErr: `server name "y" clashes with`,
		},
		{
			name:    "name shadowing another alias",
			configs: []ServerConfig{stdio("c2", "a"), stdio("", "b")},
			wantErr: `server name "c2" clashes with c2`,
		},
		{
			name:    "name of a duplicate shadowing another alias",
			configs: []ServerConfig{stdio("", "a"), stdio("", "b"), stdio("c2", "a")},
			wantErr: `server name "c2" clashes with c2`,
		},
		{
			name:    "own alias as name",
			configs: []ServerConfig{stdio("c1", "a"), stdio("", "b")},
			want:    []string{"c1=a", "c2=b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := NewSet(tt.configs, Options{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewSet error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewSet: %v", err)
			}
			var got []string
			for _, c := range set.Conns() {
				got = append(got, c.Alias+"="+c.Config.Command)
				if c.ID != c.Config.ID() {
					t.Errorf("%s: ID %s, want the config's %s", c.Alias, c.ID, c.Config.ID())
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("conns = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSet_Lookup(t *testing.T) {
	configs := []ServerConfig{
		stdio("github", "gh-mcp"),
		stdio("", "anon"),
		stdio("files", "fs-mcp", "/tmp"),
		stdio("fs", "fs-mcp", "/tmp"), // same server as "files"
		stdio("Mixed", "mixed"),
	}
	set, err := NewSet(configs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conns := set.Conns()
	if len(conns) != 4 {
		t.Fatalf("got %d conns, want 4", len(conns))
	}
	tests := []struct {
		key       string
		wantAlias string // empty: want ErrUnknownConnection
	}{
		{key: "c1", wantAlias: "c1"},
		{key: "c2", wantAlias: "c2"},
		{key: "c3", wantAlias: "c3"},
		{key: "c4", wantAlias: "c4"},
		{key: "C2", wantAlias: "c2"},
		{key: "github", wantAlias: "c1"},
		{key: "GitHub", wantAlias: "c1"},
		{key: "files", wantAlias: "c3"},
		{key: "fs", wantAlias: "c3"},
		{key: "Mixed", wantAlias: "c4"},
		{key: conns[0].ID, wantAlias: "c1"},
		{key: conns[1].ID, wantAlias: "c2"},
		{key: strings.ToUpper(conns[2].ID), wantAlias: "c3"},
		{key: configs[3].ID(), wantAlias: "c3"},
		{key: "c5"},
		{key: "c0"},
		{key: ""},
		{key: "git"},
		{key: "mixed"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			c, err := set.Lookup(tt.key)
			if tt.wantAlias == "" {
				if !errors.Is(err, ErrUnknownConnection) {
					t.Fatalf("Lookup(%q) = %v, %v; want ErrUnknownConnection", tt.key, c, err)
				}
				for _, valid := range []string{"c1 (github)", "c2", "c3 (files)", "c4 (Mixed)"} {
					if !strings.Contains(err.Error(), valid) {
						t.Errorf("Lookup(%q) error %q does not list %q", tt.key, err, valid)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Lookup(%q): %v", tt.key, err)
			}
			if c.Alias != tt.wantAlias {
				t.Errorf("Lookup(%q) = %s, want %s", tt.key, c.Alias, tt.wantAlias)
			}
		})
	}
}

func TestSet_Lookup_Errors(t *testing.T) {
	tests := []struct {
		name    string
		configs []ServerConfig
		want    string
	}{
		{name: "no servers", configs: nil, want: `unknown connection "x": no servers are configured`},
		{name: "one server", configs: []ServerConfig{stdio("a", "a")}, want: `unknown connection "x": use one of c1 (a)`},
		{
			name: "aliases in numeric order",
			configs: func() []ServerConfig {
				var cs []ServerConfig
				for i := 1; i <= 11; i++ {
					cs = append(cs, stdio("", "srv"+strconv.Itoa(i)))
				}
				return cs
			}(),
			want: `use one of c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := NewSet(tt.configs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = set.Lookup("x")
			if !errors.Is(err, ErrUnknownConnection) {
				t.Fatalf("Lookup error = %v, want ErrUnknownConnection", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Lookup error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestNewSet_LearnsSecrets(t *testing.T) {
	r := NewRedactor()
	_, err := NewSet([]ServerConfig{
		{Transport: TransportStdio, Command: "srv", Env: map[string]string{"TOKEN": "first-secret"}},
		{Transport: TransportStdio, Command: "srv", Env: map[string]string{"TOKEN": "first-secret"}, Name: "dup"},
		{Transport: TransportHTTP, URL: "https://h/mcp", Headers: map[string]string{"X-Api-Key": "second-secret"}},
	}, Options{Redactor: r})
	if err != nil {
		t.Fatal(err)
	}
	got := r.String("first-secret second-secret")
	if got != "*** ***" {
		t.Errorf("String = %q, want both secrets masked", got)
	}
}

func TestNewSet_DuplicateGivesItsNameToAnUnnamedFirst(t *testing.T) {
	set, err := NewSet([]ServerConfig{stdio("", "srv", "-x"), stdio("files", "srv", "-x")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Conns()); n != 1 || set.Conns()[0].Config.Name != "files" {
		t.Fatalf("conns = %d, first named %q; want one connection named files", n, set.Conns()[0].Config.Name)
	}
	if c, err := set.Lookup("files"); err != nil || c != set.Conns()[0] {
		t.Errorf("Lookup(files) = %v, %v", c, err)
	}
}
