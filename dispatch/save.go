package dispatch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dustin/go-humanize"

	"dispatch/spill"
)

// SavedPayload describes a result payload written to a file the user named.
type SavedPayload struct {
	Path string `json:"path"`
	SpillInfo
}

// SavePayload writes an inline call result's payload to path, which the
// user keeps (the CLI's --result-to-file): the same bytes a spill file
// would hold, so the file can feed the next call.
func (s *Service) SavePayload(call *CallResponse, path string) (*SavedPayload, error) {
	if call.Spill != nil {
		return nil, errors.New("result was already saved to " + call.Spill.ResultFile)
	}
	result := callResult{Content: call.Content, StructuredContent: call.StructuredContent, IsError: call.IsError}
	kind, data, part := result.payload()
	// The user's file name says what they expect in it: a JSON payload
	// goes to a .json file as JSON and to a .toon file as TOON, whatever
	// --toon says; other names get the format --toon picks (JSON when too
	// deep for TOON).
	asTOON := s.opts.Toon && kind == payloadJSON && toonFits(data)
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".json":
		asTOON = false
	case ".toon":
		asTOON = true
	}
	format, _, write := encoderIn(kind, data, asTOON)
	if err := writeUserFile(path, write); err != nil {
		return nil, err
	}
	st, err := spill.Stat(path)
	if err != nil {
		return nil, err
	}
	head, err := spill.Read(path, 0, previewBytes)
	if err != nil {
		return nil, err
	}
	saved := &SavedPayload{Path: path, SpillInfo: SpillInfo{
		ResultFile:      path,
		Format:          string(format),
		Saved:           part,
		Bytes:           st.Bytes,
		Size:            humanize.IBytes(uint64(st.Bytes)),
		EstimatedTokens: spill.EstimateTokens(st.Bytes),
		Lines:           st.Lines,
		Preview:         spill.PreviewOf(head.Data, st.Bytes, previewBytes),
		Hint:            "Read it with: dispatch readresult " + path + " --op head",
	}}
	if kind == payloadText && (ext == ".json" || ext == ".toon") {
		saved.Hint += " (the result is text, not " + strings.TrimPrefix(ext, ".") + ", whatever its name says)"
	}
	if kind == payloadJSON {
		describeShape(&saved.SpillInfo, data)
	}
	return saved, nil
}

// writeUserFile writes a file the user named with -o and keeps: its mode
// follows their umask, like any file a command writes (spill files stay
// 0600), or is the mode of the file it replaces. It is written beside its
// place under another name and renamed there only once whole, so that a
// write that fails midway (a full disk, a file size limit) leaves an
// existing file as it was rather than cut short, as the README promises.
// A symbolic link named is written through, as opening it would.
func writeUserFile(path string, write func(io.Writer) error) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	var mode os.FileMode
	if info, err := os.Stat(target); err == nil {
		mode = info.Mode().Perm()
	}
	f, err := createBeside(target)
	if err != nil {
		return fmt.Errorf("result file: %w", err)
	}
	temp := f.Name()
	if err := write(f); err != nil {
		return errors.Join(fmt.Errorf("write result file %s: %w", path, err), f.Close(), os.Remove(temp))
	}
	if err := f.Close(); err != nil {
		return errors.Join(fmt.Errorf("write result file %s: %w", path, err), os.Remove(temp))
	}
	if mode != 0 {
		if err := os.Chmod(temp, mode); err != nil {
			return errors.Join(fmt.Errorf("result file %s: keep its mode: %w", path, err), os.Remove(temp))
		}
	}
	if err := os.Rename(temp, target); err != nil {
		return errors.Join(fmt.Errorf("result file %s: %w", path, err), os.Remove(temp))
	}
	return nil
}

// createBeside creates a new file in target's directory, named after it,
// with the mode a new file gets from the umask: os.CreateTemp's would be
// 0600.
func createBeside(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	var suffix [6]byte
	for range 16 {
		if _, err := rand.Read(suffix[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(suffix[:])+".part")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, os.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a file beside %s: every name tried exists", target)
}
