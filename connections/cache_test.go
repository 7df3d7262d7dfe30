package connections

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// realEntry is an entry of a real server's catalog, as SaveEntry writes it.
func realEntry(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "catalogs", "github.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &cat); err != nil {
		t.Fatal(err)
	}
	entry, err := json.Marshal(CacheEntry{Version: cacheVersion, ID: strings.Repeat("ab", 16), SavedAt: time.Now().UTC(),
		Server: ServerInfo{Name: "github", Version: "1", Capabilities: &Capabilities{}}, Tools: cat.Tools, Prompts: []json.RawMessage{}})
	if err != nil {
		t.Fatal(err)
	}
	return entry
}

// decodeCacheEntry reads what json.Unmarshal reads, and refuses what it
// refuses.
func TestDecodeCacheEntry_AsUnmarshal(t *testing.T) {
	cases := map[string]string{
		"real":               string(realEntry(t)),
		"v1 tools only":      `{"version":1,"id":"x","tools":[{"name":"a"},{"name":"b","inputSchema":{"type":"object"}}]}`,
		"null lists":         `{"version":2,"id":"x","tools":[],"resources":null,"prompts":[]}`,
		"spaces kept":        `{"version":2, "tools": [ {"name" : "a"} , 1, "s", null ] }`,
		"unknown member":     `{"version":2,"other":{"deep":[1,2]},"tools":[]}`,
		"escaped key":        `{"versio\u006e":2,"tools":[]}`,
		"tools not array":    `{"version":2,"tools":{}}`,
		"version not number": `{"version":"2","tools":[]}`,
		"bad time":           `{"savedAt":"yesterday","tools":[]}`,
		"server not object":  `{"server":[],"tools":[]}`,
		"invalid JSON":       `{"version":2,"tools":[}`,
		"not an object":      `[1,2]`,
		"empty":              ``,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			var want CacheEntry
			wantErr := json.Unmarshal([]byte(in), &want)
			got, err := decodeCacheEntry([]byte(in))
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error %v, json.Unmarshal's %v", err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// BenchmarkCacheLoad loads a real server's entry (about 60 KB of tools)
// with decodeCacheEntry and with json.Unmarshal, which Load used before.
func BenchmarkCacheLoad(b *testing.B) {
	data := realEntry(b)
	b.Run("gjson", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, err := decodeCacheEntry(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			var e CacheEntry
			if err := json.Unmarshal(data, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A cached catalog is shown masked whatever its entry claims: one masked
// by these rules that holds no secret known now is taken as it is (and
// one by older rules is saved again under these); a secret learned since,
// in clear or escaped, or a credential shape in an entry of older rules,
// is masked.
func TestConn_CachedCatalogMaskedOnLoad(t *testing.T) {
	const secret = "hunter2hunter2"
	cfg := ServerConfig{Name: "cached", Transport: TransportStdio, Command: "/nonexistent/never-started"}
	redactor := NewRedactor(cfg)
	redactor.LearnEnviron([]string{"MY_API_TOKEN=" + secret})
	for _, tc := range []struct {
		name, description string
		maskedBy          int
		want              string
	}{
		{"masked, no secret", "Lists the things.", maskRules, "Lists the things."},
		{"older rules, no secret", "Lists the things.", 0, "Lists the things."},
		{"secret learned since", "Uses " + secret + ".", maskRules, "Uses ***."},
		{"secret escaped", `Uses \u0068unter2hunter2.`, maskRules, "Uses ***."},
		{"shape under older rules", "Key ghp_0123456789abcdefABCDEF here.", 0, "Key *** here."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := json.RawMessage(`{"name":"things","description":"` + tc.description + `","inputSchema":{"type":"object"}}`)
			set, cache, key := setWithCachedTools(t, cfg, redactor, []json.RawMessage{tool}, tc.maskedBy)
			tools, err := set.Conns()[0].Tools(context.Background(), false)
			if err != nil || len(tools) != 1 {
				t.Fatalf("cached tools: %s, %v", tools, err)
			}
			if got := fieldOf(t, tools[0], "description"); got != tc.want {
				t.Errorf("description %q, want %q", got, tc.want)
			}
			entry, ok := cache.Load(key)
			if !ok || entry.MaskedBy != maskRules {
				t.Errorf("entry after loading: ok %v, maskedBy %d, want %d", ok, entry.MaskedBy, maskRules)
			}
			if strings.Contains(string(entry.raw), secret) || strings.Contains(string(entry.raw), "ghp_") {
				t.Errorf("entry still holds a secret: %s", entry.raw)
			}
		})
	}
}

// setWithCachedTools returns a Set of cfg (closed with the test) whose
// catalog cache held tools for it, saved under the masking rules
// maskedBy, before the Set loaded it; and that cache and the entry's key.
func setWithCachedTools(t *testing.T, cfg ServerConfig, redactor *Redactor, tools []json.RawMessage, maskedBy int) (*Set, *Cache, string) {
	t.Helper()
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	probe, err := NewSet([]ServerConfig{cfg}, Options{Cache: cache, Redactor: redactor})
	if err != nil {
		t.Fatal(err)
	}
	key := probe.Conns()[0].cacheKey
	probe.Close()
	if err := cache.SaveEntry(CacheEntry{ID: key, Tools: tools, MaskedBy: maskedBy}); err != nil {
		t.Fatal(err)
	}
	set, err := NewSet([]ServerConfig{cfg}, Options{Cache: cache, Redactor: redactor})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	return set, cache, key
}

// Saved search indexes: named by a 64-hex key only, refused past
// MaxSearchIndexBytes, and at most MaxSearchIndexes kept (the newest).
func TestCache_SearchIndexes(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) string { return strings.Repeat(fmt.Sprintf("%02x", i), 32) }
	for _, bad := range []string{"", "../" + key(1)[3:], strings.ToUpper(key(0xab)), key(1) + "0"} {
		if err := cache.SaveSearchIndex(bad, []byte("x")); err == nil {
			t.Errorf("SaveSearchIndex(%q) saved", bad)
		}
		if _, ok := cache.LoadSearchIndex(bad); ok {
			t.Errorf("LoadSearchIndex(%q) loaded", bad)
		}
	}
	for i := 0; i < MaxSearchIndexes+3; i++ {
		if err := cache.SaveSearchIndex(key(i), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		// Distinct times, oldest first, whatever the file system's clock.
		at := time.Now().Add(time.Duration(i-100) * time.Minute)
		if err := os.Chtimes(filepath.Join(cache.Dir(), searchIndexDir, key(i)+".idx"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	files, err := filepath.Glob(filepath.Join(cache.Dir(), searchIndexDir, "*"))
	if err != nil || len(files) != MaxSearchIndexes {
		t.Fatalf("%d files kept (%v), want %d", len(files), err, MaxSearchIndexes)
	}
	if _, ok := cache.LoadSearchIndex(key(0)); ok {
		t.Error("the oldest index was kept")
	}
	if data, ok := cache.LoadSearchIndex(key(MaxSearchIndexes + 2)); !ok || len(data) != 1 || data[0] != MaxSearchIndexes+2 {
		t.Errorf("the newest index: %v, %v", data, ok)
	}
	// A file past the limit (sparse: no disk is used) is not read.
	path := filepath.Join(cache.Dir(), searchIndexDir, key(MaxSearchIndexes+2)+".idx")
	if err := os.Truncate(path, MaxSearchIndexBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.LoadSearchIndex(key(MaxSearchIndexes + 2)); ok {
		t.Error("an index past MaxSearchIndexBytes was read")
	}
	if err := cache.SaveSearchIndex(key(1), make([]byte, MaxSearchIndexBytes+1)); err == nil {
		t.Error("an index past MaxSearchIndexBytes was saved")
	}
}

// The definitions of a loaded entry are slices of the file read, not
// copies of it.
func TestDecodeCacheEntry_SlicesDefinitions(t *testing.T) {
	data := realEntry(t)
	entry, err := decodeCacheEntry(data)
	if err != nil || len(entry.Tools) == 0 {
		t.Fatalf("decode: %v, %d tools", err, len(entry.Tools))
	}
	for i, tool := range entry.Tools {
		if !bytes.Contains(data, tool) || &tool[0] != &data[bytes.Index(data, tool)] {
			t.Fatalf("tool %d is not a slice of the entry's bytes", i)
		}
		if cap(tool) != len(tool) {
			t.Fatalf("tool %d can be appended to over the entry's bytes", i)
		}
	}
}

// An entry is written as json.Marshal writes it, and one holding a tool
// nested past encoding/json's 10,000 levels is written too, and read back
// whole; one an entry reader would refuse is not written.
func TestCache_SaveEntryDeepTool(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("cd", 16)
	plain := CacheEntry{Version: linedCacheVersion - 1, ID: id, SavedAt: time.Now().UTC(), Server: ServerInfo{Name: "s", Version: "1"},
		Tools: []json.RawMessage{json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)}, Prompts: []json.RawMessage{}, MaskedBy: 2}
	want, err := json.Marshal(plain)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := encodeCacheEntry(plain); err != nil || !bytes.Equal(got, want) {
		t.Errorf("encodeCacheEntry:\n %s (%v)\njson.Marshal:\n %s", got, err, want)
	}

	nested := func(n int) json.RawMessage {
		return json.RawMessage(`{"name":"deep","inputSchema":` + strings.Repeat(`{"a":`, n) + `{}` + strings.Repeat(`}`, n) + `}`)
	}
	deep := nested(20_000)
	if err := c.Save(id, ServerInfo{Name: "s"}, []json.RawMessage{json.RawMessage(`{"name":"a"}`), deep}); err != nil {
		t.Fatalf("a tool nested 20,000 levels kept the catalog out of the cache: %v", err)
	}
	entry, ok := c.Load(id)
	if !ok || len(entry.Tools) != 2 || !bytes.Equal(entry.Tools[1], deep) {
		t.Fatalf("loaded %v, %d tools; want both, the deep one whole", ok, len(entry.Tools))
	}
	if err := c.Save(id, ServerInfo{Name: "s"}, []json.RawMessage{nested(MaxAnswerNesting)}); err == nil {
		t.Error("saved an entry nested past MaxAnswerNesting, which Load refuses")
	}
}

// A catalog loaded from a cache entry comes with the digest the entry
// saved, for as long as it is the catalog at hand, whole: not when
// masking changed it on load (the saved digest is of what it was), not
// when a filter hides some of it, and not for a copy of it.
func TestConn_SavedToolsDigest(t *testing.T) {
	const secret = "hunter2hunter2"
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"a","description":"Lists the things.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"b","description":"Uses ` + secret + `.","inputSchema":{"type":"object"}}`),
	}
	for _, tc := range []struct {
		name    string
		secrets []string
		filter  ToolFilter
		want    bool
	}{
		{"as saved", nil, ToolFilter{}, true},
		{"masked on load", []string{"MY_API_TOKEN=" + secret}, ToolFilter{}, false},
		{"filtered", nil, ToolFilter{Deny: []string{"b"}}, false},
		{"filter hiding nothing", nil, ToolFilter{Deny: []string{"zzz"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ServerConfig{Name: "cached", Transport: TransportStdio, Command: "/nonexistent/never-started", Tools: tc.filter}
			redactor := NewRedactor(cfg)
			redactor.LearnEnviron(tc.secrets)
			set, _, _ := setWithCachedTools(t, cfg, redactor, tools, maskRules)
			conn := set.Conns()[0]
			atHand, ok := conn.ToolsAtHand()
			if !ok {
				t.Fatal("no tools at hand")
			}
			digest, ok := conn.SavedToolsDigest(atHand)
			if ok != tc.want {
				t.Fatalf("saved digest given %v, want %v", ok, tc.want)
			}
			if ok && digest != ToolsDigest(atHand) {
				t.Errorf("saved digest %x is not that of the tools at hand, %x", digest, ToolsDigest(atHand))
			}
			if _, ok := conn.SavedToolsDigest(slices.Clone(atHand)); ok {
				t.Error("a copy of the catalog was given its digest")
			}
		})
	}
}

// An entry is named by 32 lowercase hex digits only: anything else is
// neither saved nor loaded, so an ID can never name a path of its own.
func TestCache_EntryNamedByIDOnly(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	good := strings.Repeat("ab", 16)
	tools := []json.RawMessage{json.RawMessage(`{"name":"a"}`)}
	if err := cache.Save(good, ServerInfo{}, tools); err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.Load(good); !ok {
		t.Fatal("a good ID was not loaded")
	}
	for _, bad := range []string{"", "../" + good[3:], strings.ToUpper(good), good + "0", good[1:], good[:31] + "g", good[:31] + "/"} {
		if err := cache.Save(bad, ServerInfo{}, tools); err == nil {
			t.Errorf("Save(%q) saved", bad)
		}
		if _, ok := cache.Load(bad); ok {
			t.Errorf("Load(%q) loaded", bad)
		}
	}
}
