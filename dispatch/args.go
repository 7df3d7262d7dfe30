package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"

	"dispatch/connections"
	"dispatch/rawjson"
	"dispatch/safefile"
	"dispatch/spill"
)

// DefaultMaxArgumentsFileBytes bounds an argumentsFile (--max-args-file):
// arguments travel in one JSON-RPC message, which a server must hold whole.
const DefaultMaxArgumentsFileBytes = 64 << 20

// callArguments assembles a call's arguments: the argumentsFile's object
// (or the part argumentsPath selects, or the whole file, placed under
// argumentsKey) as the base, with the keys of arguments overriding it.
// ctx bounds reading the file: the call's time limit or its cancel.
func (s *Service) callArguments(ctx context.Context, req Request) (json.RawMessage, error) {
	if req.ArgumentsFile == "" {
		return req.Arguments, nil
	}
	value, err := s.argumentsFileValue(ctx, req)
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
		return nil, usageBoth(`Add "argumentsKey":"NAME" to pass it as {"NAME": ...}, or "argumentsPath" to select an object inside it`,
			"Add --arguments-key NAME to pass it as {\"NAME\": ...}, or --arguments-path GJSON to select an object inside it",
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
//
// The open and the read run apart from the caller, which is answered when
// ctx ends: a read on a stalled mount never returns, and the agent must
// still get its answer at the call's time limit or cancel. Such a read
// keeps its goroutine until the kernel gives up; every other read (the
// scans below check ctx) ends soon after.
func (s *Service) argumentsFileValue(ctx context.Context, req Request) (gjson.Result, error) {
	return answerBy(ctx, req.ArgumentsFile, func() (gjson.Result, error) { return s.readArgumentsFile(ctx, req) })
}

// answerBy runs read apart and returns its value, or an error saying the
// argumentsFile path was not read once ctx ends, whether or not read has.
func answerBy(ctx context.Context, path string, read func() (gjson.Result, error)) (gjson.Result, error) {
	type answer struct {
		value gjson.Result
		err   error
	}
	done := make(chan answer, 1) // read never waits to hand it over
	go func() {
		v, err := read()
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		return a.value, a.err
	case <-ctx.Done():
		return gjson.Result{}, usagef("Check that the file is on a disk that answers (a stalled network mount blocks reads), or give a longer timeout for a very large file",
			"argumentsFile %s: not read before the call ended: %v", path, context.Cause(ctx))
	}
}

// MaxArgumentsPathFileBytes bounds the file argumentsPath maps and scans
// when there is no result store to take --spill-max from: a result file
// is never larger, and a larger file would cost its whole size in time
// and file-backed pages before the path is applied.
const MaxArgumentsPathFileBytes = spill.DefaultMaxBytes

// argumentsPathFileLimit is the largest file argumentsPath reads: the
// largest result file this dispatch can write (--spill-max).
func (s *Service) argumentsPathFileLimit() int64 {
	if s.opts.Spill != nil {
		return max(s.opts.Spill.MaxBytes(), MaxArgumentsPathFileBytes)
	}
	return MaxArgumentsPathFileBytes
}

// readArgumentsFile is argumentsFileValue's work.
func (s *Service) readArgumentsFile(ctx context.Context, req Request) (gjson.Result, error) {
	path := req.ArgumentsFile
	// Everything below reads the file this open checked, never the name.
	f, err := s.openArgumentsFile(path, req.WorkDir)
	if err != nil {
		return gjson.Result{}, err
	}
	defer f.Close()
	limit := s.opts.MaxArgumentsFileBytes
	// What this call may hold while it reads and prepares the file counts
	// against every session's calls together (ArgumentsReadFactor).
	charge := limit
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		charge = min(info.Size(), limit)
	}
	if err := s.argumentBytes.acquire(ctx, charge); err != nil {
		return gjson.Result{}, fmt.Errorf("argumentsFile %s: waiting for other calls' argumentsFiles to be read (at most %d × --max-args-file at once, ArgumentsReadFactor): %w", path, ArgumentsReadFactor, err)
	}
	defer s.argumentBytes.release(charge)
	ext := strings.ToLower(filepath.Ext(f.Name()))
	selected := selectedFrom(path)
	if req.ArgumentsPath != "" && ext != ".toon" && ext != ".txt" {
		// Select from the mapped file: the limit is on what is passed on,
		// not on the file it is taken from, which is bounded apart.
		if err := s.checkScanSize(path, f); err != nil {
			return gjson.Result{}, err
		}
		return selected(spill.SelectContext(ctx, f, req.ArgumentsPath, limit))
	}
	data, err := readLimited(path, f, limit)
	if err != nil {
		return gjson.Result{}, err
	}
	switch trimmed := bytes.TrimSpace(data); {
	case ext == ".toon":
		select {
		case s.toonDecodes <- struct{}{}:
		case <-ctx.Done():
			return gjson.Result{}, fmt.Errorf("argumentsFile %s: waiting to decode TOON (%d at once, MaxConcurrentTOONDecodes): %w", path, MaxConcurrentTOONDecodes, context.Cause(ctx))
		}
		decoded, err := decodeTOONArguments(path, data)
		<-s.toonDecodes
		if err != nil {
			return gjson.Result{}, err
		}
		if req.ArgumentsPath != "" {
			return selected(spill.SelectBytes(path, decoded, req.ArgumentsPath, limit))
		}
		return gjson.ParseBytes(decoded), nil
	case ext != ".txt" && json.Valid(trimmed):
		return gjson.ParseBytes(trimmed), nil // argumentsPath went to Select
	case ext != ".txt" && !rawjson.NestingWithin(trimmed, connections.MaxRequestNesting) &&
		(ext == ".json" || validDeepJSON(ctx, trimmed)):
		// JSON, only deeper than json.Valid reads: "not valid JSON" would
		// send the user looking for a syntax error that is not there.
		return gjson.Result{}, argumentsFileTooDeep(req, JSONNesting(trimmed))
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
			return gjson.Result{}, usageBoth(fmt.Sprintf(`Look at the file first: {"action":"readresult","resultFile":%q,"op":"stat"} shows its top-level keys, and "op":"query" with "path" tries a path (gjson syntax: https://github.com/tidwall/gjson/blob/master/SYNTAX.md)`, path),
				fmt.Sprintf("Look at the file first: dispatch readresult %s --op stat shows its top-level keys, and dispatch readresult %[1]s --op query --path PATH tries a path (gjson syntax: https://github.com/tidwall/gjson/blob/master/SYNTAX.md)", shellQuote(path)),
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
		return gjson.Result{}, usageBoth(`Drop "argumentsPath" and give "argumentsKey":"NAME" to pass the whole text as {"NAME": "..."}`,
			`Drop --arguments-path and give --arguments-key NAME to pass the whole text as {"NAME": "..."}`,
			"argumentsFile %s holds text, not JSON, so argumentsPath cannot select in it", path)
	case req.ArgumentsKey == "":
		return gjson.Result{}, usageBoth(`Add "argumentsKey":"NAME" to pass the text as {"NAME": "..."}, or give a file holding a JSON object (or a .toon file)`,
			`Add --arguments-key NAME to pass the text as {"NAME": "..."}, or give a file holding a JSON object (or a .toon file)`,
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

// checkScanSize refuses a file too large for argumentsPath to scan, before
// any byte of it is read.
func (s *Service) checkScanSize(path string, f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	if limit := s.argumentsPathFileLimit(); info.Size() > limit {
		return usagef("Give a smaller file: argumentsPath reads files up to the largest result file (--spill-max), since it checks the whole file before it selects",
			"argumentsFile %s is %s, larger than the %s argumentsPath reads", path, humanize.IBytes(uint64(info.Size())), humanize.IBytes(uint64(limit)))
	}
	return nil
}

// readLimited reads the opened argumentsFile, refusing one larger than
// limit.
func readLimited(path string, f *os.File, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLargeErr(path, limit)
	}
	return data, nil
}

// tooLargeErr refuses an argumentsFile over limit. argumentsPath reads
// only its part of a JSON file, but a TOON file is decoded whole first,
// so for one it is no way around the limit.
func tooLargeErr(path string, limit int64) error {
	size := humanize.IBytes(uint64(limit))
	if strings.EqualFold(filepath.Ext(path), ".toon") {
		return usagef(fmt.Sprintf(`Raise --max-args-file; or select the part you need first with {"action":"readresult","resultFile":%q,"op":"query","path":"..."} and pass it in "arguments"; or have results saved as JSON (start dispatch without --toon), from which argumentsPath reads only the part`, path),
			"argumentsFile %s is larger than %s, and TOON files are decoded whole, with or without argumentsPath, so --max-args-file bounds the whole file", path, size)
	}
	return usagef(`Raise --max-args-file, or pass only the part you need with "argumentsPath" (the limit is then on that part; the file is still read and checked whole)`,
		"argumentsFile %s is larger than %s (--max-args-file): arguments travel in one message, which the server must hold whole", path, size)
}

// openArgumentsFile opens path if dispatch may read it: a result file of
// this process, or a file under one of the argument roots. The open is
// the check (safefile.OpenIn from the root's directory), so a directory
// swapped for a symlink while it runs cannot lead it outside a root.
func (s *Service) openArgumentsFile(path, workDir string) (*os.File, error) {
	if s.opts.TrustPaths {
		local := path
		if workDir != "" && !filepath.IsAbs(path) {
			local = filepath.Join(workDir, path)
		}
		f, err := safefile.Open(local)
		if err != nil {
			return nil, openErr("argumentsFile", path, err)
		}
		return f, nil
	}
	if s.opts.Spill != nil {
		if f, err := s.opts.Spill.Open(path); err == nil {
			return f, nil
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	scope := s.argumentScope()
	// The path as given, and as its symlinks resolve now (a link from
	// outside into a root): either way the open itself stays in the root.
	candidates := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		candidates = append(candidates, real)
	}
	// Why the path failed inside a root, if it did: said only then, since
	// outside the roots the answer would tell the agent what exists there.
	var inside error
	for _, c := range candidates {
		for _, root := range scope.roots {
			rel, ok := relWithin(c, root)
			if !ok {
				continue
			}
			if spill.InStoreDir(c) {
				// This session's own files were opened above; the rest are
				// another session's or process's results, never its input.
				return nil, usagef("Use a result file of this session: the resultFile of one of its own answers",
					"argumentsFile %s is in a dispatch result directory but is not one of this session's result files", path)
			}
			if dir, bad := s.forbiddenDir(c); bad {
				return nil, privateDirErr(path, dir)
			}
			f, err := safefile.OpenIn(root, rel)
			switch {
			case err == nil:
				if err := s.checkOpenedArgument(f, path); err != nil {
					return nil, errors.Join(err, f.Close())
				}
				return f, nil
			case errors.Is(err, safefile.ErrNotRegular):
				return nil, openErr("argumentsFile", path, err)
			case errors.Is(err, syscall.ENOTDIR):
				inside = os.ErrNotExist
			case !errors.Is(err, safefile.ErrOutside) && inside == nil:
				inside = err
			}
		}
	}
	if errors.Is(inside, os.ErrNotExist) {
		return nil, usagef("Check the path; relative paths start at dispatch's working directory", "argumentsFile %s does not exist", path)
	}
	if inside != nil {
		return nil, openErr("argumentsFile", path, inside)
	}
	if scope.broadDir != "" {
		return nil, usagef("Start dispatch with --args-dir DIR (repeatable) naming the directories an agent may read arguments from; result files of this dispatch need nothing",
			"argumentsFile %s: dispatch was started in %s, a filesystem root or home directory (or one holding homes), so argumentsFile reads only this dispatch's result files (Claude Desktop starts servers in /)", path, scope.broadDir)
	}
	hint := "Use a result file of this dispatch, or start dispatch with --args-dir DIR"
	if len(scope.roots) > 0 {
		hint = "Use a result file of this dispatch, a file under " + strings.Join(scope.roots, " or ") + ", or start dispatch with --args-dir DIR"
	}
	return nil, usagef(hint, "argumentsFile %s is outside the directories dispatch may read arguments from", path)
}

// openErr explains why a file named by the agent or the user cannot be
// read; what names the parameter.
func openErr(what, path string, err error) error {
	switch {
	case errors.Is(err, safefile.ErrNotRegular):
		return usagef("Name a regular file: FIFOs, devices, sockets and directories are refused, since reading them could block or never end",
			"%s %s is not a regular file", what, path)
	case errors.Is(err, os.ErrNotExist):
		return usagef("Check the path; relative paths start at the working directory", "%s %s does not exist", what, path)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return usagef("", "%s %s: %v", what, path, err)
}

// relWithin returns path relative to root if path is lexically inside it.
func relWithin(path, root string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}
