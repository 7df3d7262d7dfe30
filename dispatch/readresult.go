package dispatch

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"dispatch/safefile"
	"dispatch/spill"
)

// ReadResponse answers action readresult.
type ReadResponse struct {
	ResultFile string `json:"resultFile"`
	Op         string `json:"op"`
	Text       string `json:"text"`

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
func (s *Service) ReadResult(req Request) (*ReadResponse, error) {
	if s.opts.TrustPaths {
		return ReadFile(req.ResultFile, req, s.opts.ReadLimits)
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
	return readOpened(f, req, s.opts.ReadLimits)
}

// ReadFile runs a readresult op on any file, without confinement: the CLI
// uses it on files the user names. FIFOs and devices are still refused.
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
	lines := req.Lines
	if lines == 0 {
		lines = DefaultReadLines
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
			return nil, usagef(`Example: {"action":"readresult","resultFile":"...","op":"slice","fromLine":100,"toLine":150}`, "slice needs \"fromLine\" (1-based)")
		}
		to := req.ToLine
		if to == 0 {
			to = req.FromLine + DefaultReadLines - 1
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
		out, err = limits.Read(f, req.Offset, req.MaxBytes)
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
	return &ReadResponse{ResultFile: path, Op: op, Text: text, Body: body, Notes: strings.TrimPrefix(text, body)}, nil
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
		"lines": req.Lines != 0, "fromLine": req.FromLine != 0, "toLine": req.ToLine != 0,
		"pattern": req.Pattern != "", "context": req.Context != 0, "maxMatches": req.MaxMatches != nil,
		"offset": req.Offset != 0, "maxBytes": req.MaxBytes != 0, "path": req.Path != "",
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
