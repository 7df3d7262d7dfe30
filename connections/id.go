package connections

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
)

// ID returns the connection's identity: the MD5 of the canonical JSON form
// of its config. encoding/json sorts map keys and writes struct fields in a
// fixed order, so equal configs give equal IDs. The name is left out: two
// entries that differ only in name reach the same server and are connected
// once. The ID keys the catalog cache, so a changed config never reuses a
// stale catalog.
func (c ServerConfig) ID() string {
	canonical := c
	canonical.Name = ""
	if canonical.ProtocolVersion == DefaultProtocolVersion {
		canonical.ProtocolVersion = ""
	}
	data, err := json.Marshal(canonical)
	if err != nil {
		// A struct of strings, maps of strings and a duration cannot fail
		// to marshal; reaching here is a programming error.
		panic("connections: marshal config: " + err.Error())
	}
	sum := md5.Sum(data)
	return hex.EncodeToString(sum[:])
}
