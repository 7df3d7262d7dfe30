package connections

import (
	"slices"
	"strings"
	"testing"
)

// A server's expose list is read from TOML and from an mcpServers entry,
// is not part of the ID, and an empty name is refused.
func TestLoadFile_Expose(t *testing.T) {
	toml, err := LoadFile(writeConfig(t, "servers.toml", "[servers.a]\ncommand = \"a\"\nexpose = [\"read_file\", \"list_dir\"]\n"), envLookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(toml[0].Expose, []string{"read_file", "list_dir"}) {
		t.Errorf("TOML expose = %v", toml[0].Expose)
	}
	json, err := LoadFile(writeConfig(t, "mcp.json", `{"mcpServers": {"a": {"command": "a", "expose": ["read_file"]}}}`), envLookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(json[0].Expose, []string{"read_file"}) {
		t.Errorf("JSON expose = %v", json[0].Expose)
	}
	plain := toml[0]
	plain.Expose = nil
	if plain.ID() != toml[0].ID() {
		t.Error("the expose list changes the connection ID")
	}
	_, err = LoadFile(writeConfig(t, "bad.toml", "[servers.a]\ncommand = \"a\"\nexpose = [\"\"]\n"), envLookup(nil))
	if err == nil || !strings.Contains(err.Error(), "empty tool name") {
		t.Errorf("an empty name to expose: err = %v", err)
	}
}

// Two entries for one server show the tools of both expose lists; a new
// config's list is taken without a restart and reported.
func TestSet_ExposeMergedAndUpdated(t *testing.T) {
	a := ServerConfig{Name: "a", Transport: TransportStdio, Command: "srv", Expose: []string{"x"}}
	b := ServerConfig{Name: "b", Transport: TransportStdio, Command: "srv", Expose: []string{"y", "x"}}
	set, err := NewSet([]ServerConfig{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	conn := set.Conns()[0]
	if got := conn.Exposed(); !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("merged expose = %v", got)
	}
	a.Expose = []string{"z"}
	changes, err := set.Update([]ServerConfig{a})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes.Reexposed) != 1 || len(changes.Restarted) != 0 || set.Conns()[0] != conn {
		t.Errorf("changes = %+v", changes)
	}
	if got := conn.Exposed(); !slices.Equal(got, []string{"z"}) {
		t.Errorf("expose after update = %v", got)
	}
}
