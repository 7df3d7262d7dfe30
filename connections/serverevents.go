package connections

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
)

// MaxHeldServerEvent bounds how much of one SSE event of a streamable
// HTTP server is held back to find out whether it is a request whose id
// needs a surrogate (serverids.go). An answer passes on as soon as its
// "result" or "error" starts, a request as soon as its method and id
// have been read; only a message whose id comes after more than this
// much (a request whose params precede its id) passes on unchanged, its
// id then read by mcp-go as before.
const MaxHeldServerEvent = 1 << 20

// heldLookStep is how much an undecided event's data must grow by before
// it is looked at again: each look rescans it from its start, and looks
// spaced so cost at most twice the scan of the whole.
const heldLookStep = 512

// swapServerIDs passes an SSE answer's events through an sseIDBody;
// requests, set for a legacy SSE server, takes the server's requests out.
// refuse answers a request refused as no surrogate id is free. What
// mcp-go reads has each event's data on one line (sseDataJoinBody).
func swapServerIDs(resp *http.Response, ids *serverIDs, requests *sseServerRequests, refuse func(answer []byte)) {
	if mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mediaType == "text/event-stream" {
		resp.Body = newSSEDataJoinBody(&sseIDBody{ReadCloser: resp.Body, ids: ids, requests: requests, refuse: refuse, lineStart: true})
	}
}

// sseIDBody passes a streamable HTTP server's SSE stream on, holding each
// event back until it is known whether it is a request to give mcp-go
// under a surrogate id (or a cancellation of one), and changing just that
// id. It reads lines as mcp-go does: they end at '\n', a line holding
// nothing but '\r' ends the event, and a "data:" line's value (less one
// leading space) is the event's data, its lines joined with '\n'.
type sseIDBody struct {
	io.ReadCloser
	ids *serverIDs
	// requests, set for a legacy SSE server's stream, answers the
	// server's requests (sserequests.go): none passes on to mcp-go,
	// whose SSE client would take one for the answer to its own request
	// of the same id.
	requests *sseServerRequests

	chunk []byte // read buffer
	out   []byte // ready for the reader, from off
	off   int
	err   error // the stream's, once out is drained

	// The event being read.
	passing bool       // decided: the rest of its bytes pass as they come
	held    []byte     // while undecided: its bytes so far
	data    []byte     // while undecided: its data so far
	spans   []dataSpan // where each data line's value is in held and data
	looked  int        // len(data) at the last look
	// With requests: the event is a request, its data kept (up to
	// MaxHeldSSERequest, over: past it) and nothing of it passed on; or
	// it is dropped, undecided past MaxHeldSSERequest.
	capturing, over, dropping bool
	// refusing: the event is a request refused, as no surrogate id is
	// free (maxServerIDSwaps), with refuse; nothing of it passes on.
	refusing bool
	refuse   func(answer []byte)

	// The line being read.
	lineStart bool   // the next byte starts a line
	head      []byte // the line's start, until it is known to be data or not
	inData    bool   // the rest of the line is data
	spaceNext bool   // the next data byte is the one optional space
	blank     bool   // the line holds only '\r' so far
}

// dataSpan is one data line's value: it starts at raw in held and at at
// in data.
type dataSpan struct{ raw, at int }

func (b *sseIDBody) Read(p []byte) (int, error) {
	for b.off == len(b.out) && b.err == nil {
		b.out, b.off = b.out[:0], 0
		if b.chunk == nil {
			b.chunk = make([]byte, 32<<10)
		}
		n, err := b.ReadCloser.Read(b.chunk)
		b.take(b.chunk[:n])
		if err != nil {
			b.err = err
			b.endEvent() // mcp-go handles an event the stream ends in
		}
	}
	n := copy(p, b.out[b.off:])
	b.off += n
	if b.off == len(b.out) && b.err != nil {
		return n, b.err
	}
	return n, nil
}

// take follows p, the stream's next bytes.
func (b *sseIDBody) take(p []byte) {
	for len(p) > 0 {
		if b.lineStart {
			b.lineStart, b.head, b.inData, b.spaceNext, b.blank = false, b.head[:0], false, false, true
		}
		nl := bytes.IndexByte(p, '\n')
		line := p
		if nl >= 0 {
			line = p[:nl]
		}
		if over := len(b.held) + len(line) - b.holdLimit(); b.undecided() && over > 0 {
			// Held up to the limit and a byte past it, which decides.
			k := len(line) - over + 1
			b.takeLine(line[:k])
			b.look(false)
			line = line[k:]
		}
		b.takeLine(line)
		if nl < 0 {
			break
		}
		b.emit(p[nl : nl+1])
		b.lineStart = true
		if b.blank {
			b.endEvent()
		}
		p = p[nl+1:]
	}
	if b.undecided() && len(b.data) >= b.looked+heldLookStep && len(b.data) >= 2*b.looked {
		b.look(false)
	}
}

// emit passes p on, or holds it with the event.
func (b *sseIDBody) emit(p []byte) {
	if b.capturing || b.dropping || b.refusing {
		return
	}
	if b.passing {
		b.out = append(b.out, p...)
	} else {
		b.held = append(b.held, p...)
	}
}

// takeLine follows part of a line, not holding its '\n'.
func (b *sseIDBody) takeLine(part []byte) {
	if b.blank && len(bytes.Trim(part, "\r")) > 0 {
		b.blank = false
	}
	if b.passing || b.dropping || b.refusing {
		b.emit(part)
		return
	}
	if !b.inData {
		const field = "data:"
		if len(b.head) >= len(field) {
			b.emit(part) // a line of another field
			return
		}
		take := min(len(field)-len(b.head), len(part))
		b.head = append(b.head, part[:take]...)
		b.emit(part[:take])
		part = part[take:]
		if len(b.head) < len(field) || string(b.head) != field {
			b.emit(part)
			return
		}
		b.inData, b.spaceNext = true, true
		if len(b.spans) > 0 {
			b.data = append(b.data, '\n') // mcp-go joins data lines with one
		}
		b.spans = append(b.spans, dataSpan{raw: len(b.held), at: len(b.data)})
	}
	if b.spaceNext && len(part) > 0 {
		b.spaceNext = false
		if part[0] == ' ' {
			b.emit(part[:1])
			part = part[1:]
			b.spans[len(b.spans)-1].raw++
		}
	}
	b.emit(part)
	if b.capturing && len(b.data)+len(part) > MaxHeldSSERequest {
		part, b.over = part[:max(0, MaxHeldSSERequest-len(b.data))], true
	}
	b.data = append(b.data, part...)
}

// undecided is true while the event is held to decide what it is.
func (b *sseIDBody) undecided() bool {
	return !b.passing && !b.capturing && !b.dropping && !b.refusing
}

// holdLimit is how much of an undecided event is held.
func (b *sseIDBody) holdLimit() int {
	if b.requests != nil {
		return MaxHeldSSERequest
	}
	return MaxHeldServerEvent
}

// look decides the event held, if its data so far (final: all of it)
// says enough: it passes on, its id changed if need be.
func (b *sseIDBody) look(final bool) {
	b.looked = len(b.data)
	start, end, replacement, decided, ok, refusal := b.ids.swapEvent(b.data, final)
	if !decided && !final && len(b.held) <= b.holdLimit() {
		return
	}
	if refusal != nil {
		// No surrogate free: the request is answered here, not passed on.
		b.refusing = true
		b.held, b.data, b.spans = b.held[:0], b.data[:0], b.spans[:0]
		if b.refuse != nil {
			b.refuse(refusal)
		}
		return
	}
	if b.requests != nil && b.takeRequest(start, end, replacement, decided, ok) {
		return
	}
	rawStart, rawEnd, inOneLine := b.rawSpan(start, end)
	if ok && inOneLine {
		b.out = append(append(append(b.out, b.held[:rawStart]...), replacement...), b.held[rawEnd:]...)
	} else {
		b.out = append(b.out, b.held...)
	}
	b.passing = true
	b.held, b.data, b.spans = b.held[:0], b.data[:0], b.spans[:0]
}

// rawSpan is where data[start:end] is in held; inOneLine is false when it
// is not within one data line's value (a JSON token never spans two).
func (b *sseIDBody) rawSpan(start, end int) (rawStart, rawEnd int, inOneLine bool) {
	for i, s := range b.spans {
		lineEnd := len(b.data)
		if i+1 < len(b.spans) {
			lineEnd = b.spans[i+1].at - 1 // less the joining '\n'
		}
		if start >= s.at && end <= lineEnd {
			return s.raw + start - s.at, s.raw + end - s.at, true
		}
	}
	return 0, 0, false
}

// endEvent passes on what is held of the event that just ended, and
// starts following the next.
func (b *sseIDBody) endEvent() {
	if b.undecided() {
		b.look(true)
	}
	switch {
	case b.capturing:
		b.requests.take(b.data, !b.over)
	case b.dropping:
		b.requests.dropped()
	}
	if b.capturing || b.dropping {
		b.held, b.data, b.spans = b.held[:0], b.data[:0], b.spans[:0]
		if cap(b.data) > MaxHeldServerEvent {
			b.data = nil // a large request's memory is not kept for the session's life
		}
	}
	b.passing, b.looked, b.capturing, b.over, b.dropping, b.refusing = false, 0, false, false, false, false
}

// takeRequest keeps the event held from mcp-go when it is a request (its
// id changed to its surrogate if it has one), or undecided; it says
// whether it did.
func (b *sseIDBody) takeRequest(start, end int, replacement []byte, decided, ok bool) bool {
	switch {
	case !decided:
		b.dropping = true
	case mayBeSwapped(b.data) && isServerRequest(b.data):
		b.capturing = true
		if ok {
			b.data = append(b.data[:start], append(replacement, b.data[end:]...)...)
		}
	default:
		return false
	}
	b.held = b.held[:0] // spans stay: they join the data lines that follow
	return true
}

// scannedMember is where one top-level member of a message is: seen,
// its name was read; complete, its value (start:end) ended too.
type scannedMember struct {
	seen       bool
	start, end int // end is 0 until the value ends
}

func (m scannedMember) complete() bool { return m.end > 0 }

// scannedMembers are the members scanMembers looked for, and whether the
// object ended.
type scannedMembers struct {
	members [maxScannedMembers]scannedMember
	done    bool
}

// maxScannedMembers is how many names scanMembers looks for at most.
const maxScannedMembers = 5

// scanMembers finds the top-level members names of the JSON object that
// data holds or starts (a message read so far), in one pass that only
// skips strings and counts brackets: safe on input nested however deep,
// as rawjson.TopLevelMember is, but telling what it has seen of a
// message cut short. A name that repeats is the last one's.
func scanMembers(data []byte, names ...string) scannedMembers {
	var out scannedMembers
	names = names[:min(len(names), maxScannedMembers)]
	i := skipJSONSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return out
	}
	depth := 1
	expectKey := true // the next string at depth 1 is a member's name
	current := -1     // which of names the value being read is of
	valueStart := 0
	for i++; i < len(data); i++ {
		switch data[i] {
		case '"':
			end := jsonStringEnd(data, i+1)
			if end < 0 {
				return out
			}
			if depth == 1 && expectKey {
				expectKey = false
				colon := skipJSONSpace(data, end+1)
				if colon >= len(data) || data[colon] != ':' {
					return out
				}
				if current = nameIndex(data[i:end+1], names); current >= 0 {
					out.members[current] = scannedMember{seen: true}
					valueStart = colon + 1
				}
				end = colon
			}
			i = end
		case '[', '{':
			depth++
		case ',':
			if depth == 1 {
				out.finish(data, current, valueStart, i)
				current, expectKey = -1, true
			}
		case ']', '}':
			if depth--; depth == 0 {
				out.finish(data, current, valueStart, i)
				out.done = true
				return out
			}
		}
	}
	return out
}

// finish records the value of member current, if one of those looked
// for, as data[start:end] less white space.
func (s *scannedMembers) finish(data []byte, current, start, end int) {
	if current < 0 {
		return
	}
	start = skipJSONSpace(data, start)
	for end > start && isJSONSpace(data[end-1]) {
		end--
	}
	if end > start {
		s.members[current].start, s.members[current].end = start, end
	}
}

// nameIndex is which of names the JSON string token key is, escapes
// decoded, or -1.
func nameIndex(key []byte, names []string) int {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		var decoded string
		if json.Unmarshal(key, &decoded) != nil {
			return -1
		}
		inner = []byte(decoded)
	}
	for i, name := range names {
		if string(inner) == name {
			return i
		}
	}
	return -1
}

// jsonStringEnd is the index of the quote that ends the string whose
// contents start at from, or -1 if data ends first.
func jsonStringEnd(data []byte, from int) int {
	for i := from; i < len(data); i++ {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		// Escaped when an odd number of backslashes precede it.
		escapes := 0
		for k := i - 1; k >= from && data[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return i
		}
	}
	return -1
}

func skipJSONSpace(data []byte, i int) int {
	for i < len(data) && isJSONSpace(data[i]) {
		i++
	}
	return i
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
