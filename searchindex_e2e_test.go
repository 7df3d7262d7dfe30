package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchIndexFiles lists the search indexes saved under cache.
func searchIndexFiles(t *testing.T, cache string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cache, "catalogs", "search-index", "*.idx"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A warm search answers from the index saved by the cold one, and answers
// exactly as a search that starts every server (--no-cache) and one that
// builds the index does, in text and --json, for every kind of request.
func TestSearch_SavedIndexAnswersAsCold(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "servers.toml")
	writeFile(t, cfg, fmt.Sprintf(`[servers.gen]
command = %q
args = ["--tools", "30"]

[servers.res]
command = %q
args = ["--resources"]

[servers.plain]
command = %q
`, fixtureBin, fixtureBin, fixtureBin))
	cache := filepath.Join(dir, "cache")
	requests := [][]string{
		{"search", "create support tickets"},
		{"search", "echo", "--json"},
		{"search", "add two numbers", "--format", "detail", "--schema"},
		{"search", "readme", "--type", "resource"},
		{"search", "greeting", "--type", "prompt", "--json"},
		{"search", "invoices", "-C", "gen", "--limit", "3"},
		{"search", "nothing matches zzqx"},
	}
	want := map[int]string{}
	for i, req := range requests {
		out, stderr, code := runCLI(t, "", append([]string{"--no-cache", "--config", cfg}, req...)...)
		if code != exitOK {
			t.Fatalf("%v without cache: exit %d\n%s", req, code, stderr)
		}
		want[i] = out
	}
	for round, name := range []string{"cold (builds and saves)", "warm (loads)"} {
		if round == 1 {
			files := searchIndexFiles(t, cache)
			if len(files) == 0 {
				t.Fatal("the cold searches saved no search index")
			}
			// Aged, so that a warm search that rebuilt and saved one
			// would show.
			old := time.Now().Add(-time.Hour)
			for _, f := range files {
				if err := os.Chtimes(f, old, old); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i, req := range requests {
			out, stderr, code := runCLI(t, "", append([]string{"--cache-dir", cache, "--config", cfg}, req...)...)
			if code != exitOK || out != want[i] {
				t.Fatalf("%s %v: exit %d, answer\n%s\nwant\n%s\nstderr: %s", name, req, code, out, want[i], stderr)
			}
		}
	}
	for _, f := range searchIndexFiles(t, cache) {
		if info, err := os.Stat(f); err != nil || time.Since(info.ModTime()) < 30*time.Minute {
			t.Errorf("warm searches rewrote %s (err %v): they built the index instead of loading it", f, err)
		}
	}
}

// nextVersion is the saved index good as the next format version would
// name itself: the version is the byte after the magic line.
func nextVersion(good []byte) []byte {
	next := append([]byte{}, good...)
	next[len("dispatch-search\n")]++
	return next
}

// A saved index that is corrupt, another format, or a hostile rewrite is
// not used: the search answers as before, says why at debug level, and
// saves a good index in its place.
func TestSearch_SavedIndexRefusedWhenBad(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	spec := fixtureBin + " --tools 20"
	search := []string{"--cache-dir", cache, "--mcp", spec, "search", "create support tickets", "--json"}
	want, stderr, code := runCLI(t, "", search...)
	if code != exitOK {
		t.Fatalf("cold search: exit %d\n%s", code, stderr)
	}
	files := searchIndexFiles(t, cache)
	if len(files) != 1 {
		t.Fatalf("saved indexes: %v, want one", files)
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte{}, good...)
	flipped[len(flipped)/2] ^= 0xff
	for name, bad := range map[string][]byte{
		"empty":        {},
		"garbage":      []byte(strings.Repeat("\xff", 4096)),
		"truncated":    good[:len(good)/2],
		"flipped byte": flipped,
		"next version": nextVersion(good),
	} {
		t.Run(name, func(t *testing.T) {
			writeFile(t, files[0], string(bad))
			out, stderr, code := runCLI(t, "", append([]string{"--log-level", "debug"}, search...)...)
			if code != exitOK || out != want {
				t.Fatalf("exit %d, answer\n%s\nwant\n%s\nstderr: %s", code, out, want, stderr)
			}
			if !strings.Contains(stderr, "rebuild the search index") {
				t.Errorf("no debug line saying the index was rebuilt:\n%s", stderr)
			}
			if again, err := os.ReadFile(files[0]); err != nil || string(again) != string(good) {
				t.Errorf("the bad index was not replaced by the good one (err %v)", err)
			}
		})
	}
}

// The index a search saves over catalogs it listed from the servers is
// the one the next search finds over the same catalogs loaded from the
// cache, though that one takes each catalog's digest from its cache entry
// instead of hashing its definitions: both name the catalogs alike.
func TestSearch_SavedIndexFoundFromLiveAndCachedCatalogs(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	search := []string{"--cache-dir", cache, "--mcp", fixtureBin + " --tools 25", "search", "create support tickets", "--json"}
	cold, stderr, code := runCLI(t, "", search...)
	if code != exitOK {
		t.Fatalf("cold search: exit %d\n%s", code, stderr)
	}
	files := searchIndexFiles(t, cache)
	if len(files) != 1 {
		t.Fatalf("the cold search saved %d indexes, want 1", len(files))
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(files[0], old, old); err != nil {
		t.Fatal(err)
	}
	warm, stderr, code := runCLI(t, "", append([]string{"--log-level", "debug"}, search...)...)
	if code != exitOK || warm != cold {
		t.Fatalf("warm search: exit %d, answer\n%s\nwant\n%s\nstderr: %s", code, warm, cold, stderr)
	}
	if strings.Contains(stderr, "rebuild the search index") {
		t.Errorf("the warm search refused the saved index:\n%s", stderr)
	}
	after := searchIndexFiles(t, cache)
	if info, err := os.Stat(files[0]); len(after) != 1 || err != nil || time.Since(info.ModTime()) < 30*time.Minute {
		t.Errorf("the warm search built its own index (indexes now %v, err %v): the two keys differ", after, err)
	}
}
