package main

import (
	"bufio"
	"bytes"
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawAgent drives dispatch over its stdin and stdout by hand, to send
// what no MCP client would.
type rawAgent struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	answers chan rawAnswer
	stderr  *testkit.SyncBuffer
}

type rawAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func startRawAgent(t *testing.T, args ...string) *rawAgent {
	t.Helper()
	a := &rawAgent{t: t, answers: make(chan rawAnswer, 16), stderr: &testkit.SyncBuffer{}}
	a.cmd = exec.Command(dispatchBin, append([]string{"--no-cache", "--mcp", fixture()}, args...)...)
	a.cmd.Stderr = a.stderr
	var err error
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(a.answers)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var ans rawAnswer
			if json.Unmarshal(sc.Bytes(), &ans) == nil && (ans.Result != nil || ans.Error != nil) {
				a.answers <- ans
			}
		}
	}()
	t.Cleanup(func() {
		a.stdin.Close()
		if err := a.cmd.Wait(); err != nil {
			t.Logf("dispatch exited: %v\nstderr:\n%s", err, a.stderr)
		}
	})
	a.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	a.next()
	a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return a
}

// send writes one message and its newline.
func (a *rawAgent) send(msg string) {
	a.t.Helper()
	a.write(msg + "\n")
}

// write writes part of a message.
func (a *rawAgent) write(part string) {
	a.t.Helper()
	if _, err := io.WriteString(a.stdin, part); err != nil {
		a.t.Fatalf("write to dispatch: %v\nstderr:\n%s", err, a.stderr)
	}
}

// sendFiller writes n bytes of x, a chunk at a time, so the test itself
// holds no large message.
func (a *rawAgent) sendFiller(n int) {
	a.t.Helper()
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		if _, err := a.stdin.Write(c); err != nil {
			a.t.Fatalf("write to dispatch: %v\nstderr:\n%s", err, a.stderr)
		}
		n -= len(c)
	}
}

// next waits for dispatch's next answer (the hang detector is generous).
func (a *rawAgent) next() rawAnswer {
	a.t.Helper()
	select {
	case ans, ok := <-a.answers:
		if !ok {
			a.t.Fatalf("dispatch closed stdout\nstderr:\n%s", a.stderr)
		}
		return ans
	case <-time.After(60 * time.Second):
		a.t.Fatalf("no answer from dispatch within 60 s (hang detector)\nstderr:\n%s", a.stderr)
	}
	return rawAnswer{}
}

// peakRSS is dispatch's peak resident memory (VmHWM), in bytes.
func (a *rawAgent) peakRSS() int64 {
	a.t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", a.cmd.Process.Pid))
	if err != nil {
		a.t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				a.t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	a.t.Fatalf("no VmHWM in /proc/%d/status", a.cmd.Process.Pid)
	return 0
}

// answersList checks that dispatch still serves: a list answered to id.
func (a *rawAgent) answersList(id int) {
	a.t.Helper()
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"list"}}}`, id))
	ans := a.next()
	if string(ans.ID) != strconv.Itoa(id) || ans.Error != nil || ans.Result == nil {
		a.t.Fatalf("after the refused message, list got %s %+v, want a result to id %d", ans.ID, ans.Error, id)
	}
}

// A message longer than --max-request is answered with an error naming
// the limit, to its id when the id comes before the bulk, and skipped
// without being held in memory; the next request is served.
func TestServe_MaxRequest(t *testing.T) {
	const filler = 200 << 20
	// Before the limit, a 200 MB line took dispatch to about 400 MiB.
	const peakCap = 120 << 20
	tests := []struct {
		name           string
		before, after  string
		wantID         string
		wantInMessages []string
	}{
		{name: "id first", wantID: `"big-1"`,
			before: `{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"`,
			after:  `"}}}}`},
		{name: "numeric id first", wantID: `42`,
			before: `{"id":42,"jsonrpc":"2.0","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"`,
			after:  `"}}}}`},
		{name: "id after the bulk", wantID: `null`,
			before: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"`,
			after:  `"}}},"id":7}`},
		{name: "not JSON at all", wantID: `null`, before: `not json `, after: ``},
	}
	a := startRawAgent(t, "--max-request", "1MiB")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			a.write(tt.before)
			a.sendFiller(filler)
			a.send(tt.after)
			ans := a.next()
			if string(ans.ID) != tt.wantID || ans.Error == nil {
				t.Fatalf("answer to id %s, error %+v; want an error to id %s", ans.ID, ans.Error, tt.wantID)
			}
			for _, want := range []string{"request too large", "1.0 MiB", "--max-request", "argumentsFile"} {
				if !strings.Contains(ans.Error.Message, want) {
					t.Errorf("error %q does not say %q", ans.Error.Message, want)
				}
			}
			a.answersList(100 + i)
			if peak := a.peakRSS(); peak > peakCap {
				t.Errorf("dispatch's peak memory is %d MiB after a %d MiB message, want at most %d MiB", peak>>20, filler>>20, peakCap>>20)
			}
		})
	}
}

// A message nested deeper than encoding/json decodes is answered with an
// error saying so and giving the limit, to its id where it can be found.
func TestServe_TooDeep(t *testing.T) {
	deepArray := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	deepObject := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	call := func(id, arguments, meta string) string {
		msg := `{"jsonrpc":"2.0"`
		if id != "" {
			msg += `,"id":` + id
		}
		msg += `,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":` + arguments
		if meta != "" {
			msg += `,"meta":` + meta
		}
		return msg + `}}}`
	}
	tests := []struct {
		name     string
		line     string
		wantID   string
		wantDeep bool
	}{
		{name: "arguments of 200,000 nested arrays", line: call(`"d1"`, `{"x":`+deepArray+`}`, ""), wantID: `"d1"`, wantDeep: true},
		// Before, gjson's validator on the hot path recursed once per
		// level: this line (12 MB) grew the stack past Go's 1 GB limit, a
		// fatal error that ended dispatch.
		{name: "arguments of 6,000,000 nested arrays", line: call(`"d6m"`, `{"x":`+strings.Repeat("[", 6_000_000)+strings.Repeat("]", 6_000_000)+`}`, ""), wantID: `"d6m"`, wantDeep: true},
		{name: "meta of 100,000 nested objects", line: call(`9`, `{}`, deepObject), wantID: `9`, wantDeep: true},
		{name: "id after the deep part", line: `{"jsonrpc":"2.0","method":"tools/call","params":{"x":` + deepArray + `},"id":"late"}`, wantID: `"late"`, wantDeep: true},
		{name: "no id", line: call("", `{"x":`+deepArray+`}`, ""), wantID: `null`, wantDeep: true},
		{name: "brackets in a string are not nesting", line: `{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"` + strings.Repeat("[", 20000) + `"}}} broken`,
			wantID: `"s1"`},
	}
	a := startRawAgent(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.t = t
			a.send(tt.line)
			ans := a.next()
			if string(ans.ID) != tt.wantID || ans.Error == nil {
				t.Fatalf("answer to id %s, error %+v; want an error to id %s", ans.ID, ans.Error, tt.wantID)
			}
			deep := strings.Contains(ans.Error.Message, "nested too deeply") && strings.Contains(ans.Error.Message, "10000 levels")
			if deep != tt.wantDeep {
				t.Errorf("error %q: says too deep %v, want %v", ans.Error.Message, deep, tt.wantDeep)
			}
			if !tt.wantDeep && !strings.Contains(ans.Error.Message, "Parse error") {
				t.Errorf("error %q, want a parse error", ans.Error.Message)
			}
			a.answersList(100 + i)
		})
	}
	t.Run("moderate nesting is served", func(t *testing.T) {
		a.t = t
		nested := strings.Repeat(`{"a":`, 500) + "1" + strings.Repeat("}", 500)
		a.send(call(`"ok"`, `{"message":"hi"}`, nested))
		ans := a.next()
		if string(ans.ID) != `"ok"` || ans.Error != nil || !strings.Contains(string(ans.Result), "hi") {
			t.Fatalf("answer %s %+v %s, want the echo", ans.ID, ans.Error, ans.Result)
		}
	})
}
