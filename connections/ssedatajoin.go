package connections

import (
	"bytes"
	"io"
)

// sseDataJoinBody gives mcp-go each SSE event's data as one "data:" line.
// mcp-go joins an event's data lines with existing + "\n" + value, which
// copies all the data so far for every line: an event of 200,000 empty
// data lines (1.4 MB) cost 3.4 s of CPU, one of a million never ended,
// and no size limit trips, as the data itself is small. So the data
// lines of an event are joined here, in one buffer, and passed on as a
// single line where the event ends; the event's other lines pass on as
// they come. mcp-go acts on an event only once it has ended, so moving
// its data to the end of it changes nothing but the cost.
//
// The lines are joined with a tab where mcp-go puts a '\n', since a data
// line cannot hold a '\n'. The data is a JSON message (or, for a legacy
// server's endpoint event, a URL), and in JSON a tab does all a '\n'
// does: between tokens both are white space, and inside a string or a
// number both are invalid, so every message decodes to the same value,
// or fails, as before. (A space would turn a string broken over two
// lines, invalid, into a valid one.) A URL with either fails to parse.
//
// Lines are read as mcp-go reads them: they end at '\n', their trailing
// '\r's are dropped, one holding nothing else ends the event, and a
// "data:" line's value is the rest less one leading space. The joined
// data is held until the event ends: at most what the guards below
// (sseNestingBody, --max-message) let through, which mcp-go holds anyway.
// The fields mcp-go reads besides data (event, id, retry) pass on when
// their line has ended, so that a line the stream cuts off is dropped,
// as mcp-go drops it, and not completed by the data passed after it;
// lines mcp-go ignores (comments, other fields) pass on as they come.
type sseDataJoinBody struct {
	io.ReadCloser

	chunk []byte // read buffer
	out   []byte // being written, then ready for the reader
	// queue is what is ready for the reader, in order, from qoff of its
	// first: an event's joined data goes there as it is, not copied into
	// out (a large event would be held twice).
	queue [][]byte
	qoff  int
	err   error // the stream's, once all is read

	data []byte // the event's data lines so far, joined

	// The line being read.
	lineStart  bool   // the next byte starts a line
	crs        int    // undecided: the '\r's the line starts with, all it holds so far
	head       []byte // undecided: the line's start, a prefix of a field's name; then a field line's bytes
	kind       int    // lineUndecided, lineData, lineField or lineOther
	spaceNext  bool   // a data line: the next byte is the one optional space
	lineBegins int    // a data line: where it starts in data, before its separator
	valueAt    int    // a data line: where its value starts in data
}

const (
	lineUndecided = iota
	lineData
	lineField // event:, id: or retry:, held until its line ends
	lineOther
)

// sseFields are the fields mcp-go reads, each but data held to its line's
// end.
var sseFields = [...]string{"data:", "event:", "id:", "retry:"}

// joinedDataKeep bounds the data buffer kept between events: a large
// event's memory is not kept for the session's life.
const joinedDataKeep = 64 << 10

func newSSEDataJoinBody(body io.ReadCloser) *sseDataJoinBody {
	return &sseDataJoinBody{ReadCloser: body, lineStart: true}
}

func (b *sseDataJoinBody) Read(p []byte) (int, error) {
	for {
		if len(b.queue) > 0 {
			seg := b.queue[0]
			n := copy(p, seg[b.qoff:])
			b.qoff += n
			if b.qoff == len(seg) {
				b.queue[0] = nil // a large event's data is not kept once read
				b.queue, b.qoff = b.queue[1:], 0
			}
			return n, nil
		}
		if len(b.out) > 0 {
			b.queue, b.out = append(b.queue, b.out), nil
			continue
		}
		if b.err != nil || len(p) == 0 {
			return 0, b.err
		}
		if b.chunk == nil {
			b.chunk = make([]byte, 32<<10)
		}
		n, err := b.ReadCloser.Read(b.chunk)
		b.take(b.chunk[:n])
		if err != nil {
			b.err = err
			b.endStream()
		}
	}
}

// take follows p, the stream's next bytes.
func (b *sseDataJoinBody) take(p []byte) {
	for len(p) > 0 {
		if b.lineStart {
			b.lineStart, b.crs, b.head, b.kind, b.spaceNext = false, 0, b.head[:0], lineUndecided, false
		}
		nl := bytes.IndexByte(p, '\n')
		line := p
		if nl >= 0 {
			line = p[:nl]
		}
		b.takeLine(line)
		if nl < 0 {
			return
		}
		b.endLine()
		b.lineStart = true
		p = p[nl+1:]
	}
}

// takeLine follows part of a line, not holding its '\n'.
func (b *sseDataJoinBody) takeLine(part []byte) {
	for b.kind == lineUndecided && len(part) > 0 {
		c := part[0]
		part = part[1:]
		if c == '\r' && len(b.head) == 0 {
			b.crs++
			continue
		}
		if b.crs > 0 { // no field, nor a blank line
			b.kind = lineOther
			b.out = append(append(b.out, bytes.Repeat([]byte{'\r'}, b.crs)...), c)
			break
		}
		b.head = append(b.head, c)
		b.decide()
	}
	switch b.kind {
	case lineOther:
		b.out = append(b.out, part...)
	case lineField:
		b.head = append(b.head, part...)
	case lineData:
		if b.spaceNext && len(part) > 0 {
			b.spaceNext = false
			if part[0] == ' ' {
				part = part[1:]
			}
		}
		b.data = append(b.data, part...)
	}
}

// decide tells the line's kind from its start, head, once it can.
func (b *sseDataJoinBody) decide() {
	prefix := false
	for i, field := range sseFields {
		switch {
		case string(b.head) == field && i == 0:
			b.kind, b.spaceNext, b.lineBegins = lineData, true, len(b.data)
			if len(b.data) > 0 {
				b.data = append(b.data, '\t') // mcp-go's '\n' (see above)
			}
			b.valueAt = len(b.data)
			return
		case string(b.head) == field:
			b.kind = lineField
			return
		case len(b.head) < len(field) && field[:len(b.head)] == string(b.head):
			prefix = true
		}
	}
	if !prefix {
		b.kind = lineOther
		b.out = append(b.out, b.head...)
	}
}

// endLine ends the line being read at its '\n'.
func (b *sseDataJoinBody) endLine() {
	switch b.kind {
	case lineData:
		// mcp-go drops a line's trailing '\r's before it reads the value.
		for len(b.data) > b.valueAt && b.data[len(b.data)-1] == '\r' {
			b.data = b.data[:len(b.data)-1]
		}
	case lineField:
		b.out = append(append(b.out, b.head...), '\n')
	case lineOther:
		b.out = append(b.out, '\n')
	default:
		if len(b.head) == 0 { // a blank line: the event ends
			b.passData()
			b.out = append(b.out, bytes.Repeat([]byte{'\r'}, b.crs)...)
		}
		b.out = append(append(b.out, b.head...), '\n') // a field's name cut short: ignored
	}
}

// passData passes the event's data on as one line, unless it is a
// message both request and answer (bothRequestAndAnswer).
func (b *sseDataJoinBody) passData() {
	if len(b.data) > 0 && !bothRequestAndAnswer(b.data) {
		// The data is handed to the reader, not copied.
		b.queue = append(b.queue, append(b.out, "data: "...), b.data)
		b.out, b.data = []byte{'\n'}, nil
		return
	}
	b.data = b.data[:0]
	if cap(b.data) > joinedDataKeep {
		b.data = nil
	}
}

// endStream passes on an event the stream ends in, as mcp-go handles it:
// its whole lines, not a line the stream cut off (mcp-go drops that).
func (b *sseDataJoinBody) endStream() {
	if !b.lineStart {
		switch b.kind {
		case lineData:
			b.data = b.data[:b.lineBegins]
		case lineOther:
			if len(b.data) > 0 {
				b.out = append(b.out, '\n') // a line mcp-go ignores: ended, so as not to join the data's
			}
		}
	}
	b.passData()
}

// bothRequestAndAnswer reports whether data, an event's data, is a
// message with a "method" and a "result" or "error" at its top level,
// which JSON-RPC allows no message. It is dropped: sseIDBody takes it for
// an answer, and gives it no surrogate id, but mcp-go's streamable HTTP
// client serves it as a request, and its legacy SSE client takes it for
// the answer to its own request of that id. One with the id
// "dispatch-srv-N" had mcp-go's answer to it go to the server under the
// id of the request still pending under that surrogate, which was then
// forgotten.
func bothRequestAndAnswer(data []byte) bool {
	m := scanMembers(data, "method", "result", "error")
	return m.members[0].seen && (m.members[1].seen || m.members[2].seen)
}
