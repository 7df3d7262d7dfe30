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

// cacheVersion changes when the entry format does; older entries are
// ignored and rebuilt.
const cacheVersion = 1

// Cache stores each server's raw tool catalog on disk, keyed by connection
// ID, so list, search and info can be answered without starting any
// server. A changed config has a new ID and so never reuses a stale entry;
// a corrupt entry is ignored and rewritten, never fatal.
type Cache struct {
	dir string
}

// CacheEntry is one server's catalog as last seen.
type CacheEntry struct {
	Version int               `json:"version"`
	ID      string            `json:"id"`
	SavedAt time.Time         `json:"savedAt"`
	Server  ServerInfo        `json:"server"`
	Tools   []json.RawMessage `json:"tools"`
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
	if err := json.Unmarshal(data, &entry); err != nil || entry.Version != cacheVersion || entry.ID != id || entry.Tools == nil {
		return CacheEntry{}, false
	}
	return entry, true
}

// Save writes the entry for id atomically: a reader sees the old entry or
// the new one, never half of one.
func (c *Cache) Save(id string, info ServerInfo, tools []json.RawMessage) error {
	path, err := c.path(id)
	if err != nil {
		return err
	}
	data, err := json.Marshal(CacheEntry{Version: cacheVersion, ID: id, SavedAt: time.Now().UTC(), Server: info, Tools: tools})
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
