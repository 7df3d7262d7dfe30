package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"

	"dispatch/spill"
)

// DefaultMaxArgumentsFileBytes bounds an argumentsFile (--max-args-file):
// arguments travel in one JSON-RPC message, which a server must hold whole.
const DefaultMaxArgumentsFileBytes = 64 << 20

// callArguments assembles a call's arguments: the argumentsFile's object
// (or the part argumentsPath selects, or the whole file, placed under
// argumentsKey) as the base, with the keys of arguments overriding it.
func (s *Service) callArguments(req Request) (json.RawMessage, error) {
	if req.ArgumentsFile == "" {
		return req.Arguments, nil
	}
	value, err := s.argumentsFileValue(req)
	if err != nil {
		return nil, err
	}
	var base []byte
	switch {
	case req.ArgumentsKey != "":
		base, err = marshalJSON(map[string]json.RawMessage{req.ArgumentsKey: json.RawMessage(value.Raw)})
		if err != nil {
			return nil, fmt.Errorf("argumentsFile %s: %w", req.ArgumentsFile, err)
		}
	case value.IsObject():
		base = []byte(value.Raw)
	default:
		what := "a JSON " + jsonKind(value)
		return nil, usagef(`Add "argumentsKey":"NAME" to pass it as {"NAME": ...}, or "argumentsPath" to select an object inside it`,
			"argumentsFile %s holds %s, not an object of arguments", req.ArgumentsFile, what)
	}
	if len(req.Arguments) == 0 {
		return base, nil
	}
	return mergeObjects(base, req.Arguments)
}

// argumentsFileValue is the JSON value an argumentsFile contributes: the
// file's JSON (a TOON file decoded), the part of it argumentsPath selects,
// or — for a text file with argumentsKey — its text as a JSON string, so
// that a text result or a document can feed the next call.
func (s *Service) argumentsFileValue(req Request) (gjson.Result, error) {
	path := req.ArgumentsFile
	resolved, err := s.allowedArgumentsPath(path)
	if err != nil {
		return gjson.Result{}, err
	}
	limit := s.opts.MaxArgumentsFileBytes
	ext := strings.ToLower(filepath.Ext(resolved))
	selected := selectedFrom(path)
	if req.ArgumentsPath != "" && ext != ".toon" && ext != ".txt" {
		// Select from the mapped file: the limit is on what is passed on,
		// not on the file it is taken from.
		return selected(spill.Select(resolved, req.ArgumentsPath, limit))
	}
	data, err := readLimited(path, resolved, limit)
	if err != nil {
		return gjson.Result{}, err
	}
	switch trimmed := bytes.TrimSpace(data); {
	case ext == ".toon":
		decoded, err := decodeTOONArguments(path, data)
		if err != nil {
			return gjson.Result{}, err
		}
		if req.ArgumentsPath != "" {
			return selected(spill.SelectBytes(path, decoded, req.ArgumentsPath, limit))
		}
		return gjson.ParseBytes(decoded), nil
	case ext != ".txt" && json.Valid(trimmed):
		return gjson.ParseBytes(trimmed), nil // argumentsPath went to Select
	case ext == ".json":
		return gjson.Result{}, usagef("Give a file holding one JSON object (or a .toon file)", "argumentsFile %s is not valid JSON", path)
	}
	return textArgument(req, data)
}

// selectedFrom returns how to turn what spill.Select chose for
// argumentsPath in the argumentsFile path into the value passed on, or
// into an error saying what to fix. Only a part too large is helped by a
// larger --max-args-file; a path that is malformed or matches nothing
// needs a look at the file.
func selectedFrom(path string) func(raw []byte, err error) (gjson.Result, error) {
	return func(raw []byte, err error) (gjson.Result, error) {
		switch {
		case errors.Is(err, spill.ErrTooLarge):
			return gjson.Result{}, usagef("Select a smaller part, or raise --max-args-file",
				"argumentsPath %v", err)
		case errors.Is(err, spill.ErrBadRequest):
			return gjson.Result{}, usagef(fmt.Sprintf(`Look at the file first: {"action":"readresult","resultFile":%q,"op":"stat"} shows its top-level keys, and "op":"query" with "path" tries a path (gjson syntax: https://github.com/tidwall/gjson/blob/master/SYNTAX.md)`, path),
				"argumentsPath %v", err)
		case err != nil:
			return gjson.Result{}, fmt.Errorf("argumentsFile %s: %w", path, err)
		}
		return gjson.ParseBytes(raw), nil
	}
}

// textArgument passes a text file whole, as a JSON string under
// argumentsKey; without a key there is no object to call with.
func textArgument(req Request, data []byte) (gjson.Result, error) {
	path := req.ArgumentsFile
	switch {
	case req.ArgumentsPath != "":
		return gjson.Result{}, usagef(`Drop "argumentsPath" and give "argumentsKey":"NAME" to pass the whole text as {"NAME": "..."}`,
			"argumentsFile %s holds text, not JSON, so argumentsPath cannot select in it", path)
	case req.ArgumentsKey == "":
		return gjson.Result{}, usagef(`Add "argumentsKey":"NAME" to pass the text as {"NAME": "..."}, or give a file holding a JSON object (or a .toon file)`,
			"argumentsFile %s holds text, not a JSON object of arguments", path)
	case !utf8.Valid(data):
		return gjson.Result{}, usagef("Pass a UTF-8 text file, or a JSON file that holds the value",
			"argumentsFile %s is neither JSON nor UTF-8 text", path)
	}
	quoted, err := marshalJSON(string(data))
	if err != nil {
		return gjson.Result{}, fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	return gjson.ParseBytes(quoted), nil
}

func jsonKind(v gjson.Result) string {
	switch {
	case v.IsArray():
		return "array"
	case v.Type == gjson.String:
		return "string"
	case v.Type == gjson.Number:
		return "number"
	case v.Type == gjson.True, v.Type == gjson.False:
		return "boolean"
	case v.Type == gjson.Null:
		return "null"
	}
	return "value"
}

// mergeObjects returns base with the keys of over replacing its own.
func mergeObjects(base, over json.RawMessage) (json.RawMessage, error) {
	var b, o map[string]json.RawMessage
	if err := json.Unmarshal(base, &b); err != nil {
		return nil, fmt.Errorf("arguments file: %w", err)
	}
	if err := json.Unmarshal(over, &o); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	for k, v := range o {
		b[k] = v
	}
	return marshalJSON(b)
}

// readLimited reads the file an argumentsFile resolved to, refusing one
// larger than limit.
func readLimited(path, resolved string, limit int64) ([]byte, error) {
	f, err := os.Open(resolved)
	if err != nil {
		return nil, usagef("", "argumentsFile %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, usagef(`Raise --max-args-file, or pass only the part you need with "argumentsPath" (it reads the part, not the whole file)`,
			"argumentsFile %s is larger than %s", path, humanize.IBytes(uint64(limit)))
	}
	return data, nil
}

// allowedArgumentsPath returns path resolved if dispatch may read it.
func (s *Service) allowedArgumentsPath(path string) (string, error) {
	if s.opts.TrustPaths {
		return regularFile(path)
	}
	if s.opts.Spill != nil {
		if resolved, err := s.opts.Spill.Resolve(path); err == nil {
			return resolved, nil
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	roots := s.argumentRoots()
	outside := func() error {
		hint := "Use a result file of this dispatch, or start dispatch with --args-dir DIR"
		if len(roots) > 0 {
			hint = "Use a result file of this dispatch, a file under " + strings.Join(roots, " or ") + ", or start dispatch with --args-dir DIR"
		}
		return usagef(hint, "argumentsFile %s is outside the directories dispatch may read arguments from", path)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// Say "does not exist" only inside the roots: outside them the
		// answer would tell the agent which paths exist on the host.
		if !withinAny(resolveExisting(abs), roots) {
			return "", outside()
		}
		return "", usagef("Check the path; relative paths start at dispatch's working directory", "argumentsFile %s does not exist", path)
	}
	for _, root := range roots {
		if within(real, root) {
			info, err := os.Stat(real)
			if err != nil {
				return "", fmt.Errorf("argumentsFile %s: %w", path, err)
			}
			if !info.Mode().IsRegular() {
				return "", usagef("", "argumentsFile %s is not a regular file", path)
			}
			return real, nil
		}
	}
	return "", outside()
}

// regularFile returns path if it names a regular file (following
// symlinks): the CLI reads whatever file its user names.
func regularFile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", usagef("Check the path; relative paths start at the working directory", "argumentsFile %s: %v", path, errors.Unwrap(err))
	}
	if !info.Mode().IsRegular() {
		return "", usagef("", "argumentsFile %s is not a regular file", path)
	}
	return path, nil
}

func (s *Service) argumentRoots() []string {
	roots := s.opts.ArgumentRoots
	if len(roots) == 0 {
		if wd, err := os.Getwd(); err == nil {
			roots = []string{wd}
		}
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				out = append(out, real)
			}
		}
	}
	return out
}

// resolveExisting resolves the symlinks of the longest part of abs that
// exists and appends the rest unchanged.
func resolveExisting(abs string) string {
	dir, rest := abs, ""
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

func withinAny(path string, roots []string) bool {
	for _, root := range roots {
		if within(path, root) {
			return true
		}
	}
	return false
}

func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
