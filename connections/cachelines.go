package connections

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"

	"github.com/tidwall/gjson"

	"dispatch/rawjson"
)

// A one-shot list or search loads every server's cached catalog, and
// validating and splitting hundreds of kilobytes of tool schemas with
// gjson was half the work of building its connections (three passes over
// every byte). An entry dispatch writes is therefore laid out so that it
// can be read back without parsing its items: still one JSON object, the
// same members as version 2, but each item on a line of its own, and a
// CRC-32C of everything before it as the last member:
//
//	{"version":3,"id":"…","savedAt":"…","server":{…},"maskedBy":1,"toolsSha256":"…"
//	,"tools":[
//	{…},
//	{…}
//	]
//	,"resources":null
//	,"resourceTemplates":[
//	]
//	,"prompts":[
//	{…}
//	]
//	,"crc32c":1234567890}
//
// The items were checked valid when written (encodeCacheEntry), and the
// checksum says the file is still what was written: the lines are
// trusted then, and split with a byte search. Anything else (an older
// version, an edited or damaged file, a line out of place) is read by
// decodeCacheEntry, which validates all of it.
//
// toolsSha256 is ToolsDigest of the tools, so that a one-shot search can
// find its saved index by the catalogs' digests without hashing every
// definition again (dispatch's contentKey); it is trusted, as the lines
// are, only when the checksum holds. An entry written before it existed
// has none, and is saved again with one (outdated).

// linedCacheVersion is the version written in lines.
const linedCacheVersion = 3

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// entryLists name an entry's lists in the order both formats write them.
var entryLists = [...]string{"tools", "resources", "resourceTemplates", "prompts"}

const linedSumMember = "\n,\"crc32c\":"

// encodeLinedEntry writes entry in lines; ok is false, with nothing
// written, when an item holds a line break (a server may send its list
// indented), which the lines could not carry.
func encodeLinedEntry(entry CacheEntry) (data []byte, ok bool, err error) {
	lists := entry.lists()
	if holdsLineBreak(lists) {
		return nil, false, nil
	}
	size := 512
	for _, list := range lists {
		for _, item := range list {
			size += len(item) + 2
		}
	}
	data, err = json.Marshal(cacheHeader{Version: entry.Version, ID: entry.ID, SavedAt: entry.SavedAt, Server: entry.Server})
	if err != nil {
		return nil, false, err
	}
	data = append(make([]byte, 0, size+len(data)), data[:len(data)-1]...) // reopened
	if entry.MaskedBy != 0 {
		data = fmt.Appendf(data, `,"maskedBy":%d`, entry.MaskedBy)
	}
	digest := ToolsDigest(entry.Tools)
	data = append(data, `,"toolsSha256":"`...)
	data = hex.AppendEncode(data, digest[:])
	data = append(data, '"')
	for l, list := range lists {
		data = append(data, "\n,\""+entryLists[l]+"\":"...)
		if list == nil {
			data = append(data, "null"...)
			continue
		}
		data = append(data, '[')
		for i, item := range list {
			if err := checkCacheItem(entryLists[l], i, item); err != nil {
				return nil, false, err
			}
			data = append(data, '\n')
			data = append(data, item...)
			if i < len(list)-1 {
				data = append(data, ',')
			}
		}
		data = append(data, "\n]"...)
	}
	sum := crc32.Checksum(data, castagnoli)
	data = append(data, linedSumMember...)
	data = strconv.AppendUint(data, uint64(sum), 10)
	return append(data, '}'), true, nil
}

// outdated reports whether e, as loaded, is of a version older than the
// one it would be saved as now.
func (e CacheEntry) outdated() bool {
	// Saved again with a line break in an item, it would be version 2
	// still.
	if holdsLineBreak(e.lists()) {
		return false
	}
	return e.Version < linedCacheVersion || (e.Version == linedCacheVersion && e.toolsDigest == nil)
}

// ToolsDigest is a SHA-256 of tools, each definition as it is: what a
// cache entry saves of its tools (toolsSha256) and what a catalog not
// loaded from one is hashed to in its stead.
func ToolsDigest(tools []json.RawMessage) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(tools)))])
	for _, raw := range tools {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(raw)))])
		h.Write(raw)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// lists are e's lists in the order entryLists names them.
func (e CacheEntry) lists() [len(entryLists)][]json.RawMessage {
	return [...][]json.RawMessage{e.Tools, e.Resources, e.ResourceTemplates, e.Prompts}
}

// holdsLineBreak reports whether an item of lists holds a line break.
func holdsLineBreak(lists [len(entryLists)][]json.RawMessage) bool {
	for _, list := range lists {
		for _, item := range list {
			if bytes.IndexByte(item, '\n') >= 0 {
				return true
			}
		}
	}
	return false
}

// checkCacheItem says why item, the i-th of list, is not one an entry may
// hold: valid JSON within the depth decodeCacheEntry reads
// (MaxAnswerNesting, counting the entry's object and its list).
func checkCacheItem(list string, i int, item []byte) error {
	if !rawjson.NestingWithin(item, MaxAnswerNesting-2) || !gjson.ValidBytes(item) {
		return fmt.Errorf("%s: item %d is not valid JSON within %d levels", list, i, MaxAnswerNesting-2)
	}
	return nil
}

var errNotLined = errors.New("not a lined cache entry")

// hexDecodes decodes text into dst and reports whether it was exactly
// len(dst) bytes of hexadecimal; text of any other length is not decoded
// (hex.Decode would write past dst).
func hexDecodes(dst []byte, text string) bool {
	if len(text) != hex.EncodedLen(len(dst)) {
		return false
	}
	n, err := hex.Decode(dst, []byte(text))
	return err == nil && n == len(dst)
}

// decodeLinedEntry reads an entry encodeLinedEntry wrote, its items
// slices of data; any other data is errNotLined (decodeCacheEntry reads
// it).
func decodeLinedEntry(data []byte) (CacheEntry, error) {
	var entry CacheEntry
	at := bytes.LastIndex(data, []byte(linedSumMember))
	if at < 0 || data[len(data)-1] != '}' {
		return entry, errNotLined
	}
	sum, err := strconv.ParseUint(string(data[at+len(linedSumMember):len(data)-1]), 10, 32)
	if err != nil || uint32(sum) != crc32.Checksum(data[:at], castagnoli) {
		return entry, errNotLined
	}
	body := data[:at]
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return entry, errNotLined
	}
	var header struct {
		cacheHeader
		MaskedBy    int    `json:"maskedBy"`
		ToolsSHA256 string `json:"toolsSha256"`
	}
	if json.Unmarshal(append(body[:nl:nl], '}'), &header) != nil || header.Version != linedCacheVersion {
		return entry, errNotLined
	}
	entry.Version, entry.ID, entry.SavedAt, entry.Server, entry.MaskedBy =
		header.Version, header.ID, header.SavedAt, header.Server, header.MaskedBy
	var digest [sha256.Size]byte
	if hexDecodes(digest[:], header.ToolsSHA256) {
		entry.toolsDigest = &digest
	}
	lists := [...]*[]json.RawMessage{&entry.Tools, &entry.Resources, &entry.ResourceTemplates, &entry.Prompts}
	rest := body[nl+1:]
	line := func() []byte {
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest)
		}
		l := rest[:end:end]
		rest = rest[min(end+1, len(rest)):]
		return l
	}
	for l, name := range entryLists {
		opener := line()
		key := []byte(`,"` + name + `":`)
		switch {
		case string(opener) == string(key)+"null":
			continue
		case string(opener) != string(key)+"[":
			return CacheEntry{}, errNotLined
		}
		list := []json.RawMessage{}
		for {
			item := line()
			if string(item) == "]" {
				break
			}
			if len(item) == 0 { // the end, with no "]"
				return CacheEntry{}, errNotLined
			}
			item = bytes.TrimSuffix(item, []byte{','})
			list = append(list, json.RawMessage(item[:len(item):len(item)]))
		}
		*lists[l] = list
	}
	if len(rest) != 0 {
		return CacheEntry{}, errNotLined
	}
	return entry, nil
}
