package connections

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"dispatch/rawjson"
	"dispatch/safefile"
)

// cacheVersion changes when the entry format does. Version 2 added the
// server's capabilities, resources, resource templates and prompts; a
// version 1 entry is still read, for its tools (the rest is fetched when
// first needed). Any other version is ignored and rebuilt.
// Version 3 is version 2 written a line per item and closed by a
// checksum (see encodeLinedEntry); an entry with an item holding a line
// break is still written as version 2.
const (
	cacheVersion       = 3
	oldestCacheVersion = 1
)

// Cache stores each server's raw catalog (tools, resources, resource
// templates, prompts) on disk, keyed by connection
// ID, so list, search and info can be answered without starting any
// server. A changed config has a new ID and so never reuses a stale entry;
// a corrupt entry is ignored and rewritten, never fatal.
type Cache struct {
	dir string
}

// CacheEntry is one server's catalog as last seen. A null list (resources,
// resourceTemplates, prompts) was never listed; an empty one is known to
// be empty. Server.Capabilities is absent until the server was started.
type CacheEntry struct {
	Version           int               `json:"version"`
	ID                string            `json:"id"`
	SavedAt           time.Time         `json:"savedAt"`
	Server            ServerInfo        `json:"server"`
	Tools             []json.RawMessage `json:"tools"`
	Resources         []json.RawMessage `json:"resources"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
	Prompts           []json.RawMessage `json:"prompts"`
	// MaskedBy is the maskRules the entry's text was masked by when it
	// was saved; 0 (an older dispatch, or a caller that did not mask) is
	// masked again whole when loaded.
	MaskedBy int `json:"maskedBy,omitempty"`
	// raw is the file Load read the entry from.
	raw []byte
	// toolsDigest is ToolsDigest(Tools) as saved with the entry, when
	// the file was read back checksum-verified (decodeLinedEntry); nil
	// when not known.
	toolsDigest *[sha256.Size]byte
}

// DefaultCacheDir is $XDG_CACHE_HOME/dispatch (~/.cache/dispatch).
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find cache directory: %w (set --cache-dir or --no-cache)", err)
	}
	return filepath.Join(base, "dispatch"), nil
}

// OpenCache uses dir for catalogs, creating it (0700) if needed.
func OpenCache(dir string) (*Cache, error) {
	dir = filepath.Join(dir, "catalogs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cache directory: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir is where the catalogs are.
func (c *Cache) Dir() string { return c.dir }

// lowerHex reports whether s is n lowercase hexadecimal digits: an ID
// (n 32) or a search index key (n 64). Every one-shot command names every
// server's entry: compiling a regexp for it was 40 µs of a warm search.
func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (c *Cache) path(id string) (string, error) {
	if !lowerHex(id, 32) {
		return "", fmt.Errorf("invalid connection ID %q", id)
	}
	return filepath.Join(c.dir, id+".json"), nil
}

// Load returns the entry for id; ok is false when there is none or it
// cannot be used (corrupt, another version, another ID).
func (c *Cache) Load(id string) (entry CacheEntry, ok bool) {
	path, err := c.path(id)
	if err != nil {
		return CacheEntry{}, false
	}
	data, err := readCacheFile(path, maxCacheEntryBytes)
	if err != nil {
		return CacheEntry{}, false
	}
	entry, err = decodeLinedEntry(data)
	if err != nil {
		entry, err = decodeCacheEntry(data)
	}
	if err != nil || entry.Version < oldestCacheVersion || entry.Version > cacheVersion || entry.ID != id || entry.Tools == nil {
		return CacheEntry{}, false
	}
	entry.raw = data
	return entry, true
}

// decodeCacheEntry reads an entry with gjson: every one-shot command loads
// every server's entry, hundreds of kilobytes of tool schemas that
// encoding/json would scan twice and copy; here they are validated once
// and each definition is sliced out whole. A member of the wrong type is
// an error, as it is for json.Unmarshal.
func decodeCacheEntry(data []byte) (CacheEntry, error) {
	var entry CacheEntry
	// Bounded first: gjson's validator recurses once per level.
	if !rawjson.NestingWithin(data, MaxAnswerNesting) || !gjson.ValidBytes(data) {
		return entry, errors.New("decode catalog: invalid JSON")
	}
	// A view of data, not ParseBytes, which copies it: the definitions
	// returned are slices of data, which nothing writes to once read.
	top := gjson.Parse(unsafe.String(unsafe.SliceData(data), len(data)))
	if !top.IsObject() {
		return entry, errors.New("decode catalog: not an object")
	}
	var err error
	top.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "version":
			err = json.Unmarshal([]byte(value.Raw), &entry.Version)
		case "id":
			err = json.Unmarshal([]byte(value.Raw), &entry.ID)
		case "savedAt":
			err = json.Unmarshal([]byte(value.Raw), &entry.SavedAt)
		case "server":
			err = json.Unmarshal([]byte(value.Raw), &entry.Server)
		case "tools":
			entry.Tools, err = rawList(data, value)
		case "resources":
			entry.Resources, err = rawList(data, value)
		case "resourceTemplates":
			entry.ResourceTemplates, err = rawList(data, value)
		case "prompts":
			entry.Prompts, err = rawList(data, value)
		case "maskedBy":
			err = json.Unmarshal([]byte(value.Raw), &entry.MaskedBy)
		}
		if err != nil {
			err = fmt.Errorf("decode catalog: %s: %w", key.Str, err)
		}
		return err == nil
	})
	return entry, err
}

// rawList returns the elements of a JSON array of data, each as it is
// written, sliced out of data (copied only if gjson cannot say where it
// is); null is a nil list, as for json.Unmarshal.
func rawList(data []byte, value gjson.Result) ([]json.RawMessage, error) {
	if value.Type == gjson.Null {
		return nil, nil
	}
	if !value.IsArray() {
		return nil, errors.New("not an array")
	}
	list := []json.RawMessage{}
	value.ForEach(func(_, item gjson.Result) bool {
		at, end := item.Index, item.Index+len(item.Raw)
		if at > 0 && end <= len(data) && string(data[at:end]) == item.Raw {
			list = append(list, json.RawMessage(data[at:end:end]))
		} else {
			list = append(list, json.RawMessage(item.Raw))
		}
		return true
	})
	return list, nil
}

// Save writes an entry of tools only for id (see SaveEntry).
func (c *Cache) Save(id string, info ServerInfo, tools []json.RawMessage) error {
	return c.SaveEntry(CacheEntry{ID: id, Server: info, Tools: tools})
}

// SaveEntry writes entry (its version and time set here) atomically: a
// reader sees the old entry or the new one, never half of one.
func (c *Cache) SaveEntry(entry CacheEntry) error {
	id := entry.ID
	path, err := c.path(id)
	if err != nil {
		return err
	}
	entry.Version, entry.SavedAt = cacheVersion, time.Now().UTC()
	data, err := encodeCacheEntry(entry)
	if err != nil {
		return fmt.Errorf("encode catalog: %w", err)
	}
	if err := writeAtomically(c.dir, path, data); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	return nil
}

// encodeCacheEntry is json.Marshal(entry) for an entry whose items may
// nest past the 10,000 levels encoding/json writes: a tool with a schema
// that deep (a stdio server's messages may nest up to MaxAnswerNesting)
// kept its whole catalog out of the cache, and every command started the
// server again. Each item is written as it is, once checked valid and
// within the depth decodeCacheEntry reads (MaxAnswerNesting, counting the
// entry's object and its list).
func encodeCacheEntry(entry CacheEntry) ([]byte, error) {
	if entry.Version == linedCacheVersion {
		if data, ok, err := encodeLinedEntry(entry); ok || err != nil {
			return data, err
		}
		entry.Version = linedCacheVersion - 1
	}
	data, err := json.Marshal(cacheHeader{Version: entry.Version, ID: entry.ID, SavedAt: entry.SavedAt, Server: entry.Server})
	if err != nil {
		return nil, err
	}
	data = data[:len(data)-1] // reopened for the lists
	for l, items := range entry.lists() {
		data = append(data, `,"`+entryLists[l]+`":`...)
		if items == nil {
			data = append(data, "null"...)
			continue
		}
		data = append(data, '[')
		for i, item := range items {
			if err := checkCacheItem(entryLists[l], i, item); err != nil {
				return nil, err
			}
			if i > 0 {
				data = append(data, ',')
			}
			data = append(data, item...)
		}
		data = append(data, ']')
	}
	if entry.MaskedBy != 0 {
		data = fmt.Appendf(data, `,"maskedBy":%d`, entry.MaskedBy)
	}
	return append(data, '}'), nil
}

// cacheHeader is a CacheEntry's members before its lists; encodeCacheEntry
// writes the rest itself, in CacheEntry's order.
type cacheHeader struct {
	Version int        `json:"version"`
	ID      string     `json:"id"`
	SavedAt time.Time  `json:"savedAt"`
	Server  ServerInfo `json:"server"`
}

// Saved search indexes live beside the catalogs, one file per set of
// catalogs (named by a hash of them, see dispatch), so that a one-shot
// search need not build the index again. They are bounded in size and in
// number: the least recently written beyond MaxSearchIndexes are removed.
const (
	// MaxSearchIndexBytes bounds one saved search index; a larger file is
	// neither written nor read.
	MaxSearchIndexBytes = 64 << 20
	// MaxSearchIndexes bounds how many saved search indexes are kept.
	MaxSearchIndexes = 8
	searchIndexDir   = "search-index"
)

func (c *Cache) indexPath(key string) (string, error) {
	if !lowerHex(key, 64) {
		return "", fmt.Errorf("invalid search index key %q", key)
	}
	return filepath.Join(c.dir, searchIndexDir, key+".idx"), nil
}

// LoadSearchIndex returns the search index saved under key; ok is false
// when there is none, or it is larger than MaxSearchIndexBytes. What it
// holds is for the caller to check.
func (c *Cache) LoadSearchIndex(key string) (data []byte, ok bool) {
	path, err := c.indexPath(key)
	if err != nil {
		return nil, false
	}
	data, err = readCacheFile(path, MaxSearchIndexBytes)
	return data, err == nil
}

// maxCacheEntryBytes bounds one cached catalog entry read back: far past
// any real server's catalog, and short of what reading would exhaust.
const maxCacheEntryBytes = 512 << 20

// readCacheFile reads a regular file of at most limit bytes into a buffer
// of its size, never blocking on a FIFO or reading a device someone put
// in the cache.
func readCacheFile(path string, limit int64) ([]byte, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	// Sized by the file, then read to its end: one that grew meanwhile is
	// still refused past its size.
	data := make([]byte, info.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 {
		return nil, fmt.Errorf("%s: grew while read", path)
	}
	return data, nil
}

// SaveSearchIndex writes data under key atomically, then removes the
// oldest saved indexes beyond MaxSearchIndexes.
func (c *Cache) SaveSearchIndex(key string, data []byte) error {
	path, err := c.indexPath(key)
	if err != nil {
		return err
	}
	if len(data) > MaxSearchIndexBytes {
		return fmt.Errorf("search index of %d bytes is larger than %d", len(data), MaxSearchIndexBytes)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("search index directory: %w", err)
	}
	if err := writeAtomically(dir, path, data); err != nil {
		return fmt.Errorf("write search index: %w", err)
	}
	return pruneOldest(dir, ".idx", MaxSearchIndexes)
}

// writeAtomically writes data to path through a temporary file in dir, so
// that a reader sees the old file or the new one, never half of one.
func writeAtomically(dir, path string, data []byte) error {
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return errors.Join(err, tmp.Close(), os.Remove(tmp.Name()))
	}
	if err := tmp.Close(); err != nil {
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	if err := replaceFile(tmp.Name(), path); err != nil {
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	return nil
}

// pruneOldest removes the files of dir ending in ext beyond the keep most
// recently modified.
func pruneOldest(dir, ext string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("prune search indexes: %w", err)
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ext {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{e.Name(), info.ModTime()})
		}
	}
	if len(files) <= keep {
		return nil
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	var errs []error
	for _, f := range files[keep:] {
		if err := os.Remove(filepath.Join(dir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("prune search indexes: %w", err)
	}
	return nil
}
