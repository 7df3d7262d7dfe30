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

	"dispatch/spill"
	"dispatch/toon"
)

// MaxTOONQueryBytes bounds a TOON file that query decodes in memory;
// JSON files are queried in place and have no such bound.
const MaxTOONQueryBytes = 256 << 20

// decodeTOONArguments turns a TOON argumentsFile into JSON.
func decodeTOONArguments(path string, data []byte) ([]byte, error) {
	v, err := toon.Decode(data, toon.DefaultDecodeOptions())
	switch {
	case errors.Is(err, toon.ErrTooManyValues):
		return nil, usagef(`Pass the part you need: select it with {"action":"readresult","op":"query"} and give it in "arguments", or have results saved as JSON (start dispatch without --toon), from which argumentsPath reads only the part`,
			"argumentsFile %s is too large to decode: %v", path, err)
	case err != nil:
		return nil, usagef("Give a valid TOON or JSON file", "argumentsFile %s is not valid TOON: %v", path, err)
	}
	var buf bytes.Buffer
	if err := toon.WriteJSON(&buf, v, ""); err != nil {
		return nil, fmt.Errorf("argumentsFile %s: %w", path, err)
	}
	return buf.Bytes(), nil
}

// queryFile runs a gjson query over a JSON file in place, or over a TOON
// file decoded to JSON.
func queryFile(f *os.File, query string, limits spill.Limits) (*spill.QueryResult, error) {
	path := f.Name()
	if !isTOONFile(f) {
		return limits.Query(f, query)
	}
	if err := spill.CheckPath(query); err != nil {
		return nil, usagef("Fix the path (gjson syntax)", "query: %v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxTOONQueryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if len(data) > MaxTOONQueryBytes {
		return nil, usagef("Use grep or slice on this file, or restart dispatch without --toon so results are JSON", "query decodes TOON files in memory, and this one is larger than %s", humanize.IBytes(MaxTOONQueryBytes))
	}
	v, err := toon.Decode(data, toon.DefaultDecodeOptions())
	switch {
	case errors.Is(err, toon.ErrTooManyValues):
		return nil, usagef("Use grep or slice on this file, or restart dispatch without --toon so results are JSON, which query reads in place", "query decodes TOON files in memory, and this one is too large: %v", err)
	case err != nil:
		return nil, fmt.Errorf("query: decode TOON: %w", err)
	}
	var js bytes.Buffer
	if err := toon.WriteJSON(&js, v, ""); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	// The same bounded query as over a JSON file: a TOON file comes from
	// the same hostile tool output.
	return limits.QueryBytes(path, js.Bytes(), query)
}

// sniffBytes is how much of a file's start tells TOON from JSON.
const sniffBytes = 512

// isTOONFile reports whether f holds TOON: its name ends in .toon, or says
// nothing of the format (out/tree.out written with --toon) and its first
// line is TOON's. A .json name is taken at its word.
func isTOONFile(f *os.File) bool {
	switch strings.ToLower(filepath.Ext(f.Name())) {
	case ".toon":
		return true
	case ".json":
		return false
	}
	head := make([]byte, sniffBytes)
	n, _ := f.ReadAt(head, 0) // a short read is the whole start
	start := bytes.TrimLeft(head[:n], " \t\r\n")
	return len(start) > 0 && spill.SniffTOON(start)
}

// preferTOON replaces an inline object or array payload with its TOON form
// when that is smaller than the payload as compact JSON. TOON wins on
// uniform arrays of objects and loses on deep, irregular data, so the
// choice is measured per result.
func (s *Service) preferTOON(resp *CallResponse, result *callResult) {
	if (!result.hasStructured() && len(result.Content) != 1) || !result.textOnly() {
		// Images, audio and resources must reach the agent as what they
		// are, and several items as several: only a JSON value carried
		// by text (or structuredContent) can become TOON text. Checked
		// before payload(), which would marshal a whole content list.
		return
	}
	kind, data, _ := result.payload()
	if kind != payloadJSON {
		return
	}
	if !toonFits(data) {
		// Its TOON would be longer, and costs the square of the depth to
		// find out.
		resp.Format = "json"
		return
	}
	// Say which form the agent got, whichever wins; only a failure to
	// encode leaves the field empty (the result is then as the server sent it).
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return
	}
	var encoded bytes.Buffer
	if err := toon.EncodeJSON(&encoded, bytes.NewReader(data), toon.EncodeOptions{}); err != nil {
		s.log.Debug("TOON encode failed; keeping JSON", "error", err.Error())
		return
	}
	if encoded.Len() >= compact.Len() {
		resp.Format = "json"
		return
	}
	item, err := json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", encoded.String()})
	if err != nil {
		return
	}
	resp.Content = []json.RawMessage{item}
	resp.StructuredContent = nil
	resp.Format = "toon"
	resp.Bytes = int64(len(item))
	resp.EstimatedTokens = spill.EstimateTokens(resp.Bytes)
}
