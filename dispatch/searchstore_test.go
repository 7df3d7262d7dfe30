package dispatch

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"dispatch/connections"
)

// testSources are two connections' tool catalogs (never started) and one
// prompt catalog, to build, save and load indexes over.
func testSources(t testing.TB) indexSources {
	t.Helper()
	var configs []connections.ServerConfig
	for i := 0; i < 2; i++ {
		configs = append(configs, connections.ServerConfig{Name: fmt.Sprintf("s%d", i),
			Transport: connections.TransportStdio, Command: "/nonexistent/never-started", Args: []string{fmt.Sprint(i)}})
	}
	set, err := connections.NewSet(configs, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	conns := set.Conns()
	src := indexSources{}
	for i, c := range conns {
		var tools []json.RawMessage
		for j := 0; j < 5; j++ {
			tools = append(tools, json.RawMessage(fmt.Sprintf(
				`{"name":"tool_%d_%d","description":"Create support tickets number %d.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}`, i, j, j)))
		}
		tools = append(tools, json.RawMessage(`{"name":"","description":"no name: left out"}`))
		src.tools = append(src.tools, rawToolCatalog{conn: c, tools: tools})
	}
	src.prompts = []sideCatalog{{conn: conns[1], prompts: []promptDef{{Name: "greet", Raw: json.RawMessage(`{"name":"greet","description":"Say hello."}`)}}}}
	return src
}

// withChecksum wraps body as save does, so that a test can hand load a
// body whose checksum is right but whose content is hostile.
func withChecksum(body []byte) []byte {
	out := binary.AppendUvarint([]byte(savedIndexMagic), savedIndexVersion)
	out = binary.BigEndian.AppendUint32(out, crc32.Checksum(body, savedIndexSum))
	return append(out, body...)
}

func TestSavedIndex_RoundTrip(t *testing.T) {
	src := testSources(t)
	built, refs := src.build()
	data, err := src.save(built.index, refs)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := src.load(data)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.tools != built.tools || loaded.prompts != built.prompts || loaded.tools != 10 || loaded.prompts != 1 {
		t.Errorf("loaded %d tools and %d prompts, built %d and %d", loaded.tools, loaded.prompts, built.tools, built.prompts)
	}
	for _, q := range []string{"create support tickets", "tool_1_3", "greet", "say hello"} {
		want, got := built.index.Search(q, 0), loaded.index.Search(q, 0)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: loaded %v, built %v", q, got, want)
		}
		for _, h := range got {
			if w, g := built.entries[h.Doc], loaded.entries[h.Doc]; w.conn != g.conn || string(w.tool) != string(g.tool) || w.prompt != g.prompt {
				t.Errorf("%q: doc %d stands for %+v loaded, %+v built", q, h.Doc, g, w)
			}
		}
	}
}

// A saved index whose checksum is right but whose references point past
// the catalogs, at another connection or kind, or whose counts are absurd,
// is refused: never a panic, never an entry of the wrong object.
func TestSavedIndex_HostileReferences(t *testing.T) {
	src := testSources(t)
	built, refs := src.build()
	good, err := src.save(built.index, refs)
	if err != nil {
		t.Fatal(err)
	}
	blob, err := built.index.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	body := func(refs []docRef, n uint64) []byte {
		b := binary.AppendUvarint(nil, n)
		for _, r := range refs {
			for _, v := range []int{r.kind, r.cat, r.item} {
				b = binary.AppendUvarint(b, uint64(v))
			}
		}
		return append(b, blob...)
	}
	with := func(i int, r docRef) []docRef {
		out := append([]docRef{}, refs...)
		out[i] = r
		return out
	}
	last := len(refs) - 1 // the prompt
	checksums := map[string]bool{"checksum of another": true, "no checksum": true}
	for name, data := range map[string][]byte{
		"item past the catalog":   withChecksum(body(with(0, docRef{refTool, 0, 6}), uint64(len(refs)))),
		"catalog past the list":   withChecksum(body(with(0, docRef{refTool, 2, 0}), uint64(len(refs)))),
		"unknown kind":            withChecksum(body(with(0, docRef{7, 0, 0}), uint64(len(refs)))),
		"tool of another server":  withChecksum(body(with(0, docRef{refTool, 1, 0}), uint64(len(refs)))),
		"tool as a prompt":        withChecksum(body(with(0, docRef{refPrompt, 0, 0}), uint64(len(refs)))),
		"prompt as a tool":        withChecksum(body(with(last, docRef{refTool, 1, 0}), uint64(len(refs)))),
		"one reference short":     withChecksum(body(refs[:last], uint64(last))),
		"huge count":              withChecksum(body(refs, 1<<40)),
		"reference past 2^31":     withChecksum(body(with(0, docRef{refTool, 0, 1 << 32}), uint64(len(refs)))),
		"checksum of another":     append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^1),
		"no checksum":             binary.AppendUvarint([]byte(savedIndexMagic), savedIndexVersion),
		"index bytes not a index": withChecksum(append(binary.AppendUvarint(nil, 0), "junk"...)),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := src.load(data)
			if !errors.Is(err, errSavedIndex) {
				t.Errorf("err %v, want errSavedIndex", err)
			}
			// Refused for what it holds, not before it is read.
			if bad := err != nil && (strings.Contains(err.Error(), "checksum") || strings.Contains(err.Error(), "truncated")); bad != checksums[name] {
				t.Errorf("err %v: refused by its checksum %v, want %v", err, bad, checksums[name])
			}
		})
	}
	// The same file over other catalogs (a server's list shrank) is
	// refused too, though the key would normally differ.
	shrunk := src
	shrunk.tools = []rawToolCatalog{src.tools[0], {conn: src.tools[1].conn, tools: src.tools[1].tools[:2]}}
	if _, err := shrunk.load(good); !errors.Is(err, errSavedIndex) {
		t.Errorf("over a shrunk catalog: err %v, want errSavedIndex", err)
	}
}

// FuzzSavedIndexLoad: any body, with a valid checksum, loads or is
// refused; what loads can be searched, and its entries are objects of
// the catalogs.
func FuzzSavedIndexLoad(f *testing.F) {
	src := testSources(f)
	built, refs := src.build()
	good, err := src.save(built.index, refs)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good[len(savedIndexMagic)+1+savedIndexSumBytes:])
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, body []byte) {
		loaded, err := src.load(withChecksum(body))
		if err != nil {
			if !errors.Is(err, errSavedIndex) {
				t.Fatalf("error %v does not wrap errSavedIndex", err)
			}
			return
		}
		for _, q := range []string{"create support tickets", "greet", "tool"} {
			for _, h := range loaded.index.Search(q, 0) {
				if e := loaded.entries[h.Doc]; e.conn == nil || (e.tool == nil && e.prompt == nil && e.resource == nil) {
					t.Fatalf("hit %d has no object: %+v", h.Doc, e)
				}
			}
		}
	})
}
