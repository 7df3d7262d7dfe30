package dispatch

import (
	"context"
	"fmt"

	"github.com/dustin/go-humanize"

	"dispatch/spill"
)

// SavedAnswer answers list, search or info in place of an answer larger
// than the threshold (or with resultToFile): the answer went to a result
// file, as a call's result does, so one server's giant tool description or
// catalog never lands whole in the agent's context.
type SavedAnswer struct {
	Action          string     `json:"action"`
	Type            string     `json:"type,omitempty"`
	Bytes           int64      `json:"bytes"`
	EstimatedTokens int64      `json:"estimatedTokens"`
	Spill           *SpillInfo `json:"spill"`
}

// savedAnswerPart is SpillInfo.Saved of a saved answer: the file holds the
// answer's JSON (in the Proxy Extension's spelling, the objects its
// embedded resource would have held).
const savedAnswerPart = "answer"

// answerToFile returns resp, or a SavedAnswer when resp is the answer of
// list, search or info and its JSON is over req's threshold or req asks
// for resultToFile. Call, readresult and run answers are returned as they
// are: each bounds itself.
func (s *Service) answerToFile(ctx context.Context, req Request, resp any) (any, error) {
	var (
		payload any
		data    []byte
	)
	switch r := resp.(type) {
	case *ProxyQueryResponse:
		data = r.payloadJSON()
	case *ListResponse, *SideListResponse, *SearchResponse, *InfoResponse, *ResourceInfoResponse, *PromptInfoResponse:
		payload = resp
	default:
		return resp, nil
	}
	if req.ResultToFile && s.opts.Spill == nil {
		return nil, usagef("Start dispatch with --spill-dir DIR to keep result files from the command line",
			"resultToFile needs a spill directory, and this dispatch has none")
	}
	threshold := s.opts.Threshold
	if req.ResultSizeThreshold != nil {
		threshold = *req.ResultSizeThreshold
	}
	if !req.ResultToFile && (threshold <= 0 || s.opts.Spill == nil) {
		return resp, nil
	}
	if data == nil {
		var err error
		if data, err = marshalJSON(payload); err != nil {
			return nil, fmt.Errorf("encode %s answer: %w", req.Action, err)
		}
	}
	size := int64(len(data))
	auto := !req.ResultToFile && size > threshold
	if !req.ResultToFile && !auto {
		return resp, nil
	}
	info, err := s.spillPayload(ctx, payloadJSON, data, savedAnswerPart, auto)
	if err != nil {
		return nil, fmt.Errorf("%s: save answer (%s): %w", req.Action, humanize.IBytes(uint64(size)), err)
	}
	return &SavedAnswer{Action: req.Action, Type: req.ProxyType(), Bytes: size,
		EstimatedTokens: spill.EstimateTokens(size), Spill: info}, nil
}
