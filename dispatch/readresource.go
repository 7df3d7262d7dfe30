package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"

	"dispatch/connections"
	"dispatch/spill"
)

// ResourceResponse answers call type=resource. Contents are the server's
// items as sent (text, and any kind dispatch does not know), except those
// saved to files, which a SavedPart replaces in place.
type ResourceResponse struct {
	Connection      string            `json:"connection"`
	URI             string            `json:"uri"`
	Contents        []json.RawMessage `json:"contents"`
	Meta            json.RawMessage   `json:"_meta,omitempty"`
	Bytes           int64             `json:"bytes"`
	EstimatedTokens int64             `json:"estimatedTokens"`
	// AutoSpilled says the texts were saved because the result was above
	// the threshold (not because resultToFile asked).
	AutoSpilled bool   `json:"autoSpilled,omitempty"`
	Hint        string `json:"hint,omitempty"`
	// Saved, with the CLI's -o, describes the file written.
	Saved *SavedPayload `json:"saved,omitempty"`
}

type readResult struct {
	Contents []json.RawMessage `json:"contents"`
	Meta     json.RawMessage   `json:"_meta,omitempty"`
}

// ReadResource answers call type=resource: it finds the connection (see
// resolveResource), reads the resource, and saves blobs (always) and texts
// (above the threshold, or with resultToFile) to files.
func (s *Service) ReadResource(ctx context.Context, req Request, hooks Hooks) (*ResourceResponse, error) {
	if req.ResultToFile && s.opts.Spill == nil {
		return nil, usagef("Start dispatch with --spill-dir DIR to keep result files from the command line, or use -o PATH",
			"resultToFile needs a spill directory, and this dispatch has none")
	}
	uri, err := expandResourceURI(req.URI, req.Arguments)
	if err != nil {
		return nil, err
	}
	conn, err := s.resolveResource(ctx, req.Connection, uri)
	if err != nil {
		return nil, err
	}
	timeout, which := s.callLimit(conn, req)
	raw, err := conn.ReadResource(ctx, connections.ReadRequest{URI: uri, Meta: req.Meta, OnProgress: hooks.Progress, Timeout: timeout})
	if err != nil {
		if errors.Is(err, connections.ErrCallTimeout) {
			return nil, fmt.Errorf("%w (%s)", err, which())
		}
		return nil, tooDeepUsage(err)
	}
	var result readResult
	if err := decodeReadResult(raw, &result); err != nil {
		return nil, fmt.Errorf("%s: read %s: server sent an invalid result: %w", conn.Alias, uri, err)
	}
	resp := &ResourceResponse{Connection: conn.Alias, URI: uri, Meta: result.Meta,
		Bytes: int64(len(raw)), EstimatedTokens: spill.EstimateTokens(int64(len(raw)))}
	raw = nil // the contents hold what is needed; let the rest go
	if req.SaveTo != "" {
		saved, err := s.saveResourceTo(result.Contents, req.SaveTo)
		if err != nil {
			return nil, fmt.Errorf("%s: read %s: %w", conn.Alias, uri, err)
		}
		resp.Saved = saved
		resp.Contents = []json.RawMessage{}
		return resp, nil
	}
	threshold := s.opts.Threshold
	if req.ResultSizeThreshold != nil {
		threshold = *req.ResultSizeThreshold
	}
	var textBytes int64
	for _, item := range result.Contents {
		if _, ok := itemString(item, "blob"); !ok {
			textBytes += int64(len(item))
		}
	}
	auto := !req.ResultToFile && threshold > 0 && textBytes > threshold && s.opts.Spill != nil
	resp.AutoSpilled = auto
	resp.Contents = make([]json.RawMessage, 0, len(result.Contents))
	var budget partBudget
	for i, item := range result.Contents {
		out, saved, err := s.resourceContent(item, req.ResultToFile || auto, &budget)
		if err != nil {
			s.discard(&budget)
			return nil, fmt.Errorf("%s: read %s: content %d (server sent %s): %w", conn.Alias, uri, i+1, humanize.IBytes(uint64(len(item))), err)
		}
		result.Contents[i] = nil
		resp.Contents = append(resp.Contents, out)
		if saved {
			resp.Hint = savedPartsHint
		}
	}
	return resp, nil
}

// resourceContent returns a content item as the answer shows it: a blob
// saved to a file, a text saved when toFile says so, anything else as
// sent; and whether it saved a file.
func (s *Service) resourceContent(item json.RawMessage, toFile bool, budget *partBudget) (json.RawMessage, bool, error) {
	uri, _ := itemString(item, "uri")
	mimeType, _ := itemString(item, "mimeType")
	// Each payload is taken out of the item once: it may be megabytes.
	if blob, ok := itemString(item, "blob"); ok {
		if err := budget.take(); err != nil {
			return nil, false, err
		}
		file, err := s.saveBlob(blob, mimeType)
		if errors.Is(err, ErrNoSpillStore) {
			return nil, false, usageBoth("Start dispatch with --spill-dir DIR, or read it with resultToFile on a dispatch that has one",
				"Pass -o FILE to save it, or --spill-dir DIR", "it is a blob (%s), which is always saved to a file, decoded, and there is %v", dash(mimeType), err)
		}
		if err != nil {
			return nil, false, fmt.Errorf("save blob: %w", err)
		}
		budget.saved(file.Path)
		out, err := marshalJSON(binaryPart(file, uri, mimeType))
		return out, true, err
	}
	if !toFile {
		return item, false, nil
	}
	token, ok := rawStringMember(item, "text")
	if !ok {
		return item, false, nil
	}
	if err := budget.take(); err != nil {
		return nil, false, err
	}
	file, kind, data, err := s.saveTextToken(token, mimeType)
	if err != nil {
		return nil, false, fmt.Errorf("save text: %w", err)
	}
	budget.saved(file.Path)
	out, err := marshalJSON(textPart(file, kind, data, uri, mimeType))
	return out, true, err
}

func dash(s string) string {
	if s == "" {
		return "no MIME type"
	}
	return s
}
