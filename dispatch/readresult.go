package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"dispatch/safefile"
	"dispatch/spill"
)

// ReadResponse answers action readresult.
type ReadResponse struct {
	ResultFile string `json:"resultFile"`
	Op         string `json:"op"`
	Text       string `json:"text"` // for display: the data, then notes in brackets

	// Value is the data alone, for a run step's "$id.value" and for
	// scripts: query's selected JSON as it is, the other ops' text as a
	// JSON string (head, tail, slice: the lines without numbers; grep: the
	// matching lines; read: the bytes). It is left out for stat, and when
	// the data cannot be given whole and exact: a query result that was
	// cut, bytes that are not UTF-8.
	Value json.RawMessage `json:"value,omitempty"`
	// Matches is grep's count of matching lines in the searched range,
	// all of them, shown or not.
	Matches *int64 `json:"matches,omitempty"`
	// Truncated says Value is not all there is (a bound cut it, or more
	// follows); Text's notes say how to get the rest.
	Truncated bool `json:"truncated,omitempty"`

	// Body is Text without its closing notes, which are in Notes; the
	// CLI prints them apart.
	Body  string `json:"-"`
	Notes string `json:"-"`
}

// DefaultReadLines is how many lines head and tail return when not told.
const DefaultReadLines = 50

// opParams lists the parameters each readresult op uses; any other one is
// an error, since the agent meant something by it.
var opParams = map[string][]string{
	"stat":  {},
	"head":  {"lines"},
	"tail":  {"lines"},
	"slice": {"fromLine", "toLine"},
	"grep":  {"pattern", "context", "maxMatches", "fromLine"},
	"read":  {"offset", "maxBytes"},
	"query": {"path"},
}

// ReadResult answers action readresult. It reads only files this dispatch
// spilled, unless Options.TrustPaths: any other path is refused.
// ctx ends the op early: a cancelled request or an ended run stops it.
func (s *Service) ReadResult(ctx context.Context, req Request) (*ReadResponse, error) {
	limits := s.opts.ReadLimits.WithContext(ctx)
	if s.opts.TrustPaths {
		return ReadFile(req.ResultFile, req, limits)
	}
	if s.opts.Spill == nil {
		return nil, usagef("", "this dispatch keeps no result files, so there is nothing to read")
	}
	// The op reads the file Open checked, never the name again: a file
	// swapped in between cannot be read.
	f, err := s.opts.Spill.Open(req.ResultFile)
	if err != nil {
		if errors.Is(err, spill.ErrNotSpillFile) {
			return nil, &UsageError{Msg: err.Error(), Hint: "readresult reads only the resultFile paths that calls of this dispatch returned"}
		}
		return nil, err
	}
	defer f.Close()
	return readOpened(f, req, limits)
}

// ReadFile runs a readresult op on any file, without confinement: the CLI
// uses it on files the user names. FIFOs and devices are still refused.
// limits.WithContext bounds it in time.
func ReadFile(path string, req Request, limits spill.Limits) (*ReadResponse, error) {
	if err := req.Check(); err != nil { // the CLI comes here directly
		return nil, err
	}
	f, err := safefile.Open(path)
	if err != nil {
		return nil, openErr("readresult", path, err)
	}
	defer f.Close()
	return readOpened(f, req, limits)
}

// readOpened runs a readresult op on the opened file f.
func readOpened(f *os.File, req Request, limits spill.Limits) (*ReadResponse, error) {
	path := f.Name()
	op := req.Op
	if op == "" {
		op = "stat"
	}
	allowed, ok := opParams[op]
	if !ok {
		return nil, usagef(`Use "op" with one of: stat, head, tail, slice, grep, read, query`, "unknown readresult op %q", op)
	}
	if err := checkOpParams(op, allowed, req); err != nil {
		return nil, err
	}
	lines := DefaultReadLines
	if req.Lines != nil {
		lines = *req.Lines
	}
	// Each op's result: its body, and notes about it (what was cut, how
	// to get the rest). The agent gets both in one text; the CLI prints the
	// body on stdout and the notes on stderr, so scripts get clean data.
	var (
		out interface {
			Body() string
			Text() string
		}
		err error
	)
	switch op {
	case "stat":
		var r *spill.StatInfo
		if r, err = limits.Stat(f); err == nil {
			out = statBody{r}
		}
	case "head":
		out, err = limits.Head(f, lines)
	case "tail":
		out, err = limits.Tail(f, lines)
	case "slice":
		if req.FromLine == 0 {
			return nil, usagef(`Example: {"action":"readresult","resultFile":"...","op":"slice","fromLine":100,"toLine":150}`, "slice needs \"fromLine\", the first line to show: 1 or more (lines are numbered from 1)")
		}
		to := req.ToLine
		if to == 0 {
			to = req.FromLine + DefaultReadLines - 1
		}
		if err := checkSliceRange(req.FromLine, to); err != nil {
			return nil, err
		}
		out, err = limits.Slice(f, req.FromLine, to)
	case "grep":
		if req.Pattern == "" {
			return nil, usagef(`Example: {"action":"readresult","resultFile":"...","op":"grep","pattern":"error|warn","context":2}`, "grep needs a \"pattern\"")
		}
		maxMatches := 0 // the default
		if req.MaxMatches != nil {
			maxMatches = *req.MaxMatches
		}
		out, err = limits.Grep(f, spill.GrepOptions{Pattern: req.Pattern, Context: req.Context, MaxMatches: maxMatches, From: req.FromLine})
	case "read":
		var maxBytes int64 // the default
		if req.MaxBytes != nil {
			maxBytes = *req.MaxBytes
		}
		out, err = limits.Read(f, req.Offset, maxBytes)
	case "query":
		if req.Path == "" {
			return nil, usagef(`Example: {"action":"readresult","resultFile":"...","op":"query","path":"items.#(size>1000)#.name"}`, "query needs a gjson \"path\"")
		}
		out, err = queryFile(f, req.Path, limits)
	}
	if err != nil {
		return nil, readErr(err)
	}
	text := out.Text()
	body := out.Body()
	resp := &ReadResponse{ResultFile: path, Op: op, Text: text, Body: body, Notes: strings.TrimPrefix(text, body)}
	if err := resp.setValue(out); err != nil {
		return nil, err
	}
	return resp, nil
}

// Structured is the answer for an MCP client's structuredContent: the
// value and facts without the display text, which is the content.
func (r *ReadResponse) Structured() any {
	return struct {
		ResultFile string          `json:"resultFile"`
		Op         string          `json:"op"`
		Value      json.RawMessage `json:"value,omitempty"`
		Matches    *int64          `json:"matches,omitempty"`
		Truncated  bool            `json:"truncated,omitempty"`
		Notes      string          `json:"notes,omitempty"`
	}{r.ResultFile, r.Op, r.Value, r.Matches, r.Truncated, strings.TrimSpace(r.Notes)}
}

// setValue fills Value, Matches and Truncated from an op's result.
func (r *ReadResponse) setValue(out any) error {
	var value string
	switch o := out.(type) {
	case *spill.QueryResult:
		r.Truncated = o.Truncated
		if !o.Truncated && json.Valid([]byte(o.Value)) { // gjson's !nan and !inf are not JSON
			r.Value = json.RawMessage(o.Value)
		}
		return nil
	case *spill.LinesResult:
		value, r.Truncated = lineTexts(o.Lines, false), o.Truncated || o.More
	case *spill.GrepResult:
		value, r.Truncated = lineTexts(o.Lines, true), o.Truncated
		r.Matches = &o.TotalMatches
	case *spill.ReadResult:
		r.Truncated = o.Truncated
		value = string(o.Data)
	default: // stat: its facts are the text
		return nil
	}
	if !utf8.ValidString(value) {
		return nil // a JSON string would replace the bytes
	}
	raw, err := marshalJSON(value)
	if err != nil {
		return fmt.Errorf("encode readresult value: %w", err)
	}
	r.Value = raw
	return nil
}

// lineTexts joins the text of lines without numbers: for head, tail and
// slice each with what ends it in the file, so the value is the file's
// bytes ("\r\n" kept, none after a last line that has none); for grep
// only the matching lines, each on a line of its own.
func lineTexts(lines []spill.Line, matchesOnly bool) string {
	var b strings.Builder
	for _, l := range lines {
		switch {
		case matchesOnly && !l.Match:
			continue
		case matchesOnly:
			b.WriteString(l.Text)
			b.WriteByte('\n')
		default:
			b.WriteString(l.Text)
			b.WriteString(l.End)
		}
	}
	return b.String()
}

// checkSliceRange refuses a slice the spill package would refuse, in the
// request's own terms: its message says "from" and "to", which are not
// parameters an agent can find.
func checkSliceRange(from, to int64) error {
	const example = `Example: {"action":"readresult","resultFile":"...","op":"slice","fromLine":100,"toLine":150}`
	switch {
	case from < 1:
		return usagef(example, "\"fromLine\" must be at least 1 (lines are numbered from 1), got %d", from)
	case to < from:
		return usagef(example, "\"toLine\" (%d) is before \"fromLine\" (%d)", to, from)
	}
	return nil
}

// statBody gives stat's answer, which has no notes, the shape of the others.
type statBody struct{ *spill.StatInfo }

func (s statBody) Body() string { return s.Text() }

// readErr turns the spill package's refusals of bad input into usage
// errors the agent can act on.
func readErr(err error) error {
	if errors.Is(err, spill.ErrInvalidPattern) || errors.Is(err, spill.ErrBadRequest) {
		return &UsageError{Msg: err.Error()}
	}
	return err
}

func checkOpParams(op string, allowed []string, req Request) error {
	given := map[string]bool{
		"lines": req.Lines != nil, "fromLine": req.FromLine != 0, "toLine": req.ToLine != 0,
		"pattern": req.Pattern != "", "context": req.Context != 0, "maxMatches": req.MaxMatches != nil,
		"offset": req.Offset != 0, "maxBytes": req.MaxBytes != nil, "path": req.Path != "",
	}
	ok := map[string]bool{}
	for _, p := range allowed {
		ok[p] = true
	}
	var stray []string
	for _, name := range []string{"lines", "fromLine", "toLine", "pattern", "context", "maxMatches", "offset", "maxBytes", "path"} {
		if given[name] && !ok[name] {
			stray = append(stray, name)
		}
	}
	if len(stray) == 0 {
		return nil
	}
	uses := "no parameters"
	if len(allowed) > 0 {
		uses = strings.Join(allowed, ", ")
	}
	return usagef(fmt.Sprintf("op %s takes %s", op, uses), "parameter(s) %s do not apply to op %s", quoteAll(stray), op)
}
