//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"dispatch/connections"
	"dispatch/internal/testkit"
)

// The hot path against the general path, line by line. Each line an agent
// could write is sent twice to one dispatch over real pipes: as it is,
// which a plain tools/call of proxy-dispatch (or of a tool listed beside
// it) takes the hot path with, and with "_meta":{} put first in its
// params (throughGeneral), which sends the same request through mcp-go's
// server and dispatch's general code. The two answers must mean the same
// (answerMeaning), and what the server was sent must be the same to the
// byte: the fixture's echo_raw_request (--raw-request) answers with its
// request as it arrived, and the serial fixture's raw_result answers with
// whatever result a case writes.

// diffAgent writes lines to a dispatch by hand and reads its answers.
type diffAgent struct {
	stdin  io.WriteCloser
	lines  <-chan []byte
	stderr *testkit.SyncBuffer
	syncs  int
	sent   []string // the last lines sent, for a failure to show
}

// diffDispatchArgs are the servers and options the comparisons run
// against: c1 the fixture with echo_raw_request, c2 the serial fixture
// with raw_result, both listed beside proxy-dispatch too.
func diffDispatchArgs(tb testing.TB) []string {
	return []string{"--no-cache", "--timeout", "20s", "--threshold", "20000", "--spill-dir", tb.TempDir(),
		"--mcp", fixture("--raw-request"), "--mcp", fixture("--serial"),
		"--expose", "echo_raw_request", "--expose", "raw_result"}
}

// startDiffAgent starts dispatch with args, initializes it and makes one
// call to each server, so that their catalogs are at hand and the calls
// after take the hot path.
func startDiffAgent(tb testing.TB, args ...string) *diffAgent {
	tb.Helper()
	a := &diffAgent{}
	a.stdin, a.lines, a.stderr = startRawDispatch(tb, 64<<20, args...)
	a.roundTrip(tb, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"diff","version":"1"}}}`)
	a.send(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tool := range []string{"echo_raw_request", "raw_result"} {
		warm := fmt.Sprintf(`{"jsonrpc":"2.0","id":"warm","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":%q,"arguments":{"result":"{\"content\":[]}"}}}}`, tool)
		if answer := a.roundTrip(tb, warm)[0]; !bytes.Contains(answer, []byte(`"content":[`)) || bytes.Contains(answer, []byte(`"isError":true`)) {
			tb.Fatalf("warm-up call of %s: %s\nstderr:\n%s", tool, answer, a.stderr)
		}
	}
	// Every echo_raw_request answer is compared as the server's view of
	// the call: one saying the fixture did not see the line would compare
	// equal on both paths, and prove nothing.
	if answer := a.roundTrip(tb, echoRaw(`{"x":1}`))[0]; bytes.Contains(answer, []byte("did not see")) || !bytes.Contains(answer, []byte(`tools/call`)) {
		tb.Fatalf("echo_raw_request does not show the call as the server read it: %s\nstderr:\n%s", answer, a.stderr)
	}
	return a
}

func (a *diffAgent) send(tb testing.TB, line string) {
	tb.Helper()
	if len(a.sent) == 8 {
		a.sent = a.sent[1:]
	}
	a.sent = append(a.sent, line)
	if _, err := io.WriteString(a.stdin, line+"\n"); err != nil {
		tb.Fatalf("write to dispatch: %v\nstderr:\n%s", err, a.stderr)
	}
}

// next waits for dispatch's next answer, skipping its notifications.
func (a *diffAgent) next(tb testing.TB) []byte {
	tb.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				tb.Fatalf("dispatch closed its stdout\nstderr:\n%s", a.stderr)
			}
			if gjson.GetBytes(line, "method").Exists() {
				continue // a notification, or a request of dispatch's
			}
			return line
		case <-timeout:
			tb.Fatalf("no answer within 30 s\nstderr:\n%s", a.stderr)
		}
	}
}

// roundTrip sends line and returns dispatch's answers to it: a request's
// one answer, to its id; for any other line, what the reader answered
// before it read on (mcp-go answers a notification it finds invalid),
// which comes before the answer to a ping sent after it. An answer left
// from the line before (a second one, or one late) fails tb.
func (a *diffAgent) roundTrip(tb testing.TB, line string) [][]byte {
	tb.Helper()
	a.dropLeftovers(tb)
	a.send(tb, line)
	if want, request := requestID([]byte(line)); request {
		answer := a.next(tb)
		if got := gjson.GetBytes(answer, "id").Raw; want != "" && got != want {
			tb.Fatalf("%s: answer %s to id %s; want id %s\nlines sent last:\n%s", line, answer, got, want, strings.Join(a.sent, "\n"))
		}
		return [][]byte{answer}
	}
	a.syncs++
	sync := fmt.Sprintf(`"diff-sync-%d"`, a.syncs)
	a.send(tb, `{"jsonrpc":"2.0","id":`+sync+`,"method":"ping"}`)
	var answers [][]byte
	for {
		got := a.next(tb)
		if gjson.GetBytes(got, "id").Raw == sync {
			return answers
		}
		answers = append(answers, got)
	}
}

// dropLeftovers fails tb with the answers that came after the last
// line's (an answer too many), and drops them: the next line, a fuzzer's
// next input say, starts afresh.
func (a *diffAgent) dropLeftovers(tb testing.TB) {
	tb.Helper()
	for {
		select {
		case line, ok := <-a.lines:
			if ok && !gjson.GetBytes(line, "method").Exists() {
				tb.Errorf("an answer after the last line's:\n %s\nlines sent last:\n%s", line, strings.Join(a.sent, "\n"))
			}
		default:
			return
		}
	}
}

// requestID says whether line is a request as dispatch's reader reads
// lines: one it cannot decode, or one with a method and an id (which is
// answered even when the id is not one MCP allows). id is what the
// answer to a request with a string or number id carries: that id as
// written.
func requestID(line []byte) (id string, request bool) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
		Result json.RawMessage       `json:"result"`
		Error  *connections.RPCError `json:"error"`
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return "", false
	}
	if json.Unmarshal(line, &msg) != nil {
		return "", true // answered as undecodable, at once
	}
	if msg.Method == "" || len(msg.ID) == 0 {
		return "", false
	}
	switch gjson.ParseBytes(msg.ID).Type {
	case gjson.String, gjson.Number:
		return string(msg.ID), true
	}
	return "", true
}

// throughGeneral is line with "_meta":{} first in the params that
// encoding/json (and so mcp-go) reads, the last member named so: the
// same request, which the hot path leaves to mcp-go. ok is false for a
// line with no such params object.
func throughGeneral(line string) (string, bool) {
	if !gjson.Valid(line) {
		return "", false
	}
	root := gjson.Parse(line)
	if !root.IsObject() {
		return "", false
	}
	at := -1
	root.ForEach(func(key, value gjson.Result) bool {
		if strings.EqualFold(key.Str, "params") {
			at = -1
			if value.IsObject() {
				at = value.Index
			}
		}
		return true
	})
	if at < 0 {
		return "", false
	}
	rest := line[at+1:]
	if strings.HasPrefix(strings.TrimLeft(rest, " \t\r"), "}") {
		return line[:at+1] + `"_meta":{}` + rest, true
	}
	return line[:at+1] + `"_meta":{},` + rest, true
}

// answerMeaning is an answer as compared: decoded (numbers as written),
// an isError false left out (it means what its absence means), and a
// result file's name, which differs from call to call, written FILE.
func answerMeaning(tb testing.TB, answer []byte) string {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode answer %s: %v", answer, err)
	}
	if result, ok := v["result"].(map[string]any); ok && result["isError"] == false {
		delete(result, "isError")
	}
	text, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return resultFileName.ReplaceAllString(string(text), "FILE")
}

// compare sends line and its general form and fails tb when the answers
// differ in meaning, or one is a panic's.
func (a *diffAgent) compare(tb testing.TB, line string) {
	tb.Helper()
	general, ok := throughGeneral(line)
	if !ok {
		tb.Fatalf("no general form of %s", line)
	}
	hot, gen := a.roundTrip(tb, line), a.roundTrip(tb, general)
	for _, answer := range append(append([][]byte{}, hot...), gen...) {
		if msg := gjson.GetBytes(answer, "error.message").Str; strings.Contains(msg, "panic") {
			tb.Errorf("%s\nanswered with a panic: %s", line, answer)
		}
	}
	same := len(hot) == len(gen)
	for i := 0; same && i < len(hot); i++ {
		same = answerMeaning(tb, hot[i]) == answerMeaning(tb, gen[i])
	}
	if !same {
		tb.Errorf("answers differ:\n request:  %s\n hot path: %s\n general:  %s", line, bytes.Join(hot, []byte("\n           ")), bytes.Join(gen, []byte("\n           ")))
	}
}

// diffCase is a line to send both ways.
type diffCase struct {
	name string
	line string
}

// pdCall is a tools/call of proxy-dispatch with id and its arguments,
// both as written.
func pdCall(id, arguments string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + arguments + `}}`
}

// echoRaw is a call of echo_raw_request with the tool's arguments as
// written.
func echoRaw(arguments string) string {
	return pdCall("1", `{"action":"call","tool":"echo_raw_request","arguments":`+arguments+`}`)
}

// rawResult is a call of raw_result that makes the server answer with
// result, written byte for byte.
func rawResult(result string) string {
	quoted, err := json.Marshal(result)
	if err != nil {
		panic(err) // a string always encodes
	}
	return pdCall("1", `{"action":"call","tool":"raw_result","arguments":{"result":`+string(quoted)+`}}`)
}

// exposedCall is a tools/call of the tool listed beside proxy-dispatch
// as name, with its arguments as written.
func exposedCall(name, arguments string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + arguments + `}}`
}

func hotDiffCases() []diffCase {
	echoArgs := `{"action":"call","tool":"echo_raw_request","arguments":{"a":1}}`
	cases := []diffCase{
		// Ids of every JSON type and spelling.
		{"id 0", pdCall(`0`, echoArgs)},
		{"id negative", pdCall(`-7`, echoArgs)},
		{"id 15 digits", pdCall(`999999999999999`, echoArgs)},
		{"id past 2^53", pdCall(`9007199254740993`, echoArgs)},
		{"id 20 digits", pdCall(`12345678901234567890`, echoArgs)},
		{"id 1.0", pdCall(`1.0`, echoArgs)},
		{"id 1e2", pdCall(`1e2`, echoArgs)},
		{"id -0", pdCall(`-0`, echoArgs)},
		{"id string", pdCall(`"abc"`, echoArgs)},
		{"id string escaped", pdCall(`"a\u0041"`, echoArgs)},
		{"id empty string", pdCall(`""`, echoArgs)},
		{"id string with spaces", pdCall(`" s p "`, echoArgs)},
		{"id string html", pdCall(`"<&>"`, echoArgs)},
		{"id string non-ASCII", pdCall(`"é"`, echoArgs)},
		{"id string like a surrogate", pdCall(`"dispatch-id-1"`, echoArgs)},
		{"id spaced", pdCall(` 5 `, echoArgs)},
		{"id NUL escaped", pdCall(`"\u0000"`, echoArgs)},
		{"id long", pdCall(`"`+strings.Repeat("i", 200)+`"`, echoArgs)},
		{"id invalid UTF-8", pdCall("\"\xff\"", echoArgs)},
		{"id null", pdCall(`null`, echoArgs)},
		{"id true", pdCall(`true`, echoArgs)},
		{"id array", pdCall(`[1]`, echoArgs)},
		{"id object", pdCall(`{}`, echoArgs)},

		// The tool's arguments, which must reach the server byte for byte.
		{"big integers", echoRaw(`{"n":123456789012345678901234567890,"m":-9007199254740993}`)},
		{"number spellings", echoRaw(`{"f":1.0,"z":-0,"e":1E+2,"small":1e-400,"frac":0.1000}`)},
		{"unicode escapes", echoRaw(`{"e":"\u00e9","nul":"\u0000","lone":"\ud800","swapped":"\udc00\ud800","pair":"\ud83d\ude00"}`)},
		{"raw unicode", echoRaw(`{"e":"é","emoji":"😀","ls":"` + "\u2028" + `"}`)},
		{"html and escapes", echoRaw(`{"h":"<b>&amp;</b>","ls":"\u2028","slash":"\/","ctl":"\t\b\f"}`)},
		{"duplicate keys", echoRaw(`{"a":1,"a":2,"b":{"c":1,"c":2}}`)},
		{"key order", echoRaw(`{"z":1,"a":2,"m":3}`)},
		{"odd whitespace", echoRaw("{ \"a\" :\t[ 1 ,\r2 ] ,\"b\"\t:\r{ } }")},
		{"empty", echoRaw(`{}`)},
		{"nested", echoRaw(`{"d":` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `}`)},
		{"long string", echoRaw(`{"s":"` + strings.Repeat("é", 50000) + `"}`)},
		{"line past the reader's buffer", echoRaw(`{"s":"` + strings.Repeat("0123456789", 30000) + `"}`)},
		{"invalid UTF-8", echoRaw("{\"s\":\"\xff\xfe\xed\xa0\x80\"}")},
		{"keys with escapes", echoRaw(`{"\u0061":1,"a\"b":2,"":3}`)},
		{"no arguments", pdCall(`1`, `{"action":"call","tool":"echo_raw_request"}`)},

		// proxy-dispatch's own parameters.
		{"qualified tool", pdCall(`1`, `{"action":"call","tool":"c1/echo_raw_request","arguments":{}}`)},
		{"connection", pdCall(`1`, `{"action":"call","connection":"c1","tool":"echo_raw_request","arguments":{}}`)},
		{"connection and qualified tool", pdCall(`1`, `{"action":"call","connection":"c1","tool":"c1/echo_raw_request","arguments":{}}`)},
		{"wrong connection", pdCall(`1`, `{"action":"call","connection":"c2","tool":"echo_raw_request","arguments":{}}`)},
		{"unknown connection", pdCall(`1`, `{"action":"call","connection":"c9","tool":"echo_raw_request","arguments":{}}`)},
		{"empty connection", pdCall(`1`, `{"action":"call","connection":"","tool":"echo_raw_request","arguments":{}}`)},
		{"null connection", pdCall(`1`, `{"action":"call","connection":null,"tool":"echo_raw_request","arguments":{}}`)},
		{"tool on two servers", pdCall(`1`, `{"action":"call","tool":"echo","arguments":{"message":"hi"}}`)},
		{"unknown tool", pdCall(`1`, `{"action":"call","tool":"nope","arguments":{}}`)},
		{"empty tool", pdCall(`1`, `{"action":"call","tool":"","arguments":{}}`)},
		{"tool not a string", pdCall(`1`, `{"action":"call","tool":7}`)},
		{"tool escaped", pdCall(`1`, `{"action":"call","tool":"echo_r\u0061w_request","arguments":{"a":1}}`)},
		{"tool qualified with an escape", pdCall(`1`, `{"action":"call","tool":"c1\/echo_raw_request","arguments":{}}`)},
		{"connection escaped", pdCall(`1`, `{"action":"call","connection":"c\u0031","tool":"echo_raw_request","arguments":{}}`)},
		{"tool unknown with html", pdCall(`1`, `{"action":"call","tool":"<b>&`+"\u2028"+`","arguments":{}}`)},
		{"tool invalid UTF-8", pdCall(`1`, "{\"action\":\"call\",\"tool\":\"echo\xff\",\"arguments\":{}}")},
		{"tool with spaces", pdCall(`1`, `{"action":"call","tool":" echo_raw_request ","arguments":{}}`)},
		{"action escaped", pdCall(`1`, `{"action":"c\u0061ll","tool":"echo_raw_request","arguments":{}}`)},
		{"action capitalized", pdCall(`1`, `{"action":"Call","tool":"echo_raw_request"}`)},
		{"member capitalized", pdCall(`1`, `{"action":"call","Tool":"echo_raw_request"}`)},
		{"duplicate tool", pdCall(`1`, `{"action":"call","tool":"nope","tool":"echo_raw_request","arguments":{}}`)},
		{"duplicate arguments", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":{"a":1},"arguments":{"b":2}}`)},
		{"arguments null", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":null}`)},
		{"arguments as a string", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":"{\"a\":1,\"n\":123456789012345678901234567890}"}`)},
		{"arguments an empty string", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":""}`)},
		{"arguments a string of an array", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":"[1]"}`)},
		{"arguments an array", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":[1]}`)},
		{"arguments a number", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":1}`)},
		{"args", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","args":{"a":1}}`)},
		{"path", pdCall(`1`, `{"action":"call","path":"echo_raw_request","arguments":{"a":1}}`)},
		{"name for tool", pdCall(`1`, `{"action":"call","name":"echo_raw_request","arguments":{}}`)},
		{"stray parameter", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","a":1}`)},
		{"type tool", pdCall(`1`, `{"action":"call","type":"tool","tool":"echo_raw_request","arguments":{}}`)},
		{"type resource", pdCall(`1`, `{"action":"call","type":"resource","tool":"echo_raw_request"}`)},
		{"meta", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":{},"meta":{"n":123456789012345678901234567890,"progressToken":"x"}}`)},
		{"meta null", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":{},"meta":null}`)},
		{"timeout", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":{},"timeout":5}`)},
		{"timeout zero", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","timeout":0}`)},
		{"result to file", pdCall(`1`, `{"action":"call","tool":"echo_raw_request","arguments":{},"resultToFile":true}`)},
		{"not a call", pdCall(`1`, `{"action":"list"}`)},
		{"info", pdCall(`1`, `{"action":"info","tool":"echo_raw_request"}`)},
		{"unknown action", pdCall(`1`, `{"action":"nope"}`)},
		{"no action", pdCall(`1`, `{"tool":"echo_raw_request"}`)},
		{"arguments not an object", pdCall(`1`, `[]`)},
		{"arguments a string", pdCall(`1`, `"{\"action\":\"call\",\"tool\":\"echo_raw_request\"}"`)},
		{"arguments empty", pdCall(`1`, `{}`)},

		// The request around them.
		{"params reordered", `{"params":{"arguments":` + echoArgs + `,"name":"proxy-dispatch"},"method":"tools/call","id":1,"jsonrpc":"2.0"}`},
		{"spaces everywhere", " { \"jsonrpc\" : \"2.0\" ,\t\"id\" : 1 , \"method\" : \"tools/call\" , \"params\" : { \"name\" : \"proxy-dispatch\" , \"arguments\" : " + echoArgs + " } } \r"},
		{"name escaped", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy\u002ddispatch","arguments":` + echoArgs + `}}`},
		{"name capitalized", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Proxy-Dispatch","arguments":` + echoArgs + `}}`},
		{"name unknown", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`},
		{"name not a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1,"arguments":{}}}`},
		{"duplicate name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"params member capitalized", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"duplicate params arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"list"},"arguments":` + echoArgs + `}}`},
		{"params arguments null", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":null}}`},
		{"params arguments missing", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch"}}`},
		{"params unknown member", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `,"x":1}}`},
		{"params task", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `,"task":{}}}`},
		{"unknown member", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `},"x":1}`},
		{"duplicate jsonrpc", `{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":"two","method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"duplicate params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}},"params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"jsonrpc wrong", `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"jsonrpc missing", `{"id":1,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"method escaped", `{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"notification without jsonrpc", `{"method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{},"params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},
		{"method capitalized", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"proxy-dispatch","arguments":` + echoArgs + `}}`},

		// A tool listed beside proxy-dispatch.
		{"exposed", exposedCall("echo_raw_request", `{"n":123456789012345678901234567890,"dup":1,"dup":2,"e":"\u00e9"}`)},
		{"exposed empty", exposedCall("echo_raw_request", `{}`)},
		{"exposed spaced", exposedCall("echo_raw_request", "{ \"a\" :\t1 }")},
		{"exposed arguments null", exposedCall("echo_raw_request", `null`)},
		{"exposed arguments a string", exposedCall("echo_raw_request", `"{\"a\":1}"`)},
		{"exposed proxy parameters", exposedCall("echo_raw_request", `{"action":"call","tool":"echo"}`)},

		// What the server answers, passed through or reshaped.
		{"result html", rawResult(`{"content":[{"type":"text","text":"<b> & ` + "\u2028" + `"}]}`)},
		{"result key escaped", rawResult(`{"\u0063ontent":[{"type":"text","text":"a"}]}`)},
		{"result key capitalized", rawResult(`{"content":[{"type":"text","text":"a"}],"Content":[{"type":"text","text":"b"}]}`)},
		{"result duplicate isError", rawResult(`{"content":[],"isError":true,"isError":false}`)},
		{"result isError null", rawResult(`{"content":[],"isError":null}`)},
		{"result isError a string", rawResult(`{"content":[],"isError":"true"}`)},
		{"result meta numbers", rawResult(`{"content":[],"_meta":{"n":123456789012345678901234567890,"f":1.0,"big":1e400}}`)},
		{"result meta duplicate keys", rawResult(`{"content":[],"_meta":{"a":1,"\u0061":2}}`)},
		{"result meta lone surrogates", rawResult(`{"content":[],"_meta":{"\ud800x":1,"\udbffx":2}}`)},
		{"result meta ours", rawResult(`{"content":[],"_meta":{"dispatch":1,"proxyAction":"x"}}`)},
		{"result meta an array", rawResult(`{"content":[],"_meta":[]}`)},
		{"result meta null", rawResult(`{"content":[{"type":"text","text":"a"}],"_meta":null}`)},
		{"result structured a string", rawResult(`{"content":[],"structuredContent":"s"}`)},
		{"result structured null", rawResult(`{"content":[],"structuredContent":null}`)},
		{"result content items of any kind", rawResult(`{"content":[1,"x",null,{"type":"text","text":"a","x":1e400}]}`)},
		{"result content not a list", rawResult(`{"content":{"type":"text"}}`)},
		{"result without content", rawResult(`{"structuredContent":{"a":1}}`)},
		{"result empty", rawResult(`{}`)},
		{"result an array", rawResult(`[]`)},
		{"result null", rawResult(`null`)},
		{"result unknown member", rawResult(`{"content":[],"resultType":"complete"}`)},
		{"result spaced", rawResult("{ \"content\" : [ { \"type\" : \"text\" , \"text\" : \"ws\" } ] , \"_meta\" : { \"k\" : [ 1 , 2 ] } }")},
		{"result saved to a file", rawResult(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 30000) + `"}]}`)},
		{"exposed result meta null", exposedCall("raw_result", `{"result":"{\"content\":[],\"_meta\":null}"}`)},
		{"exposed result", exposedCall("raw_result", `{"result":"{\"content\":[{\"type\":\"text\",\"text\":\"<b>\"}],\"_meta\":{\"n\":1.0}}"}`)},
	}
	return cases
}

// TestServe_HotPathDifferential sends each case as it is and through the
// general path: the answers must mean the same.
func TestServe_HotPathDifferential(t *testing.T) {
	a := startDiffAgent(t, diffDispatchArgs(t)...)
	for _, c := range hotDiffCases() {
		t.Run(c.name, func(t *testing.T) { a.compare(t, c.line) })
	}
	// With --transparent every server's tool is listed beside
	// proxy-dispatch (echo on both servers as c1__echo and c2__echo),
	// and mcp-go's server re-lists on a call of a name no list shows.
	transparent := startDiffAgent(t, append(diffDispatchArgs(t), "--transparent")...)
	for _, c := range append(hotDiffCases(),
		diffCase{"transparent prefixed", exposedCall("c2__echo", `{"message":"hi"}`)},
		diffCase{"transparent unknown", exposedCall("c3__echo", `{"message":"hi"}`)},
	) {
		t.Run("transparent/"+c.name, func(t *testing.T) { transparent.compare(t, c.line) })
	}

	// The comparison means something only if the plain form did take
	// the hot path: it passes a server's text through as written, where
	// the general path's encoding/json escapes < as \u003c.
	line := rawResult(`{"content":[{"type":"text","text":"<hot>"}]}`)
	general, _ := throughGeneral(line)
	if hot := a.roundTrip(t, line)[0]; !bytes.Contains(hot, []byte(`"text":"<hot>"`)) {
		t.Errorf("the plain call %s was not served by the hot path: %s", line, hot)
	}
	if gen := a.roundTrip(t, general)[0]; !bytes.Contains(gen, []byte(`"text":"\u003chot\u003e"`)) {
		t.Errorf("the call %s was not served by the general path: %s", general, gen)
	}
}

// FuzzServe_HotPathAnswersAsTheGeneralPath is the same comparison for any
// line: every case of TestServe_HotPathDifferential is a seed. A line
// with no general form (not an object with params) must be answered as
// dispatch answers every line, or not at all, without a hang or a crash.
// The servers' tools are filtered to those that answer at once.
//
// Left out: a line holding a number no float64 holds (1e400), which the
// hot path passes on for the server to take or refuse, and mcp-go
// refuses with -32600 (see the README, "The proxy-dispatch tool").
//
//	go test -run '^$' -fuzz FuzzServe_HotPathAnswersAsTheGeneralPath -fuzztime 60s .
func FuzzServe_HotPathAnswersAsTheGeneralPath(f *testing.F) {
	for _, c := range hotDiffCases() {
		f.Add(c.line)
	}
	dir := f.TempDir()
	config := filepath.Join(dir, "servers.toml")
	toml := fmt.Sprintf(`[servers.raw]
command = %q
args = ["--raw-request"]
tools.allow = ["echo_raw_request", "echo"]

[servers.serial]
command = %q
args = ["--serial"]
tools.allow = ["raw_result", "echo"]
`, fixtureBin, fixtureBin)
	if err := os.WriteFile(config, []byte(toml), 0o600); err != nil {
		f.Fatal(err)
	}
	a := startDiffAgent(f, "--no-cache", "--timeout", "2s", "--threshold", "20000", "--spill-dir", filepath.Join(dir, "results"),
		"--config", config, "--expose", "echo_raw_request", "--expose", "raw_result")
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "\n") || len(line) > 1<<20 {
			t.Skip("not one line of a reasonable size")
		}
		if json.Valid([]byte(line)) && json.Unmarshal([]byte(line), new(any)) != nil {
			t.Skip("a number out of a float64's range: the documented difference")
		}
		if _, ok := throughGeneral(line); !ok {
			a.roundTrip(t, line)
			return
		}
		a.compare(t, line)
	})
}
