package connections

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func linedTestEntry() CacheEntry {
	return CacheEntry{Version: linedCacheVersion, ID: strings.Repeat("ab", 16), SavedAt: time.Now().UTC().Truncate(time.Second),
		Server: ServerInfo{Name: "s", Version: "1"},
		Tools: []json.RawMessage{
			json.RawMessage(`{"name":"a","description":"x,\u2028 \"]\" ,","inputSchema":{"type":"object"}}`),
			json.RawMessage(`{"name":"b","inputSchema":{"type":"object","properties":{"n":{"type":"number"}}}}`),
		},
		ResourceTemplates: []json.RawMessage{},
		Prompts:           []json.RawMessage{json.RawMessage(`{"name":"p"}`)},
		MaskedBy:          maskRules,
	}
}

// An entry written in lines is still JSON that the validating decoder
// reads as the same entry, and the lined reader gives it back with every
// item a slice of the file's bytes, without parsing them, and with the
// digest of its tools as saved.
func TestLinedEntry_RoundTrip(t *testing.T) {
	want := linedTestEntry()
	data, err := encodeCacheEntry(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("\n")) || !bytes.Contains(data, []byte(`"crc32c":`)) {
		t.Fatalf("not written in lines: %s", data)
	}
	validated, err := decodeCacheEntry(data)
	if err != nil {
		t.Fatalf("the validating decoder refuses a lined entry: %v\n%s", err, data)
	}
	lined, err := decodeLinedEntry(data)
	if err != nil {
		t.Fatalf("lined decode: %v\n%s", err, data)
	}
	if lined.toolsDigest == nil || *lined.toolsDigest != ToolsDigest(want.Tools) {
		t.Errorf("lined decode: tools digest %x, want %x", lined.toolsDigest, ToolsDigest(want.Tools))
	}
	if validated.toolsDigest != nil {
		t.Error("the validating decoder trusted a saved digest")
	}
	lined.toolsDigest = nil
	for _, got := range []CacheEntry{validated, lined} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("read back\n %+v\nwant\n %+v", got, want)
		}
	}
	for i, tool := range lined.Tools {
		if at := bytes.Index(data, tool); at < 0 || &tool[0] != &data[at] || cap(tool) != len(tool) {
			t.Errorf("tool %d is not a slice of the entry's bytes, closed to appends", i)
		}
	}
}

// Any change to a lined entry, even one that leaves it valid JSON, fails
// its checksum: the entry is read by the validating decoder instead, or
// refused with it.
func TestLinedEntry_ChangedIsValidated(t *testing.T) {
	data, err := encodeCacheEntry(linedTestEntry())
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func([]byte) []byte{
		"a byte of an item": func(d []byte) []byte { return bytes.Replace(d, []byte(`"name":"b"`), []byte(`"name":"c"`), 1) },
		"an item cut":       func(d []byte) []byte { return bytes.Replace(d, []byte(`{"name":"p"}`), []byte(`{"name":`), 1) },
		"the sum":           func(d []byte) []byte { return append(bytes.TrimSuffix(d, []byte("}")), []byte("1}")...) },
		"cut short":         func(d []byte) []byte { return d[:len(d)/2] },
		"the tools digest": func(d []byte) []byte {
			at := bytes.Index(d, []byte(`"toolsSha256":"`)) + len(`"toolsSha256":"`)
			if d[at] == '0' { // another hex digit: still valid JSON
				d[at] = '1'
			} else {
				d[at] = '0'
			}
			return d
		},
	} {
		changed := change(bytes.Clone(data))
		if _, err := decodeLinedEntry(changed); err == nil {
			t.Errorf("%s: read as lined", name)
		}
		validated, err := decodeCacheEntry(changed)
		if validated.toolsDigest != nil {
			t.Errorf("%s: the validating decoder trusted a saved digest", name)
		}
		if json.Valid(changed) != (err == nil) {
			t.Errorf("%s: the validating decoder says %v of JSON valid=%v", name, err, json.Valid(changed))
		}
		if err == nil && name == "a byte of an item" && !strings.Contains(string(validated.Tools[1]), `"name":"c"`) {
			t.Errorf("%s: read %s", name, validated.Tools[1])
		}
	}
}

// An item with a line break (a server's indented list) cannot go in
// lines: the entry is written as version 2, read back whole.
func TestLinedEntry_ItemWithLineBreak(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("ef", 16)
	indented := json.RawMessage("{\n  \"name\": \"a\"\n}")
	if err := c.Save(id, ServerInfo{Name: "s"}, []json.RawMessage{indented, json.RawMessage(`{"name":"b"}`)}); err != nil {
		t.Fatal(err)
	}
	entry, ok := c.Load(id)
	if !ok || entry.Version != linedCacheVersion-1 || len(entry.Tools) != 2 || !bytes.Equal(entry.Tools[0], indented) {
		t.Fatalf("loaded %v, version %d, tools %q", ok, entry.Version, entry.Tools)
	}
}

// A lined entry saved and loaded through the cache.
func TestCache_SavesLined(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := linedTestEntry()
	if err := c.SaveEntry(want); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Load(want.ID)
	if !ok || got.Version != linedCacheVersion || !reflect.DeepEqual(got.Tools, want.Tools) || !reflect.DeepEqual(got.Prompts, want.Prompts) ||
		got.Resources != nil || got.ResourceTemplates == nil {
		t.Fatalf("loaded %v: %+v", ok, got)
	}
}

// An entry of an older version, or of version 3 saved without its tools
// digest, is outdated (saved again on load) unless an item's line break
// keeps it at version 2 anyway.
func TestCacheEntry_Outdated(t *testing.T) {
	e := linedTestEntry()
	if !e.outdated() {
		t.Error("a version 3 entry without its tools digest is not outdated")
	}
	digest := ToolsDigest(e.Tools)
	e.toolsDigest = &digest
	if e.outdated() {
		t.Error("a version 3 entry with its digest is outdated")
	}
	e.Version = 2
	if !e.outdated() {
		t.Error("a version 2 entry that lines could carry is not outdated")
	}
	e.Tools = append(e.Tools, json.RawMessage("{\n}"))
	if e.outdated() {
		t.Error("a version 2 entry with a line break in an item is outdated: it would be saved on every load")
	}
}
