package spill

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// ReadResult is what Read returns.
type ReadResult struct {
	Path      string
	Offset    int64  // where Data starts (moved past a split UTF-8 character if needed)
	Data      []byte // the bytes read, never ending inside a UTF-8 character
	Size      int64  // size of the file
	Next      int64  // offset to continue from: Offset + len(Data)
	Remaining int64  // bytes after Next
	Truncated bool   // bytes remain, or the request was clamped
	Notes     []string
}

// Text returns the agent-facing form: the bytes, then a bracketed line
// saying which bytes these are and, when bytes remain, the offset to
// continue from.
func (r *ReadResult) Text() string { return r.Body() + notesText(r.Notes) }

// Body is Text without the notes: the bytes read, ending in a newline.
func (r *ReadResult) Body() string {
	text := string(r.Data)
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text += "\n"
	}
	return text
}

// String is Text.
func (r *ReadResult) String() string { return r.Text() }

// Read returns up to maxBytes bytes of the file f from offset (0 means
// ReadBytes; more than MaxReadBytes is clamped, and the result says so). It
// never splits a UTF-8 character: an offset inside one moves to its end, and
// the end moves back to the last whole character, so a result never holds
// more than maxBytes; a maxBytes smaller than the character at offset is
// an error saying how many it needs.
func (l Limits) Read(f *os.File, offset, maxBytes int64) (*ReadResult, error) {
	l = l.withDefaults()
	path := f.Name()
	switch {
	case offset < 0:
		return nil, badRequest("read: offset must not be negative, got %d", offset)
	case maxBytes < 0:
		return nil, badRequest("read: max bytes must not be negative, got %d", maxBytes)
	}
	fi, err := regularInfo("read", f)
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if offset > size {
		return nil, badRequest("read: offset %d is past the end of the file: it has %d bytes, so offsets run from 0 to %d; op stat gives the size, op tail the end", offset, size, max(size-1, 0))
	}
	res := &ReadResult{Path: path, Offset: offset, Size: size}
	switch {
	case maxBytes == 0:
		maxBytes = l.ReadBytes
	case maxBytes > l.MaxReadBytes:
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("asked for %d bytes; at most %d are returned per call (clamped)", maxBytes, l.MaxReadBytes))
		maxBytes = l.MaxReadBytes
	}

	// Read up to 3 bytes before offset (to see whether it splits a
	// character) and 3 bytes past the end (to finish the last character).
	back := min(offset, utf8.UTFMax-1)
	buf := make([]byte, back+maxBytes+utf8.UTFMax-1)
	n, err := f.ReadAt(buf, offset-back)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read: %s: %w", path, err)
	}
	buf = buf[:n]
	skip := splitAt(buf, int(back))
	if skip > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("offset %d is inside a UTF-8 character; starting at %d instead", offset, offset+int64(skip)))
	}
	data := buf[min(int(back)+skip, len(buf)):]
	if int64(len(data)) > maxBytes {
		cut := runeCut(data, int(maxBytes))
		if cut == 0 {
			// Nothing fits: empty data would send the reader back to
			// the same offset for ever.
			_, size := utf8.DecodeRune(data)
			return nil, badRequest("read: the UTF-8 character at offset %d is %d bytes, more than max bytes %d: ask for at least %d", offset+int64(skip), size, maxBytes, size)
		}
		data = data[:cut]
	}
	res.Offset = offset + int64(skip)
	res.Data = data
	res.Next = res.Offset + int64(len(data))
	res.Remaining = size - res.Next
	if res.Remaining > 0 {
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("bytes %d-%d of %d; %d bytes remain: continue with offset=%d",
			res.Offset, res.Next, size, res.Remaining, res.Next))
	} else if len(data) == 0 && size > 0 {
		// Nothing read: say why, rather than answer with an empty text.
		res.Notes = append(res.Notes, fmt.Sprintf("offset %d is the end of the file: it has %d bytes, so there is nothing after it; the last byte is at offset %d", res.Offset, size, size-1))
	} else {
		res.Notes = append(res.Notes, fmt.Sprintf("bytes %d-%d of %d; end of file", res.Offset, res.Next, size))
	}
	return res, nil
}

// splitAt returns how many bytes past buf[at] a valid multi-byte UTF-8
// character starting before at extends, i.e. how far to move at so as not
// to start inside it; 0 when at is on a character boundary.
func splitAt(buf []byte, at int) int {
	for i := at - 1; i >= 0 && i >= at-(utf8.UTFMax-1); i-- {
		if !utf8.RuneStart(buf[i]) {
			continue
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size <= 1 {
			return 0
		}
		if i+size > at {
			return i + size - at
		}
		return 0
	}
	return 0
}
