package dispatch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzParseRequest feeds ParseRequest arbitrary tool arguments, as an agent
// might send them: it must never panic, every error must be a *UsageError
// with a message (the agent can only fix what it is told), and a request
// it accepts must pass Check again unchanged.
//
//	go test -run '^$' -fuzz FuzzParseRequest -parallel=1 ./dispatch
func FuzzParseRequest(f *testing.F) {
	for _, seed := range []string{
		// valid
		`{"action":"list"}`,
		`{"action":"list","connection":"c1","includeTools":true,"includeInputSchema":true,"includeAnnotations":true,"format":"detail","limit":5,"offset":10,"refresh":true}`,
		`{"action":"search","query":"read a file","limit":3,"format":"compact"}`,
		`{"action":"info","tool":"read_file","connection":"c2"}`,
		`{"action":"call","tool":"echo","arguments":{"message":"hi"},"meta":{"k":1},"timeout":1.5}`,
		`{"action":"call","tool":"echo","arguments":"{\"message\":\"hi\"}"}`,
		`{"action":"call","tool":"echo","arguments":null,"resultToFile":true,"resultSizeThreshold":0}`,
		`{"action":"call","tool":"t","argumentsFile":"/tmp/r1.json","argumentsPath":"items","argumentsKey":"rows"}`,
		`{"action":"readresult","resultFile":"/tmp/r1.json","op":"grep","pattern":"err","context":2,"maxMatches":3}`,
		`{"action":"readresult","resultFile":"r.json","op":"slice","fromLine":1,"toLine":9,"lines":3,"maxBytes":100,"offset":4,"path":"a.b"}`,
		// invalid
		``,
		`null`,
		`[]`,
		`"list"`,
		`{}`,
		`{"action":1}`,
		`{"action":"fly"}`,
		`{"action":"list","tool":"x"}`,
		`{"action":"call","tool":"echo","message":"hi"}`,
		`{"action":"call","message":"hi"}`,
		`{"action":"call","tool":"echo","arguments":[1]}`,
		`{"action":"call","tool":"echo","arguments":"not json"}`,
		`{"action":"call","tool":"echo","arguments":"  "}`,
		`{"action":"call","tool":"echo","timeout":-1}`,
		`{"action":"call","tool":"echo","resultSizeThreshold":-5}`,
		`{"action":"call","tool":"echo","argumentsPath":"a"}`,
		`{"action":"call","tool":"echo","meta":"x"}`,
		`{"action":"list","limit":-1}`,
		`{"action":"list","limit":1e400}`,
		`{"action":"list","offset":"3"}`,
		`{"action":"list","format":"wide"}`,
		`{"action":"list","includeTools":"yes"}`,
		`{"action":"search"}`,
		`{"action":"search","query":" "}`,
		`{"action":"info"}`,
		`{"action":"readresult"}`,
		`{"action":"list","ACTION":"call"}`,
		`{"action":"list"} trailing`,
		`{"action":"list","action":"call"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, err := ParseRequest(json.RawMessage(raw))
		if err != nil {
			var usage *UsageError
			if !errors.As(err, &usage) {
				t.Fatalf("error %T is not a *UsageError: %v", err, err)
			}
			if strings.TrimSpace(usage.Msg) == "" || strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("usage error without a message: %#v", usage)
			}
			return
		}
		if _, ok := actionParams[req.Action]; !ok {
			t.Fatalf("accepted unknown action %q", req.Action)
		}
		again := req
		if err := again.Check(); err != nil {
			t.Fatalf("accepted request fails Check: %v (%+v)", err, req)
		}
		if len(req.Arguments) > 0 && !json.Valid(req.Arguments) {
			t.Fatalf("accepted arguments are not JSON: %q", req.Arguments)
		}
	})
}
