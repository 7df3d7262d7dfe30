package connections

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// cacheVersion changes when the entry format does. Version 2 added the
// server's capabilities, resources, resource templates and prompts; a
// version 1 entry is still read, for its tools (the rest is fetched when
// first needed). Any other version is ignored and rebuilt.
const (
	cacheVersion       = 2
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

var validID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (c *Cache) path(id string) (string, error) {
	if !validID.MatchString(id) {
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
	data, err := os.ReadFile(path)
	if err != nil {
		return CacheEntry{}, false
	}
	if err := json.Unmarshal(data, &entry); err != nil || entry.Version < oldestCacheVersion || entry.Version > cacheVersion || entry.ID != id || entry.Tools == nil {
		return CacheEntry{}, false
	}
	return entry, true
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
	data, err := json.Marshal(entry)
	if err != nil {
		return fmt.Errorf("encode catalog: %w", err)
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-"+id+"-*")
	if err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return errors.Join(fmt.Errorf("write catalog: %w", err), tmp.Close(), os.Remove(tmp.Name()))
	}
	if err := tmp.Close(); err != nil {
		return errors.Join(fmt.Errorf("write catalog: %w", err), os.Remove(tmp.Name()))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return errors.Join(fmt.Errorf("write catalog: %w", err), os.Remove(tmp.Name()))
	}
	return nil
}
