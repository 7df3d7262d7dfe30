package spill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// StatInfo describes a file: its size, lines, estimated tokens, format and
// top-level shape.
type StatInfo struct {
	Path    string
	Bytes   int64
	Size    string // Bytes humanized, e.g. "1.5 MiB"
	Lines   int64  // a last line without "\n" counts
	Tokens  int64  // EstimateTokens(Bytes)
	Format  Format
	Sniffed bool  // Format was guessed from the content, not the extension
	Shape   Shape // for JSON and TOON
}

// Text returns the agent-facing form, one fact per line.
func (s *StatInfo) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "file: %s\n", s.Path)
	fmt.Fprintf(&b, "size: %s (%d bytes), %d lines, ~%d tokens\n", s.Size, s.Bytes, s.Lines, s.Tokens)
	how := "from the extension"
	if s.Sniffed {
		how = "guessed from the content"
	}
	fmt.Fprintf(&b, "format: %s (%s)\n", s.Format, how)
	if s.Format != FormatText {
		fmt.Fprintf(&b, "shape: %s\n", s.Shape)
	}
	return b.String()
}

// String is Text.
func (s *StatInfo) String() string { return s.Text() }

// Stat describes the file f, reading it once, streaming: memory stays
// flat whatever its size. The format comes from the extension (.json,
// .toon, .txt), else from the first non-space byte ('{' or '[' means JSON).
// For JSON the shape comes from a streaming byte scanner; for TOON from its
// unindented lines. At most MaxKeys keys are listed, with the total count.
func (l Limits) Stat(f *os.File) (*StatInfo, error) {
	l = l.withDefaults()
	path := f.Name()
	fi, err := regularInfo("stat", f)
	if err != nil {
		return nil, err
	}
	r := l.fromStart(f)

	info := &StatInfo{Path: path, Bytes: fi.Size(), Size: humanBytes(fi.Size()), Tokens: EstimateTokens(fi.Size())}
	format, known := formatFromExt(path)
	info.Format = format

	buf := make([]byte, readBufSize)
	var (
		shaper    *jsonShaper
		toon      *toonShaper
		lineBuf   []byte // TOON: the start of the current line
		lineLen   int
		last      byte
		sniffed   = known
		checkJSON = known && format == FormatJSON
		total     int64
	)
	setup := func() {
		switch info.Format {
		case FormatJSON:
			shaper = newJSONShaper(l.MaxKeys)
		case FormatTOON:
			toon = &toonShaper{maxKeys: l.MaxKeys}
		}
	}
	if known {
		setup()
	}
	for {
		n, rerr := r.Read(buf)
		p := buf[:n]
		if !sniffed && n > 0 {
			if t := bytes.TrimLeft(p, " \t\r\n"); len(t) > 0 {
				info.Format, info.Sniffed, sniffed = sniffFormat(t), true, true
				setup()
			}
		}
		if checkJSON && n > 0 {
			// A file named .json that cannot start a JSON value is text
			// (a text result saved under a .json name).
			if t := bytes.TrimLeft(p, " \t\r\n"); len(t) > 0 {
				checkJSON = false
				if strings.IndexByte(`{["-0123456789tfn`, t[0]) < 0 {
					info.Format, info.Sniffed, shaper = FormatText, true, nil
				}
			}
		}
		total += int64(n)
		info.Lines += int64(bytes.Count(p, []byte{'\n'}))
		if n > 0 {
			last = p[n-1]
		}
		if shaper != nil {
			shaper.write(p)
		}
		if toon != nil {
			for len(p) > 0 {
				i := bytes.IndexByte(p, '\n')
				piece := p
				if i >= 0 {
					piece = p[:i]
				}
				if room := maxKeyBytes*2 - len(lineBuf); room > 0 {
					lineBuf = append(lineBuf, piece[:min(room, len(piece))]...)
				}
				lineLen += len(piece)
				if i < 0 {
					break
				}
				toon.line(strings.TrimSuffix(string(lineBuf), "\r"))
				lineBuf, lineLen = lineBuf[:0], 0
				p = p[i+1:]
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("stat: read %s: %w", path, rerr)
		}
	}
	if total > 0 && last != '\n' {
		info.Lines++
		if toon != nil && lineLen > 0 {
			toon.line(strings.TrimSuffix(string(lineBuf), "\r"))
		}
	}
	if !sniffed {
		info.Format, info.Sniffed = FormatText, true
	}
	// The file may have changed since the Stat call; report what was read.
	info.Bytes, info.Size, info.Tokens = total, humanBytes(total), EstimateTokens(total)
	switch {
	case shaper != nil:
		info.Shape = shaper.result()
	case toon != nil:
		info.Shape = toon.result()
	}
	return info, nil
}
