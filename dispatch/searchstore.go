package dispatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"

	"dispatch/connections"
	"dispatch/toolsearch"
)

// A search index is saved in the catalog cache under a hash of everything
// it is made from (contentKey), so that the next one-shot search over the
// same catalogs loads it instead of parsing every tool and building it
// again. The catalogs it hashes are the masked ones loaded now, so an
// index made before a secret was learned is never used after: the masked
// catalog differs, and so does the key.

// savedIndexMagic starts a saved index; savedIndexVersion changes with its
// layout (toolsearch versions its own part).
const (
	savedIndexMagic   = "dispatch-search\n"
	savedIndexVersion = 2
)

// savedIndexSum is the checksum of a saved index's body. It guards against
// a damaged file, not a forged one (whoever can write the cache can write
// any index): a CRC-32C, which the CPU computes at memory speed, where the
// SHA-256 of version 1 cost a warm search 0.1 ms over 150 KB.
var savedIndexSum = crc32.MakeTable(crc32.Castagnoli)

// savedIndexSumBytes is the checksum's size in the file.
const savedIndexSumBytes = 4

// errSavedIndex wraps every reason a saved index is not used.
var errSavedIndex = errors.New("saved search index unusable")

// contentKey hashes the catalogs in order, every object as published, and
// the running executable: another build of dispatch may index otherwise.
// A tool catalog is hashed as its digest (connections.ToolsDigest), the
// one its cache entry saved when it was loaded from one: hashing some
// 300 KB of definitions again was a tenth of a warm search.
func (src indexSources) contentKey() string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	write := func(b []byte) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))])
		h.Write(b)
	}
	write([]byte(savedIndexMagic))
	write([]byte(executableIdentity()))
	for _, cat := range src.tools {
		write([]byte("t" + cat.conn.Alias))
		if cat.err != nil {
			write(nil)
			continue
		}
		digest, ok := cat.conn.SavedToolsDigest(cat.tools)
		if !ok {
			digest = connections.ToolsDigest(cat.tools)
		}
		write(digest[:])
	}
	for _, cat := range src.resources {
		write([]byte("r" + cat.conn.Alias))
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(cat.resources)))])
		for _, r := range cat.resources {
			write(r.Raw)
		}
	}
	for _, cat := range src.prompts {
		write([]byte("p" + cat.conn.Alias))
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(cat.prompts)))])
		for _, p := range cat.prompts {
			write(p.Raw)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// executableIdentity names the running binary by path, size and time, or
// is empty when it cannot be found (then only the format versions guard
// against an index another build saved).
func executableIdentity() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", path, info.Size(), info.ModTime().UnixNano())
}

// save encodes index and where each of its docs comes from: magic,
// version, a CRC-32C of the rest (4 bytes, big-endian), the refs, then
// toolsearch's own bytes.
func (src indexSources) save(index *toolsearch.Index, refs []docRef) ([]byte, error) {
	blob, err := index.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode search index: %w", err)
	}
	body := binary.AppendUvarint(nil, uint64(len(refs)))
	for _, r := range refs {
		body = binary.AppendUvarint(body, uint64(r.kind))
		body = binary.AppendUvarint(body, uint64(r.cat))
		body = binary.AppendUvarint(body, uint64(r.item))
	}
	body = append(body, blob...)
	out := binary.AppendUvarint([]byte(savedIndexMagic), savedIndexVersion)
	out = binary.BigEndian.AppendUint32(out, crc32.Checksum(body, savedIndexSum))
	return append(out, body...), nil
}

// load decodes what save wrote for these catalogs, checking that every doc
// refers to an object of them of its own connection and kind.
func (src indexSources) load(data []byte) (*searchIndex, error) {
	rest, ok := bytes.CutPrefix(data, []byte(savedIndexMagic))
	if !ok {
		return nil, fmt.Errorf("%w: not a saved search index", errSavedIndex)
	}
	version, n := binary.Uvarint(rest)
	if n <= 0 || version != savedIndexVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", errSavedIndex, version, savedIndexVersion)
	}
	rest = rest[n:]
	if len(rest) < savedIndexSumBytes {
		return nil, fmt.Errorf("%w: truncated", errSavedIndex)
	}
	sum, body := binary.BigEndian.Uint32(rest), rest[savedIndexSumBytes:]
	if crc32.Checksum(body, savedIndexSum) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errSavedIndex)
	}
	count, n := binary.Uvarint(body)
	// Each ref takes at least three bytes.
	if n <= 0 || count > uint64(len(body)/3) {
		return nil, fmt.Errorf("%w: bad count of docs", errSavedIndex)
	}
	body = body[n:]
	refs := make([]docRef, count)
	for i := range refs {
		var v [3]uint64
		for j := range v {
			x, n := binary.Uvarint(body)
			if n <= 0 || x > 1<<31 {
				return nil, fmt.Errorf("%w: bad doc reference", errSavedIndex)
			}
			v[j], body = x, body[n:]
		}
		refs[i] = docRef{kind: int(v[0]), cat: int(v[1]), item: int(v[2])}
	}
	index, err := toolsearch.LoadIndex(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSavedIndex, err)
	}
	if index.Len() != len(refs) {
		return nil, fmt.Errorf("%w: %d docs for %d references", errSavedIndex, index.Len(), len(refs))
	}
	loaded := &searchIndex{index: index, entries: make([]searchEntry, len(refs))}
	for i, ref := range refs {
		doc := index.Doc(i)
		if err := src.check(ref, doc); err != nil {
			return nil, fmt.Errorf("%w: doc %d: %w", errSavedIndex, i, err)
		}
		loaded.entries[i] = src.entry(ref, doc.Name)
		switch ref.kind {
		case refTool:
			loaded.tools++
		case refResource:
			loaded.resources++
		default:
			loaded.prompts++
		}
	}
	return loaded, nil
}
