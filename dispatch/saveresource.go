package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dustin/go-humanize"

	"dispatch/spill"
)

// saveResourceTo writes a resource's one content to path, a file the user
// names and keeps (the CLI's -o): a blob decoded, a JSON text indented (to
// a .toon file as TOON), any other text as it is.
func (s *Service) saveResourceTo(contents []json.RawMessage, path string) (*SavedPayload, error) {
	if len(contents) != 1 {
		return nil, usageBoth("", "Leave out -o and pass --spill-dir DIR to save each content to its own file",
			"the resource has %d contents, and -o saves one", len(contents))
	}
	item := contents[0]
	mimeType, _ := itemString(item, "mimeType")
	var (
		format spill.Format
		write  func(io.Writer) error
		kind   = payloadText
		data   []byte
		part   string
	)
	if blob, ok := itemString(item, "blob"); ok {
		// Decoded once to nowhere first: a blob that is not base64 would
		// otherwise be found half-way through writing over the user's file,
		// whose data -o promises to leave as it was when the read fails.
		if err := decodeBase64To(io.Discard, blob); err != nil {
			return nil, fmt.Errorf("its blob is not base64 (%w); nothing was written to %s", err, path)
		}
		format, part = spill.FormatBinary, "blob"
		write = func(w io.Writer) error { return decodeBase64To(w, blob) }
	} else if text, ok := itemString(item, "text"); ok {
		kind, data = textPayload(text)
		if kind == payloadText && isJSONType(mimeType) && json.Valid(stringBytes(strings.TrimSpace(text))) {
			kind, data = payloadJSON, stringBytes(strings.TrimSpace(text))
		}
		ext := strings.ToLower(filepath.Ext(path))
		if ext == ".txt" {
			kind, data = payloadText, stringBytes(text)
		}
		format, _, write = encoderIn(kind, data, ext == ".toon")
		part = "text"
	} else {
		return nil, errors.New("its content is neither text nor blob; leave out -o to see it")
	}
	if err := writeUserFile(path, write); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("result file: %w", err)
	}
	saved := &SavedPayload{Path: path, SpillInfo: SpillInfo{ResultFile: path, Format: string(format), Saved: part,
		Bytes: st.Size(), Size: humanize.IBytes(uint64(st.Size()))}}
	if format == spill.FormatBinary {
		saved.Hint = "Binary (" + dash(mimeType) + "), decoded."
		return saved, nil
	}
	info, err := spill.Stat(path)
	if err != nil {
		return nil, err
	}
	head, err := spill.Read(path, 0, previewBytes)
	if err != nil {
		return nil, err
	}
	saved.Lines, saved.EstimatedTokens = info.Lines, spill.EstimateTokens(st.Size())
	saved.Preview = spill.PreviewOf(head.Data, st.Size(), previewBytes)
	saved.Hint = "Read it with: dispatch readresult " + path + " --op head"
	if kind == payloadJSON {
		describeShape(&saved.SpillInfo, data)
	}
	return saved, nil
}

// SaveMessages writes a prompt's messages to path as indented JSON, a
// file the user keeps (the CLI's -o).
func (s *Service) SaveMessages(resp *PromptResponse, path string) (*SavedPayload, error) {
	if resp.Spill != nil {
		return nil, errors.New("the messages were already saved to " + resp.Spill.ResultFile)
	}
	data, err := marshalJSON(resp.Messages)
	if err != nil {
		return nil, fmt.Errorf("encode messages: %w", err)
	}
	call := &CallResponse{Content: []json.RawMessage{}, StructuredContent: data}
	saved, err := s.SavePayload(call, path)
	if err != nil {
		return nil, err
	}
	saved.Saved = "messages"
	return saved, nil
}
