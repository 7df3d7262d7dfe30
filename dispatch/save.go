package dispatch

import (
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
// 0600).
func writeUserFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("result file: %w", err)
	}
	if err := write(f); err != nil {
		return errors.Join(fmt.Errorf("write result file %s: %w", path, err), f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write result file %s: %w", path, err)
	}
	return nil
}
