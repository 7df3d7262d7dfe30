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

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"

	"dispatch/spill"
)

// DefaultMaxArgumentsFileBytes bounds an argumentsFile (--max-args-file):
// arguments travel in one JSON-RPC message, which a server must hold whole.
const DefaultMaxArgumentsFileBytes = 64 << 20

// callArguments assembles a call's arguments: the argumentsFile's object
// (or the part argumentsPath selects, placed under argumentsKey) as the
// base, with the keys of arguments overriding it.
func (s *Service) callArguments(req Request) (json.RawMessage, error) {
	if req.ArgumentsFile == "" {
		return req.Arguments, nil
	}
	data, err := s.readArgumentsFile(req.ArgumentsFile)
	if err != nil {
		return nil, err
	}
	value := gjson.ParseBytes(data)
	if req.ArgumentsPath != "" {
		if err := spill.CheckPath(req.ArgumentsPath); err != nil {
			return nil, usagef("Fix the path; readresult op \"query\" tries one out", "argumentsPath: %v", err)
		}
		value = value.Get(req.ArgumentsPath)
		if !value.Exists() {
			return nil, usagef("Check the path with readresult op \"query\" first",
				"argumentsPath %q selects nothing in %s", req.ArgumentsPath, req.ArgumentsFile)
		}
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

// readArgumentsFile reads an argumentsFile this dispatch may read: a spill
// file of its own, or a file under one of the argument roots (by default
// the working directory). A TOON file is decoded to JSON.
func (s *Service) readArgumentsFile(path string) ([]byte, error) {
	resolved, err := s.allowedArgumentsPath(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(resolved)
	if err != nil {
		return nil, usagef("", "argumentsFile %s: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	limit := s.opts.MaxArgumentsFileBytes
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, usagef("Raise --max-args-file, or select a part with argumentsPath from a smaller file",
			"argumentsFile %s is larger than %s", path, humanize.IBytes(uint64(limit)))
	}
	if strings.EqualFold(filepath.Ext(resolved), ".toon") {
		return decodeTOONArguments(path, data)
	}
	trimmed := bytes.TrimSpace(data)
	if !json.Valid(trimmed) {
		return nil, usagef("Give a file holding one JSON object (or a .toon file)", "argumentsFile %s is not valid JSON", path)
	}
	return trimmed, nil
}

// allowedArgumentsPath returns path resolved if dispatch may read it.
func (s *Service) allowedArgumentsPath(path string) (string, error) {
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
		return usagef("Use a result file of this dispatch, a file under "+strings.Join(roots, " or ")+", or start dispatch with --args-dir DIR",
			"argumentsFile %s is outside the directories dispatch may read arguments from", path)
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
