package connections

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Lines shorter than, as long as and far longer than the reader's buffer
// come back whole and exact; a line over the limit is consumed, measured
// and cut to its head, and the next line is read as usual.
func TestReadLine_BlocksJoinExactly(t *testing.T) {
	// 4 MiB, several blocks, past offHeapFrom; numbered, so that a block
	// out of place or cut would show.
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "%07d,", i)
	}
	long := b.String()
	lines := []string{"small", strings.Repeat("b", 4096), strings.Repeat("c", 4096+1), long, "", "last"}
	r := bufio.NewReaderSize(strings.NewReader(strings.Join(lines, "\n")+"\r\n"), 4096)
	for i, want := range lines {
		got, tooLong, err := readLine(r, 8<<20)
		if tooLong != 0 || string(got) != want {
			t.Fatalf("line %d: %d bytes (tooLong %d); want %d", i, len(got), tooLong, len(want))
		}
		if len(want) >= 4096 && cap(got) > len(want)+2 {
			t.Errorf("line %d of %d bytes is held in %d", i, len(want), cap(got))
		}
		if err != nil && (i != len(lines)-1 || err != io.EOF) {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	r = bufio.NewReaderSize(strings.NewReader(`{"id":"d1","result":"`+long+"\"}\nnext\n"), 4096)
	// The limit lies past offHeapFrom: the blocks held until it is
	// crossed are given back.
	// It returns as soon as the limit is crossed, with the rest unread.
	head, tooLong, err := readLine(r, 3<<20)
	if !errors.Is(err, errLineGoesOn) || tooLong <= 3<<20 || tooLong > 3<<20+4096 || len(head) != 4096 || !bytes.HasPrefix(head, []byte(`{"id":"d1","result":"0000000,0000001,`)) {
		t.Fatalf("too long line: head %d bytes, tooLong %d, %v", len(head), tooLong, err)
	}
	skipped, err := skipLine(r, 1<<30)
	if err != nil || tooLong+skipped != len(long)+len(`{"id":"d1","result":""}`)+1 {
		t.Fatalf("skipLine after %d: %d, %v; want the rest of the line", tooLong, skipped, err)
	}
	if next, _, _ := readLine(r, 3<<20); string(next) != "next" {
		t.Fatalf("after the long line: %q", next)
	}
}

// parseEnvelope says what json.Unmarshal into the old envelope said, and
// its result is a slice of the line, not a copy.
func TestParseEnvelope_SlicesTheLine(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":"d7","result":{"content":[{"type":"text","text":"a\nb"}]}}`)
	msg, ok := parseEnvelope(line)
	if !ok || msg.ID == nil || msg.ID.String() != mcp.NewRequestId("d7").String() || string(msg.Result) != `{"content":[{"type":"text","text":"a\nb"}]}` {
		t.Fatalf("parseEnvelope = %+v, %v", msg, ok)
	}
	if &msg.Result[0] != &line[bytes.IndexByte(line[1:], '{')+1] {
		t.Error("the result was copied out of the line")
	}
	for _, c := range []struct {
		line string
		ok   bool
		kind string
	}{
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, true, "notification"},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, true, "request"},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}`, true, "response"},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, true, "none"},
		{`{"id":3,"method":5}`, false, ""},
		{`{"id":{},"result":{}}`, false, ""},
		{`{"id":1,"error":"bad"}`, true, "response"}, // as json.Unmarshal into mcp.JSONRPCErrorDetails
		{`{"id":1,"result":{}`, false, ""},
		{`not json`, false, ""},
		{`[1]`, false, ""},
	} {
		msg, ok := parseEnvelope([]byte(c.line))
		var want envelope
		wantOK := json.Unmarshal([]byte(c.line), &want) == nil && c.line[0] == '{'
		if ok != c.ok || ok != wantOK {
			t.Errorf("parseEnvelope(%s) ok = %v; want %v (json.Unmarshal: %v)", c.line, ok, c.ok, wantOK)
			continue
		}
		kind := "none"
		switch {
		case msg.Method != "" && msg.ID == nil:
			kind = "notification"
		case msg.Method != "":
			kind = "request"
		case msg.ID != nil:
			kind = "response"
		}
		if ok && kind != c.kind {
			t.Errorf("parseEnvelope(%s) is a %s; want %s", c.line, kind, c.kind)
		}
	}
}

// A line over the limit that does not end is given up past skipLine's
// bound, not read for ever; one that ends within it is read to its end.
func TestSkipLine_StopsPastItsBound(t *testing.T) {
	endless := io.MultiReader(strings.NewReader(`{"id":"d2","result":"`), zeros{})
	r := bufio.NewReaderSize(endless, 4096)
	_, tooLong, err := readLine(r, 64<<10)
	if !errors.Is(err, errLineGoesOn) {
		t.Fatalf("readLine of an endless line: tooLong %d, %v; want errLineGoesOn", tooLong, err)
	}
	skipped, err := skipLine(r, 1<<20)
	if !errors.Is(err, errEndlessLine) || skipped <= 1<<20 || skipped > 1<<20+4096 {
		t.Fatalf("skipLine of an endless line: %d, %v; want errEndlessLine just past 1 MiB", skipped, err)
	}
	r = bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 200<<10)+"\nnext\n"), 4096)
	if _, _, err := readLine(r, 64<<10); !errors.Is(err, errLineGoesOn) {
		t.Fatalf("readLine of a long line: %v", err)
	}
	if _, err := skipLine(r, 1<<20); err != nil {
		t.Fatalf("skipLine of a line that ends within the bound: %v", err)
	}
	if next, _, _ := readLine(r, 64<<10); string(next) != "next" {
		t.Fatalf("after the long line: %q", next)
	}
}

// zeros is an endless stream of '0' bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// An error answer whose data encoding/json cannot decode (nested past its
// 10,000 levels) still answers its request, with its code and message:
// dropped, the request waited out its time limit.
func TestParseEnvelope_ErrorWithUndecodableData(t *testing.T) {
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	msg, ok := parseEnvelope([]byte(`{"jsonrpc":"2.0","id":"d7","error":{"code":-32000,"message":"it broke","data":` + deep + `}}`))
	if !ok || msg.ID == nil || msg.ID.String() != mcp.NewRequestId("d7").String() || msg.Error == nil {
		t.Fatalf("parseEnvelope = %+v, %v; want the error answer to d7", msg, ok)
	}
	if msg.Error.Code != -32000 || !strings.HasPrefix(msg.Error.Message, "it broke") || msg.Error.Data != nil {
		t.Errorf("error = %+v; want code and message kept, data left out", *msg.Error)
	}
}

// A server's request whose id mcp-go would not give back as written is
// answered to its id exactly. Before: 9007199254740993 was answered as
// 9007199254740992, 1.0 as 1, and 1e400 made the line not JSON-RPC.
func TestParseEnvelope_ServerRequestIDKeptExactly(t *testing.T) {
	for _, id := range []string{`9007199254740993`, `1.0`, `1e400`, `-0`, `12345678901234567890123`, `1.5`, `42`, `"s1"`} {
		line := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"roots/list"}`)
		msg, ok := parseEnvelope(line)
		if !ok || msg.ID == nil {
			t.Errorf("id %s: not read as a request", id)
			continue
		}
		answer, err := json.Marshal(transport.NewJSONRPCResultResponse(*msg.ID, json.RawMessage(`{}`)))
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ ID json.RawMessage }
		if err := json.Unmarshal(answer, &got); err != nil || string(got.ID) != id {
			t.Errorf("id %s: answered to id %s (%v)", id, got.ID, err)
		}
	}
}
