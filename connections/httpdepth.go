package connections

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
)

// MaxHTTPAnswerNesting is how deep a streamable HTTP or SSE server's
// message may nest arrays and objects: mcp-go's client decodes these
// transports' messages with encoding/json, which stops at 10,000 levels
// (a stdio server's are read by dispatch, up to MaxAnswerNesting). A
// deeper answer fails the call it answers with a MessageTooDeepError, as
// a stdio server's does, and the server stays in use: without this, the
// decoder's error read as a lost connection (a new session, then backoff)
// or, over SSE, the answer was dropped and its call waited out its limit.
const MaxHTTPAnswerNesting = 10_000

// maxWatchedIDLength bounds the request id a too-deep SSE message's
// top-level "id" is read as: dispatch's own ids are short.
const maxWatchedIDLength = 64

// nestingScan follows one JSON message a chunk at a time, without
// recursion: how deep it nests, and the string value of its top-level "id"
// and whether it has a top-level "method" (a request or notification of
// the server, not an answer). It keeps counting past the limit, so that an
// id written after a deep result (as the TypeScript SDK writes its
// answers) is still found. Keys are compared as written: an id key spelt
// with escapes is not seen, and its call waits out its time limit.
type nestingScan struct {
	limit    int
	depth    int
	exceeded bool

	inString, escaped bool
	expectKey         bool   // at the top level, the next string is a key
	capturing         int    // what the string being read is: captureNone, captureKey, captureID
	buf               []byte // the key or id read so far, up to maxWatchedIDLength
	overlong          bool
	lastKey           string // the last top-level key, if "id" or "method"
	id                []byte // the top-level "id" string, as written (escapes kept)
	hasID, hasMethod  bool
}

const (
	captureNone = iota
	captureKey
	captureID
)

func (s *nestingScan) reset() {
	*s = nestingScan{limit: s.limit, buf: s.buf[:0], id: s.id[:0]}
}

// feed scans p and returns the index of the bracket that first took the
// message past the limit, or -1.
func (s *nestingScan) feed(p []byte) int {
	over := -1
	for i := 0; i < len(p); i++ {
		b := p[i]
		if s.inString {
			if s.capturing == captureNone && !s.escaped {
				// Most of a message is string contents: skip to what matters.
				j := bytes.IndexAny(p[i:], `"\`)
				if j < 0 {
					return over
				}
				i += j
				b = p[i]
			}
			switch {
			case s.escaped:
				s.escaped = false
			case b == '\\':
				s.escaped = true
			case b == '"':
				s.inString = false
				s.endString()
				continue
			}
			s.capture(b)
			continue
		}
		switch b {
		case '"':
			s.inString = true
			s.startString()
		case '{', '[':
			s.depth++
			if s.depth > s.limit && !s.exceeded {
				s.exceeded, over = true, i
			}
			s.expectKey = s.depth == 1 && b == '{'
		case '}', ']':
			s.depth--
		case ',':
			s.expectKey = s.depth == 1
		}
	}
	return over
}

func (s *nestingScan) startString() {
	s.capturing, s.buf, s.overlong = captureNone, s.buf[:0], false
	if s.depth != 1 {
		return
	}
	switch {
	case s.expectKey:
		s.capturing = captureKey
	case s.lastKey == "id":
		s.capturing = captureID
	}
}

func (s *nestingScan) capture(b byte) {
	if s.capturing == captureNone {
		return
	}
	if len(s.buf) == maxWatchedIDLength {
		s.overlong = true
		return
	}
	s.buf = append(s.buf, b)
}

func (s *nestingScan) endString() {
	what := s.capturing
	s.capturing = captureNone
	switch what {
	case captureKey:
		s.expectKey = false
		s.lastKey = ""
		if !s.overlong && (string(s.buf) == "id" || string(s.buf) == "method") {
			s.lastKey = string(s.buf)
			s.hasMethod = s.hasMethod || s.lastKey == "method"
		}
	case captureID:
		s.lastKey = ""
		if !s.overlong {
			s.id, s.hasID = append(s.id[:0], s.buf...), true
		}
	}
}

// answerID is the id of the answer scanned, when it is one with a string
// id.
func (s *nestingScan) answerID() (string, bool) {
	if !s.hasID || s.hasMethod {
		return "", false
	}
	var id string
	if err := json.Unmarshal(append(append([]byte{'"'}, s.id...), '"'), &id); err != nil {
		return "", false
	}
	return id, true
}

// nestingGuard is where dispatch's requests wait on one HTTP or SSE
// session for an answer mcp-go could not decode: refuse fails the
// request a too-deep SSE message answers.
type nestingGuard struct {
	mu      sync.Mutex
	waiting map[string]*deepWatch // by request id; one entry per request in flight
}

// deepWatch is one request waiting on a nestingGuard.
type deepWatch struct {
	guard   *nestingGuard
	id      string
	cancel  context.CancelFunc
	mu      sync.Mutex
	refusal error
}

// watch registers request id until end is called; the context returned
// ends if the request's answer is refused.
func (g *nestingGuard) watch(ctx context.Context, id string) (context.Context, *deepWatch) {
	ctx, cancel := context.WithCancel(ctx)
	w := &deepWatch{guard: g, id: id, cancel: cancel}
	g.mu.Lock()
	if g.waiting == nil {
		g.waiting = map[string]*deepWatch{}
	}
	g.waiting[id] = w
	g.mu.Unlock()
	return ctx, w
}

// end unregisters the request and releases its context.
func (w *deepWatch) end() {
	w.guard.mu.Lock()
	if w.guard.waiting[w.id] == w {
		delete(w.guard.waiting, w.id)
	}
	w.guard.mu.Unlock()
	w.cancel()
}

// refused is why the request's answer was refused, or nil (also for a
// nil w: a request no guard watches).
func (w *deepWatch) refused() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refusal
}

// refuse fails the request id, if one waits, with refusal.
func (g *nestingGuard) refuse(id string, refusal error) {
	g.mu.Lock()
	w := g.waiting[id]
	g.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	w.refusal = refusal
	w.mu.Unlock()
	w.cancel()
}

// guardAnswer wraps the body of a successful answer by its media type:
// a JSON body's read fails, at the bracket past MaxHTTPAnswerNesting or
// the byte past maxMessage (--max-message), with a MessageTooDeepError or
// a MessageTooLongError (mcp-go returns the read error, wrapped, from the
// request); an SSE stream goes through, and each event too deep to
// decode or longer than maxMessage fails the request it answers through
// g (a too-long event is cut off, so that mcp-go never holds more than
// maxMessage of it, and the stream goes on); any other body is cut at
// maxMessage.
func guardAnswer(resp *http.Response, mediaType string, g *nestingGuard, maxMessage int64, sent sentRequest) {
	if maxMessage <= 0 {
		maxMessage = DefaultMaxMessageBytes
	}
	switch mediaType {
	case "application/json":
		resp.Body = &jsonNestingBody{ReadCloser: &sizeLimitedBody{ReadCloser: resp.Body, max: maxMessage}, scan: nestingScan{limit: MaxHTTPAnswerNesting}}
	case "text/event-stream":
		body := &sseNestingBody{ReadCloser: resp.Body, guard: g, scan: nestingScan{limit: MaxHTTPAnswerNesting}, lineStart: true, max: maxMessage}
		if sent.isCall {
			body.postID = sent.id
		}
		resp.Body = body
	default:
		resp.Body = &sizeLimitedBody{ReadCloser: resp.Body, max: maxMessage}
	}
}

func httpTooDeep() error { return &MessageTooDeepError{Limit: MaxHTTPAnswerNesting, HTTP: true} }

// jsonNestingBody is a JSON answer that stops being read where it nests
// past the limit.
type jsonNestingBody struct {
	io.ReadCloser
	scan nestingScan
	err  error
}

func (b *jsonNestingBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	if over := b.scan.feed(p[:n]); over >= 0 {
		b.err = httpTooDeep()
		return over, b.err
	}
	return n, err
}

// sseNestingBody passes an SSE stream through, following the data of
// each event: at the end of an event nested past the limit, which mcp-go
// will drop as undecodable, the request it answers is refused. An event
// longer than max is cut off where it crosses it, made undecodable (so
// that mcp-go drops it), and the request it answers refused at once if
// known by then (its id came first, or the stream answers one POST), else
// at the event's end. It reads lines as mcp-go does: they end at '\n',
// and one holding nothing but '\r' ends the event.
type sseNestingBody struct {
	io.ReadCloser
	guard  *nestingGuard
	scan   nestingScan
	max    int64  // bytes an event's lines may hold; 0: no limit
	postID string // the request this stream answers (a POST's), if known

	lineStart bool   // the next byte starts a line
	head      []byte // the start of the line, until it is known to be data or not
	inData    bool   // the rest of the line is an event's data
	blank     bool   // the line holds only '\r' so far

	eventBytes  int64 // the bytes of the event's lines so far
	oversized   bool  // the event crossed max: the rest of it is dropped
	refusedLong bool  // the request it answers was refused already
	linePassed  bool  // some of the current line was passed on

	// What a read passes on is written over the bytes read (it is never
	// longer), until the cut of an event adds bytes: from there on, it
	// goes to pending, which the next reads return first.
	out     []byte
	w       int
	spill   bool
	pending []byte
	err     error
}

func (b *sseNestingBody) Read(p []byte) (int, error) {
	for {
		if len(b.pending) > 0 {
			n := copy(p, b.pending)
			b.pending = b.pending[n:]
			return n, nil
		}
		if b.err != nil || len(p) == 0 {
			return 0, b.err
		}
		n, err := b.ReadCloser.Read(p)
		b.out, b.w, b.spill = p, 0, false
		b.follow(p[:n])
		if err == io.EOF {
			b.endEvent() // mcp-go handles an event the stream ends in
		}
		b.err = err
		if b.w > 0 {
			return b.w, nil
		}
	}
}

// emit passes data on.
func (b *sseNestingBody) emit(data []byte) {
	if b.spill {
		b.pending = append(b.pending, data...)
		return
	}
	b.w += copy(b.out[b.w:], data)
}

// inject passes on data that was not read, after what was.
func (b *sseNestingBody) inject(data string) {
	b.spill = true
	b.pending = append(b.pending, data...)
}

func (b *sseNestingBody) follow(p []byte) {
	for len(p) > 0 {
		if b.lineStart {
			b.lineStart, b.head, b.inData, b.blank, b.linePassed = false, b.head[:0], false, true, false
		}
		nl := bytes.IndexByte(p, '\n')
		line := p
		if nl >= 0 {
			line = p[:nl]
		}
		b.followLine(line)
		b.pass(line)
		if nl < 0 {
			return
		}
		if b.blank {
			b.endEvent()
			b.emit(newline)
		} else {
			if b.inData {
				b.scan.feed(newline) // mcp-go joins data lines with one
			}
			if !b.oversized {
				b.emit(newline)
			}
		}
		b.lineStart = true
		p = p[nl+1:]
	}
}

var newline = []byte{'\n'}

// pass passes on part of a line (not its '\n') up to the event's limit.
func (b *sseNestingBody) pass(part []byte) {
	if b.oversized || len(part) == 0 {
		return
	}
	if b.max > 0 && b.eventBytes+int64(len(part)) > b.max {
		keep := b.max - b.eventBytes
		b.emit(part[:keep])
		b.linePassed = b.linePassed || keep > 0
		b.eventBytes = b.max
		b.cut()
		return
	}
	b.eventBytes += int64(len(part))
	b.emit(part)
	b.linePassed = true
}

// cut ends what mcp-go is given of an event too long, with a data line
// no JSON decoder takes, and refuses the request it answers if known.
func (b *sseNestingBody) cut() {
	b.oversized = true
	if b.linePassed {
		b.inject("\n")
	}
	b.inject("data: \x00 (cut off by dispatch: longer than --max-message)\n")
	if id, ok := b.cutAnswers(); ok {
		b.guard.refuse(id, b.tooLong())
		b.refusedLong = true
	}
}

// cutAnswers is the request the event being cut answers, if known yet.
func (b *sseNestingBody) cutAnswers() (string, bool) {
	switch {
	case b.scan.hasMethod:
		return "", false // a request or notification of the server
	case b.scan.hasID:
		return b.scan.answerID()
	case b.postID != "":
		return b.postID, true
	}
	return "", false
}

func (b *sseNestingBody) tooLong() error {
	return &MessageTooLongError{Size: b.max, Limit: b.max}
}

// followLine follows part of a line, not holding its '\n'.
func (b *sseNestingBody) followLine(part []byte) {
	if b.blank && len(bytes.Trim(part, "\r")) > 0 {
		b.blank = false
	}
	if b.inData {
		b.scan.feed(part)
		return
	}
	const field = "data:"
	if len(b.head) >= len(field) {
		return // a line of another field
	}
	take := min(len(field)-len(b.head), len(part))
	b.head = append(b.head, part[:take]...)
	if len(b.head) == len(field) && string(b.head) == field {
		b.inData = true
		b.scan.feed(part[take:])
	}
}

// endEvent refuses the request an event too long or nested too deep
// answers, and starts following the next event.
func (b *sseNestingBody) endEvent() {
	switch {
	case b.oversized && !b.refusedLong:
		if id, ok := b.cutAnswers(); ok {
			b.guard.refuse(id, b.tooLong())
		}
	case b.scan.exceeded && !b.oversized:
		if id, ok := b.scan.answerID(); ok {
			b.guard.refuse(id, httpTooDeep())
		}
	}
	b.scan.reset()
	b.eventBytes, b.oversized, b.refusedLong = 0, false, false
}
