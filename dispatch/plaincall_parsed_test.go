package dispatch

import (
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

// TestPlainCallParsed_AsPlainCall holds the reading of arguments the
// caller has already parsed (as part of the agent's whole message) to
// plainCall's reading of the same arguments as bytes: the same calls
// taken, the same Request, the same ones left to ParseRequest.
func TestPlainCallParsed_AsPlainCall(t *testing.T) {
	cases := []string{
		`{"action":"call","tool":"echo"}`,
		`{"action":"call","tool":"echo","arguments":{"message":"hi"}}`,
		`{"tool":"c1/echo","connection":"c1","action":"call","arguments":{ "a" : [1,2] }}`,
		`{"action":"call","tool":"héllo","arguments":{}}`,
		`{ "action" : "call" , "tool" : "echo" , "arguments" : { "x" : { "y" : null } } }`,
		`{"action":"call","connection":"c1","tool":"echo"}`,

		`{"action":"call","tool":"e\u0063ho"}`,
		`{"action":"call","tool":"echo","arguments":"{\"a\":1}"}`,
		`{"action":"call","tool":"echo","arguments":null}`,
		`{"action":"call","tool":"echo","arguments":[]}`,
		`{"action":"call","tool":"echo","meta":{"k":1}}`,
		`{"action":"call","tool":"echo","timeout":5}`,
		`{"action":"call","path":"echo"}`,
		`{"action":"call","tool":"echo","tool":"add"}`,
		`{"action":"call","tool":"echo","action":"call"}`,
		`{"action":"call","tool":"echo","connection":"a","connection":"b"}`,
		`{"action":"call","tool":"echo","arguments":{},"arguments":{}}`,
		`{"action":"call","tool":""}`,
		`{"action":"call","tool":"echo","connection":""}`,
		`{"action":"call","tool":"echo","connection":7}`,
		`{"action":"call"}`,
		`{"tool":"echo"}`,
		`{"action":"list"}`,
		`{"action":"CALL","tool":"echo"}`,
		`{"Action":"call","tool":"echo"}`,
		`{"action":"call","tool":"echo","message":"stray"}`,
		`{"action":"call","tool":7}`,
		`{"action":"call","tool":"a` + "\xff" + `"}`,
		`{"action":"call","tool":"a` + "\t" + `b"}`,
		`{}`,
		`[]`,
		`"call"`,
		`null`,
	}
	for _, raw := range cases {
		line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + raw + `}}`
		if !gjson.Valid(line) {
			continue // the caller never parses an invalid message
		}
		args := gjson.Parse(jsonView([]byte(line))).Get("params.arguments")
		got, ok := PlainCall(args)
		want, wantOK := plainCall([]byte(raw))
		if ok != wantOK {
			t.Errorf("PlainCall(%s) ok = %v, plainCall %v", raw, ok, wantOK)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PlainCall(%s) = %+v, plainCall = %+v", raw, got, want)
		}
	}
}
