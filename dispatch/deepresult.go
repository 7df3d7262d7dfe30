package dispatch

import "dispatch/rawjson"

// MaxInlineNesting is the deepest nesting of arrays and objects, counting
// the result's own object, that a call's result may have to be answered
// inline. The agent's JSON-RPC message adds one level around it, and
// encoding/json, which writes that message here (and reads it in many
// agents), refuses more than MaxIndentedNesting levels. A deeper result is
// saved to a file, whole on one line, as an oversized one is.
const MaxInlineNesting = MaxIndentedNesting - 1

// resultFile is the one decision, for the hot path, the general path and
// HTTP alike, of whether a call's result raw goes to a file: toFile when
// req asks for it, when raw is over the threshold, or when raw is nested
// too deep to answer inline; auto when dispatch chose it. Only a store
// saves files. Every server mode has one; the one-shot command line,
// which may not, prints a deep result itself (and says what to do when
// --json cannot).
func (s *Service) resultFile(req Request, raw []byte) (toFile, auto bool) {
	if req.ResultToFile {
		return true, false
	}
	if s.opts.Spill == nil {
		return false, false
	}
	threshold := s.opts.Threshold
	if req.ResultSizeThreshold != nil {
		threshold = *req.ResultSizeThreshold
	}
	if threshold > 0 && int64(len(raw)) > threshold {
		return true, true
	}
	// Checked only for a result small enough to be answered inline: one
	// pass, none at all for one too short to nest that deep.
	deep := len(raw) > MaxInlineNesting && !rawjson.NestingWithin(raw, MaxInlineNesting)
	return deep, deep
}
