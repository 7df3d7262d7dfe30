package connections

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
)

func deepArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// brackets counts the arrays and objects s opens (none in its strings).
func brackets(s string) int { return strings.Count(s, "[") + strings.Count(s, "{") }

func TestNestingScan_Feed(t *testing.T) {
	deep := deepArrays(MaxHTTPAnswerNesting - 1) // inside "result": the limit
	for _, c := range []struct {
		name     string
		msg      string
		exceeded bool
		id       string
		isAnswer bool
	}{
		{"at the limit", `{"jsonrpc":"2.0","id":"d1","result":` + deep + `}`, false, "d1", true},
		{"past the limit", `{"jsonrpc":"2.0","id":"d2","result":[` + deep + `]}`, true, "d2", true},
		{"id after the result", `{"result":[` + deep + `],"jsonrpc":"2.0","id":"d3"}`, true, "d3", true},
		{"brackets in strings", `{"id":"d4","result":{"text":"` + strings.Repeat(`[{\"`, 20000) + `"}}`, false, "d4", true},
		{"escaped id", `{"id":"\u0064\"5","result":[` + deep + `]}`, true, `d"5`, true},
		{"a nested id is not the message's", `{"result":{"id":"x","v":[` + deep + `]}}`, true, "", false},
		{"a server request", `{"id":"s1","method":"sampling/createMessage","params":[` + deep + `]}`, true, "", false},
		{"a numeric id", `{"id":7,"result":[` + deep + `]}`, true, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Fed in odd chunks: where a read ends must not matter.
			for _, chunk := range []int{1, 7, 4096, len(c.msg)} {
				s := nestingScan{limit: MaxHTTPAnswerNesting}
				over := -1
				for i := 0; i < len(c.msg); i += chunk {
					end := min(i+chunk, len(c.msg))
					if at := s.feed([]byte(c.msg[i:end])); at >= 0 && over < 0 {
						over = i + at
					}
				}
				if s.exceeded != c.exceeded {
					t.Fatalf("chunk %d: exceeded %v, want %v", chunk, s.exceeded, c.exceeded)
				}
				if c.exceeded && (c.msg[over] != '[' || brackets(c.msg[:over]) != MaxHTTPAnswerNesting) {
					t.Errorf("chunk %d: past the limit at %d, not at bracket %d", chunk, over, MaxHTTPAnswerNesting+1)
				}
				id, ok := s.answerID()
				if ok != c.isAnswer || id != c.id {
					t.Errorf("chunk %d: answerID %q %v, want %q %v", chunk, id, ok, c.id, c.isAnswer)
				}
			}
		})
	}
}

// A JSON body's read stops at the bracket past the limit, with dispatch's
// refusal; one at the limit reads whole.
func TestJSONNestingBody(t *testing.T) {
	deep := deepArrays(MaxHTTPAnswerNesting - 1)
	for _, c := range []struct {
		body    string
		refused bool
	}{
		{`{"id":"d1","result":` + deep + `}`, false},
		{`{"id":"d1","result":[` + deep + `]}`, true},
	} {
		b := &jsonNestingBody{ReadCloser: io.NopCloser(strings.NewReader(c.body)), scan: nestingScan{limit: MaxHTTPAnswerNesting}}
		got, err := io.ReadAll(b)
		var tooDeep *MessageTooDeepError
		if c.refused != errors.As(err, &tooDeep) {
			t.Fatalf("%d bytes: err %v, want refused %v", len(c.body), err, c.refused)
		}
		if !c.refused && string(got) != c.body {
			t.Errorf("the body was changed")
		}
		if c.refused && brackets(string(got)) != MaxHTTPAnswerNesting {
			t.Errorf("read %d brackets before the refusal, want %d", brackets(string(got)), MaxHTTPAnswerNesting)
		}
		// The limit is encoding/json's, which mcp-go decodes with.
		var v any
		if decodeErr := json.Unmarshal([]byte(c.body), &v); (decodeErr != nil) != c.refused {
			t.Errorf("%d bytes: encoding/json says %v, want refused %v", len(c.body), decodeErr, c.refused)
		}
	}
}

// An SSE stream passes through unchanged; the request an event too deep
// answers is refused, and no other.
func TestSSENestingBody(t *testing.T) {
	deep := deepArrays(MaxHTTPAnswerNesting)
	stream := "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\n" +
		"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"d1\",\"result\":\ndata: " + deep + "}\n\n" + // two data lines
		"data: {\"id\":\"d2\",\"result\":" + deepArrays(MaxHTTPAnswerNesting-1) + "}\n\n" +
		": data: {\"id\":\"d3\",\"result\":" + deep + "}\n\n" + // a comment, not data
		"data: {\"result\":" + deep + ",\"id\":\"d4\"}" // the stream ends in the event
	for _, chunk := range []int{1, 13, len(stream)} {
		var g nestingGuard
		watches := map[string]*deepWatch{}
		for _, id := range []string{"d1", "d2", "d3", "d4"} {
			_, watches[id] = g.watch(context.Background(), id)
		}
		body := &sseNestingBody{ReadCloser: io.NopCloser(&chunkReader{data: []byte(stream), chunk: chunk}), guard: &g,
			scan: nestingScan{limit: MaxHTTPAnswerNesting}, lineStart: true}
		got, err := io.ReadAll(body)
		if err != nil || string(got) != stream {
			t.Fatalf("chunk %d: the stream was changed (%v)", chunk, err)
		}
		for id, want := range map[string]bool{"d1": true, "d2": false, "d3": false, "d4": true} {
			if refused := watches[id].refused() != nil; refused != want {
				t.Errorf("chunk %d: %s refused %v, want %v", chunk, id, refused, want)
			}
			watches[id].end()
		}
		if len(g.waiting) != 0 {
			t.Errorf("chunk %d: %d requests still watched after their end", chunk, len(g.waiting))
		}
	}
}

// chunkReader reads data at most chunk bytes at a time.
type chunkReader struct {
	data  []byte
	chunk int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.chunk)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// BenchmarkNestingBody: what following an answer's nesting and length
// costs, against mcp-go's decoding of it (which the HTTP and SSE
// transports do anyway).
func BenchmarkNestingBody(b *testing.B) {
	var msg bytes.Buffer
	msg.WriteString(`{"jsonrpc":"2.0","id":"d1","result":{"content":[`)
	for i := range 20000 {
		if i > 0 {
			msg.WriteByte(',')
		}
		msg.WriteString(`{"type":"text","text":"line of a result with a few words in it, and \"quotes\""}`)
	}
	msg.WriteString(`]}}`)
	data := msg.Bytes()
	b.Run("mcp-go decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var resp transport.JSONRPCResponse
			if err := json.NewDecoder(bytes.NewReader(data)).Decode(&resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json body", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			body := &jsonNestingBody{ReadCloser: &sizeLimitedBody{ReadCloser: io.NopCloser(bytes.NewReader(data)), max: DefaultMaxMessageBytes}, scan: nestingScan{limit: MaxHTTPAnswerNesting}}
			if _, err := io.Copy(io.Discard, body); err != nil {
				b.Fatal(err)
			}
		}
	})
	sse := append(append([]byte("event: message\ndata: "), data...), "\n\n"...)
	b.Run("sse event", func(b *testing.B) {
		b.SetBytes(int64(len(sse)))
		var g nestingGuard
		for b.Loop() {
			body := &sseNestingBody{ReadCloser: io.NopCloser(bytes.NewReader(sse)), guard: &g, scan: nestingScan{limit: MaxHTTPAnswerNesting}, lineStart: true, max: DefaultMaxMessageBytes}
			if _, err := io.Copy(io.Discard, body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// An SSE event longer than its limit is cut where it crosses it and made
// undecodable, and the request it answers refused; the events around it
// pass through unchanged, wherever the reads split the stream.
func TestSSENestingBody_CutsLongEvents(t *testing.T) {
	const max = 64
	long := "data: {\"jsonrpc\":\"2.0\",\"id\":\"a1\",\"result\":\"" + strings.Repeat("x", 200) + "\"}"
	idLast := "data: {\"result\":\"" + strings.Repeat("y", 200) + "\",\"id\":\"a2\"}"
	short := "data: {\"jsonrpc\":\"2.0\",\"id\":\"a3\",\"result\":{}}"
	notice := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":\"" + strings.Repeat("z", 200) + "\"}"
	stream := "event: message\n" + long + "\n\n" + idLast + "\r\n\r\n" + short + "\n\n" + notice + "\n\n" + short + "\n\n"
	const poison = "\ndata: \x00 (cut off by dispatch: longer than --max-message)\n"
	// "event: message" counts in its event's bytes.
	want := "event: message\n" + long[:max-len("event: message")] + poison + "\n" +
		idLast[:max] + poison + "\n" + short + "\n\n" + notice[:max] + poison + "\n" + short + "\n\n"
	for _, chunk := range []int{1, 5, 63, 64, 65, 4096} {
		var g nestingGuard
		watches := map[string]*deepWatch{}
		for _, id := range []string{"a1", "a2", "a3"} {
			_, watches[id] = g.watch(context.Background(), id)
		}
		body := &sseNestingBody{ReadCloser: io.NopCloser(&chunkReader{data: []byte(stream), chunk: chunk}), guard: &g,
			scan: nestingScan{limit: MaxHTTPAnswerNesting}, lineStart: true, max: max}
		got, err := io.ReadAll(body)
		if err != nil || string(got) != want {
			t.Fatalf("chunk %d: got %q (%v),\nwant %q", chunk, got, err, want)
		}
		for id, refused := range map[string]bool{"a1": true, "a2": true, "a3": false} {
			var tooLong *MessageTooLongError
			if got := watches[id].refused(); errors.As(got, &tooLong) != refused {
				t.Errorf("chunk %d: %s refused with %v, want refused %v", chunk, id, got, refused)
			}
			watches[id].end()
		}
	}
}

// FuzzSSENestingBody: what an SSE stream becomes does not depend on how
// reads split it, and a stream whose events all fit passes unchanged.
func FuzzSSENestingBody(f *testing.F) {
	f.Add([]byte("data: {\"id\":\"a\",\"result\":\"xxxxxxxxxxxxxxxxxxxxxxxx\"}\n\ndata: {}\r\n\r\n"), uint8(3), uint8(16))
	f.Add([]byte("event: m\ndata: [[[[\n: c\n\n\r\n"), uint8(1), uint8(4))
	f.Fuzz(func(t *testing.T, stream []byte, chunk, max uint8) {
		read := func(chunk int) []byte {
			var g nestingGuard
			body := &sseNestingBody{ReadCloser: io.NopCloser(&chunkReader{data: stream, chunk: chunk}), guard: &g,
				scan: nestingScan{limit: MaxHTTPAnswerNesting}, lineStart: true, max: int64(max) + 1}
			got, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		whole := read(len(stream) + 1)
		if split := read(int(chunk) + 1); !bytes.Equal(split, whole) {
			t.Fatalf("split in %d-byte reads: %q, whole: %q", int(chunk)+1, split, whole)
		}
		// An event's bytes are those of its lines, but for their '\n',
		// up to the line holding only '\r' (or nothing) that ends it.
		fits, eventBytes := true, 0
		for _, line := range strings.Split(string(stream), "\n") {
			eventBytes += len(line)
			fits = fits && eventBytes <= int(max)+1
			if strings.Trim(line, "\r") == "" {
				eventBytes = 0
			}
		}
		if fits && !bytes.Equal(whole, stream) {
			t.Fatalf("a stream whose events fit was changed: %q -> %q", stream, whole)
		}
	})
}
