package spill

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// QueryResult is what Query returns.
type QueryResult struct {
	Path      string
	Query     string
	Type      string // "object", "array", "string", "number", "boolean" or "null"
	Value     string // the result as raw JSON, at most MaxOutputBytes
	Bytes     int    // full size of the result
	Count     int    // number of elements when the result is an array
	Truncated bool
	Notes     []string
}

// Text returns the agent-facing form: the JSON value, then the notes.
func (r *QueryResult) Text() string { return r.Body() + notesText(r.Notes) }

// Body is Text without the notes: the JSON value and a newline.
func (r *QueryResult) Body() string { return r.Value + "\n" }

// String is Text.
func (r *QueryResult) String() string { return r.Text() }

// Query runs a gjson path (https://github.com/tidwall/gjson/blob/master/SYNTAX.md,
// e.g. "items.#(size>1000)#.name") over the JSON file f. The file is
// mapped read-only into memory, not copied into the Go heap; the result is
// copied out before the mapping goes, and cut at MaxOutputBytes (saying so).
// Invalid JSON and a path that matches nothing are errors; the latter says
// what the top level holds. The result itself is built in memory, so a
// query that selects most of a huge file costs that much memory.
func (l Limits) Query(f *os.File, gjsonPath string) (*QueryResult, error) {
	l = l.withDefaults()
	path := f.Name()
	if strings.TrimSpace(gjsonPath) == "" {
		return nil, badRequest("query: the path is empty (see gjson syntax, e.g. items.#.name)")
	}
	if err := CheckPath(gjsonPath); err != nil {
		return nil, badRequest("query: %v", err)
	}
	var res *QueryResult
	err := withMapped("query", f, func(data []byte) (err error) {
		res, err = l.query(path, gjsonPath, data)
		return err
	})
	return res, err
}

// QueryBytes is Query over JSON already in memory (a decoded TOON file);
// name is what answers and errors call it.
func (l Limits) QueryBytes(name string, data []byte, gjsonPath string) (*QueryResult, error) {
	l = l.withDefaults()
	if strings.TrimSpace(gjsonPath) == "" {
		return nil, badRequest("query: the path is empty (see gjson syntax, e.g. items.#.name)")
	}
	if err := CheckPath(gjsonPath); err != nil {
		return nil, badRequest("query: %v", err)
	}
	return l.query(name, gjsonPath, data)
}

// Select returns the JSON value that gjsonPath selects in the JSON file at
// f, as raw JSON. Like Query it maps the file rather than reading it,
// so selecting a small part of a huge file costs only the part; a value
// larger than maxBytes is refused.
func Select(f *os.File, gjsonPath string, maxBytes int64) ([]byte, error) {
	return SelectContext(context.Background(), f, gjsonPath, maxBytes)
}

// SelectContext is Select that stops checking the file when ctx ends.
func SelectContext(ctx context.Context, f *os.File, gjsonPath string, maxBytes int64) ([]byte, error) {
	if err := CheckPath(gjsonPath); err != nil {
		return nil, badRequest("%v", err)
	}
	var raw []byte
	err := withMapped("select", f, func(data []byte) (err error) {
		raw, err = selectIn(ctx, f.Name(), data, gjsonPath, maxBytes)
		return err
	})
	return raw, err
}

// SelectBytes is Select over JSON already in memory; name is what errors
// call it.
func SelectBytes(name string, data []byte, gjsonPath string, maxBytes int64) ([]byte, error) {
	if err := CheckPath(gjsonPath); err != nil {
		return nil, badRequest("%v", err)
	}
	return selectIn(context.Background(), name, data, gjsonPath, maxBytes)
}

// selectIn does Select's work on data; what it returns is a copy.
func selectIn(ctx context.Context, name string, data []byte, gjsonPath string, maxBytes int64) ([]byte, error) {
	if err := checkQueryableContext(ctx, name, newJSONShaper(1), data, ""); err != nil {
		return nil, err
	}
	r, err := getPath(data, gjsonPath, maxBytes, "argumentsPath")
	if err != nil {
		return nil, err
	}
	if !r.Exists() {
		return nil, badRequest("%q selects nothing in %s", gjsonPath, name)
	}
	if int64(len(r.Raw)) > maxBytes {
		return nil, tooLarge("%q selects %s in %s, more than the limit of %s", gjsonPath, humanBytes(int64(len(r.Raw))), name, humanBytes(maxBytes))
	}
	return []byte(r.Raw), nil // a copy: r may point into data
}

// MaxQueryDepth bounds the nesting Query (and a modifier's input and
// output) accepts: gjson recurses, and deeper JSON could exhaust the stack.
const MaxQueryDepth = 10000

// guardFault runs fn, turning a memory fault into an error.
func guardFault(op, path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if rerr, ok := r.(runtime.Error); ok {
				if _, fault := rerr.(interface{ Addr() uintptr }); fault {
					// The runtime's words ("invalid memory address")
					// would only puzzle the reader; the cause is the file.
					err = fmt.Errorf("%s: %s changed while being read (it was truncated or rewritten); read it again once whatever writes it is done", op, path)
					return
				}
			}
			panic(r)
		}
	}()
	return fn()
}

// checkQueryable refuses data that gjson cannot safely query: invalid JSON,
// or nesting deep enough to exhaust the stack (gjson recurses). It writes
// data through shape, which the caller may use afterwards; notJSON is
// added to the message for invalid JSON.
func checkQueryable(name string, shape *jsonShaper, data []byte, notJSON string) error {
	return checkQueryableContext(context.Background(), name, shape, data, notJSON)
}

// startsJSONValue reports whether the first byte past leading white space
// can begin a JSON value.
func startsJSONValue(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[', '"', '-', 't', 'f', 'n', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return true
		}
		return false
	}
	return false
}

// scanChunkBytes is how much of a file a scan reads between looks at its
// context: small enough to stop within milliseconds of a cancel.
const scanChunkBytes = 4 << 20

// checkQueryableContext is checkQueryable that stops when ctx ends. Data
// that cannot start a JSON value (a NUL, binary) is refused before the
// whole of it is scanned.
func checkQueryableContext(ctx context.Context, name string, shape *jsonShaper, data []byte, notJSON string) error {
	if !startsJSONValue(data) {
		return badRequest("%s is not valid JSON%s", name, notJSON)
	}
	for rest := data; len(rest) > 0; {
		if err := context.Cause(ctx); err != nil {
			return fmt.Errorf("check %s: %w", name, err)
		}
		n := min(len(rest), scanChunkBytes)
		shape.write(rest[:n])
		rest = rest[n:]
	}
	if shape.maxDepth > MaxQueryDepth {
		return badRequest("%s nests deeper than %d levels; use grep or read instead", name, MaxQueryDepth)
	}
	if !gjson.ValidBytes(data) {
		return badRequest("%s is not valid JSON%s", name, notJSON)
	}
	return nil
}

// query works on the mapped bytes; everything it returns is copied out.
func (l Limits) query(path, gjsonPath string, data []byte) (*QueryResult, error) {
	shape := newJSONShaper(l.MaxKeys)
	if err := checkQueryableContext(l.context(), path, shape, data, " (query works on JSON files only; use grep or read for others)"); err != nil {
		if context.Cause(l.context()) != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		return nil, badRequest("query: %v", err)
	}
	// r may point into data: everything kept is cloned below.
	r, err := getPath(data, gjsonPath, MaxQueryBuildBytes, "query")
	if err != nil {
		return nil, badRequest("query: %v", err)
	}
	if !r.Exists() {
		return nil, badRequest("query: %q matches nothing in %s; the top level is %s", gjsonPath, path, shape.result())
	}
	res := &QueryResult{Path: path, Query: gjsonPath, Bytes: len(r.Raw)}
	switch r.Type {
	case gjson.Null:
		res.Type = "null"
	case gjson.False, gjson.True:
		res.Type = "boolean"
	case gjson.Number:
		res.Type = "number"
	case gjson.String:
		res.Type = "string"
	case gjson.JSON:
		res.Type = "object"
		if r.IsArray() {
			res.Type = "array"
			r.ForEach(func(_, _ gjson.Result) bool { res.Count++; return true })
		}
	}
	raw := r.Raw
	if raw == "" {
		raw = r.String()
	}
	if len(raw) > l.MaxOutputBytes {
		cut := runeCut([]byte(raw[:min(len(raw), l.MaxOutputBytes+utf8.UTFMax)]), l.MaxOutputBytes)
		res.Value = strings.Clone(raw[:cut]) + cutMarker(int64(len(raw)-cut))
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("the result is %s; only the first %s is shown; narrow the query (a filter like #(key==\"x\"), a field like #.name, or @keys)",
			humanBytes(int64(len(raw))), humanBytes(int64(l.MaxOutputBytes))))
	} else {
		res.Value = strings.Clone(raw)
	}
	switch res.Type {
	case "array":
		res.Notes = append(res.Notes, fmt.Sprintf("%s of %d elements, %s", res.Type, res.Count, humanBytes(int64(res.Bytes))))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("%s, %s", res.Type, humanBytes(int64(res.Bytes))))
	}
	return res, nil
}
