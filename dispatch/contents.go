package dispatch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/tidwall/gjson"

	"dispatch/spill"
)

// SavedPart stands in an answer for a resource content, or a binary part
// of a prompt message, that dispatch saved to a file: a blob always (its
// decoded bytes, never base64 in the agent's context), a text when the
// result was above the threshold or resultToFile was asked.
type SavedPart struct {
	// Type is the prompt content item's type ("image", "audio"); empty for
	// resource contents.
	Type       string `json:"type,omitempty"`
	URI        string `json:"uri,omitempty"`
	MimeType   string `json:"mimeType,omitempty"`
	ResultFile string `json:"resultFile"`
	// Format is "binary" (decoded bytes, named by the MIME type's
	// extension), "text", or "json"/"toon" for JSON text (a JSON MIME type,
	// or a text holding an object or array), saved indented so that
	// readresult query, grep and argumentsFile work on it.
	Format           string   `json:"format"`
	Bytes            int64    `json:"bytes"`
	Size             string   `json:"size"`
	EstimatedTokens  int64    `json:"estimatedTokens,omitempty"`
	Lines            int64    `json:"lines,omitempty"`
	TopLevelKeys     []string `json:"topLevelKeys,omitempty"`
	Elements         *int64   `json:"elements,omitempty"`
	FirstElementKeys []string `json:"firstElementKeys,omitempty"`
	Preview          string   `json:"preview,omitempty"`
}

// savedPartsHint says how to use the files of SavedParts.
const savedPartsHint = `Parts with "resultFile" were saved to files instead of your context: read text and JSON ones with {"action":"readresult","resultFile":"...","op":"head"} (or grep, slice, query), feed them to a call with "argumentsFile"; "binary" ones hold the decoded bytes, for a tool that takes a file path.`

// MaxSavedParts bounds the files one answer may save (blobs, images,
// texts): a hostile server sending a million one-byte blobs must not make
// a million files.
const MaxSavedParts = 256

// partBudget counts the files one answer saved, and keeps their paths so
// that an answer failing half way leaves none behind.
type partBudget struct {
	n     int
	paths []string
}

// saved records a file the answer wrote.
func (b *partBudget) saved(path string) { b.paths = append(b.paths, path) }

// discard removes the files of an answer that failed: the agent never
// learns their names.
func (s *Service) discard(b *partBudget) {
	for _, path := range b.paths {
		if err := s.opts.Spill.Remove(path); err != nil {
			s.log.Warn("remove a file of a failed answer", "error", err.Error())
		}
	}
	b.paths = nil
}

// take reserves one more file, or says why not.
func (b *partBudget) take() error {
	if b.n >= MaxSavedParts {
		return fmt.Errorf("the server sent more than %d parts to save to files (MaxSavedParts); the files already saved from this answer are removed", MaxSavedParts)
	}
	b.n++
	return nil
}

// ErrNoSpillStore means a blob arrived and there is nowhere to save it.
var ErrNoSpillStore = errors.New("no spill directory to save it in")

// saveBlob writes base64 data, decoded as it streams, to a new spill file
// named with the extension of mimeType.
func (s *Service) saveBlob(data, mimeType string) (*spill.File, error) {
	if s.opts.Spill == nil {
		return nil, ErrNoSpillStore
	}
	return s.opts.Spill.CreateBinary(extensionFor(mimeType), func(w io.Writer) error {
		return decodeBase64To(w, data)
	})
}

// decodeBase64To decodes standard base64 (padded or not, as servers
// differ) into w without holding the decoded bytes.
func decodeBase64To(w io.Writer, data string) error {
	enc := base64.StdEncoding
	if len(data)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	if _, err := io.Copy(w, base64.NewDecoder(enc, strings.NewReader(data))); err != nil {
		return fmt.Errorf("decode base64: %w", err)
	}
	return nil
}

// binaryPart describes a saved blob.
func binaryPart(file *spill.File, uri, mimeType string) SavedPart {
	return SavedPart{URI: uri, MimeType: mimeType, ResultFile: file.Path, Format: string(file.Format),
		Bytes: file.Bytes, Size: humanize.IBytes(uint64(file.Bytes))}
}

// saveText writes a text content to a new spill file: as JSON when its
// MIME type says JSON and it parses (the spec's "objectification"), or
// when it holds a JSON object or array; as text otherwise.
func (s *Service) saveText(text, mimeType string) (*spill.File, payloadKind, []byte, error) {
	if s.opts.Spill == nil {
		return nil, 0, nil, ErrNoSpillStore
	}
	// The text is never copied: JSON is viewed as bytes for the encoder, and
	// a 20 MB text goes to its file from the string it arrived in.
	trimmed := strings.TrimSpace(text)
	if (isJSONType(mimeType) || strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[")) && json.Valid(stringBytes(trimmed)) {
		data := stringBytes(trimmed)
		format, size, write := s.encoderFor(payloadJSON, data)
		file, err := s.opts.Spill.CreateContext(context.Background(), format, size, write)
		return file, payloadJSON, data, err
	}
	file, err := s.opts.Spill.Create(spill.FormatText, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
	return file, payloadText, nil, err
}

// saveTextToken is saveText for a text still in its JSON string token. A
// text that cannot be JSON is unescaped straight into its file, never held
// whole; one that may be is unescaped over the token itself (not into a
// copy beside the message) and goes the way of saveText. The token is not
// JSON after: the message it lies in must not be read again.
func (s *Service) saveTextToken(token []byte, mimeType string) (*spill.File, payloadKind, []byte, error) {
	if s.opts.Spill == nil {
		return nil, 0, nil, ErrNoSpillStore
	}
	if isJSONType(mimeType) || mayStartJSON(token) {
		text, err := unescapeInPlace(token)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("decode the text: %w", err)
		}
		return s.saveText(jsonView(text), mimeType)
	}
	file, err := s.opts.Spill.Create(spill.FormatText, func(w io.Writer) error {
		return writeUnescaped(w, token)
	})
	return file, payloadText, nil, err
}

// mayStartJSON reports whether the string token's text may start with {
// or [ after white space; an escape other than \n, \r or \t there, or a
// non-ASCII character (Unicode white space), counts as may.
func mayStartJSON(token []byte) bool {
	for i := 1; i < len(token)-1; i++ {
		switch token[i] {
		case ' ', '\t':
			continue
		case '\\':
			if i+1 < len(token) && (token[i+1] == 'n' || token[i+1] == 'r' || token[i+1] == 't') {
				i++
				continue
			}
			return true
		case '{', '[':
			return true
		}
		// Past ASCII may be white space that strings.TrimSpace skips.
		return token[i] >= 0x80
	}
	return false
}

// textPart describes a saved text.
func textPart(file *spill.File, kind payloadKind, data []byte, uri, mimeType string) SavedPart {
	part := SavedPart{URI: uri, MimeType: mimeType, ResultFile: file.Path, Format: string(file.Format),
		Bytes: file.Bytes, Size: humanize.IBytes(uint64(file.Bytes)), EstimatedTokens: file.Tokens, Lines: file.Lines,
		Preview: spill.PreviewOf(file.Prefix, file.Bytes, previewBytes)}
	if kind == payloadJSON {
		var info SpillInfo
		describeShape(&info, data)
		part.TopLevelKeys, part.Elements, part.FirstElementKeys = info.TopLevelKeys, info.Elements, info.FirstElementKeys
	}
	return part
}

// itemString returns a string member of a raw JSON item, and whether it
// is there as a string.
func itemString(item json.RawMessage, key string) (string, bool) {
	// Not GetBytes, which copies the member's raw text before its value.
	v := gjson.Get(jsonView(item), key)
	str := v.String()
	if len(str) < 4096 {
		// A short string may outlive the item (a URI in an answer); it
		// must not keep a large result alive as a view into it.
		str = strings.Clone(str)
	}
	return str, v.Type == gjson.String
}
