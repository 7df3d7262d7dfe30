package upstream

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Ids mcp-go cannot give back exactly. mcp-go decodes a request's id into
// a string, or a float64 kept as an int64 when whole: 9007199254740993
// (past 2^53) came back as 9007199254740992, 1.0 as 1, 1e400 was refused
// with a null id, and a string's escapes came back spelt another way. So
// the agent got an answer it could not match to its request (and a
// cancellation of one id could reach another). A request whose id is not
// plain (plainID: what mcp-go writes back as it came) goes through mcp-go
// under a surrogate, and its answer is given the agent's id again, byte
// for byte.

// surrogatePrefix starts every surrogate id. An agent's own id that
// starts with it is swapped too, so that no id in flight through mcp-go
// is both the agent's and a surrogate.
const surrogatePrefix = "dispatch-id-"

// idSwaps holds the surrogates of the requests being served. An entry
// lives while its request holds one of the in-flight slots
// (--max-in-flight), so there are never more than that.
type idSwaps struct {
	mu   sync.Mutex
	next uint64
	byID map[string]string // idKey of the agent's id -> the surrogate, as JSON
}

// needsSwap reports whether id (a request's, as sent) must go through
// mcp-go under a surrogate.
func needsSwap(id []byte) bool {
	v := gjson.ParseBytes(id)
	if v.Raw != string(id) || !plainID(v) {
		return true
	}
	return v.Type == gjson.String && strings.HasPrefix(v.Str, surrogatePrefix)
}

// swap returns a surrogate for id, which release forgets.
func (s *idSwaps) swap(id json.RawMessage) (surrogate json.RawMessage, release func()) {
	key := idKey(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	surrogate = json.RawMessage(strconv.Quote(surrogatePrefix + strconv.FormatUint(s.next, 10)))
	if s.byID == nil {
		s.byID = map[string]string{}
	}
	s.byID[key] = string(surrogate)
	return surrogate, func() {
		s.mu.Lock()
		if s.byID[key] == string(surrogate) {
			delete(s.byID, key)
		}
		s.mu.Unlock()
	}
}

// surrogateOf is the surrogate of the agent's id, while its request is
// being served.
func (s *idSwaps) surrogateOf(id json.RawMessage) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sur, ok := s.byID[idKey(id)]
	return json.RawMessage(sur), ok
}

// withMember returns the JSON object msg with its top-level member name
// (in params, when inParams) set to value. Other members are kept as
// they were; their order may change.
func withMember(msg []byte, inParams bool, name string, value json.RawMessage) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		return nil, err
	}
	if inParams {
		params, err := withMember(fields["params"], false, name, value)
		if err != nil {
			return nil, err
		}
		fields["params"] = params
	} else {
		fields[name] = value
	}
	return json.Marshal(fields)
}

// answerPrefix starts every answer mcp-go and dispatch encode (the
// fields of mcp.JSONRPCResponse and mcp.JSONRPCError, in order).
const answerPrefix = `{"jsonrpc":"2.0","id":`

// restoreID returns the encoded answer data with the id written as
// encoded (its JSON as encoding/json wrote it) replaced by exact, the
// bytes the agent sent; data that does not start so is returned as it
// is.
func restoreID(data []byte, encoded, exact []byte) []byte {
	if len(exact) == 0 || !bytes.HasPrefix(data, []byte(answerPrefix)) || !bytes.HasPrefix(data[len(answerPrefix):], encoded) {
		return data
	}
	if bytes.Equal(encoded, exact) {
		return data
	}
	rest := data[len(answerPrefix)+len(encoded):]
	out := make([]byte, 0, len(answerPrefix)+len(exact)+len(rest))
	return append(append(append(out, answerPrefix...), exact...), rest...)
}
