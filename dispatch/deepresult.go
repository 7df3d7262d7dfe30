package dispatch

import "dispatch/rawjson"

// MaxInlineNesting is the deepest nesting of arrays and objects, counting
// the result's own object, that a call's result may have to be answered
// inline. The agent's JSON-RPC message adds one level around it, and
// encoding/json, which writes that message here (and reads it in many
// agents), refuses more than MaxIndentedNesting levels. A deeper result is
// saved to a file, whole on one line, as an oversized one is.
const MaxInlineNesting = MaxIndentedNesting - 1

// fileVerdict is resultFile's decision for one result: made once, where
// the result arrives, and handed on, since the depth scan it may run reads
// the whole result.
type fileVerdict struct {
	toFile bool // the result goes to a file
	auto   bool // dispatch chose that, not the request
}

// resultFile is the one decision, for the hot path, the general path and
// HTTP alike, of whether a call's result raw goes to a file: when req
// asks for it, when raw is over the threshold, or when raw is nested too
// deep to answer inline; auto when dispatch chose it. Only a store saves
// files. Every server mode has one; the one-shot command line, which may
// not, prints a deep result itself (and says what to do when --json
// cannot).
func (s *Service) resultFile(req Request, raw []byte) fileVerdict {
	if req.ResultToFile {
		return fileVerdict{toFile: true}
	}
	if s.opts.Spill == nil {
		return fileVerdict{}
	}
	threshold := s.opts.Threshold
	if req.ResultSizeThreshold != nil {
		threshold = *req.ResultSizeThreshold
	}
	if threshold > 0 && int64(len(raw)) > threshold {
		return fileVerdict{toFile: true, auto: true}
	}
	// Checked only for a result small enough to be answered inline: one
	// pass, none at all for one too short to nest that deep.
	deep := len(raw) > MaxInlineNesting && !rawjson.NestingWithin(raw, MaxInlineNesting)
	return fileVerdict{toFile: deep, auto: deep}
}
