package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"

	"dispatch/connections"
	"dispatch/rawjson"
)

// tooDeepHint is what to do about arguments nested too deep to send.
const tooDeepHint = "Flatten the data: JSON nested this deep is refused everywhere, inline and in arguments files"

// tooDeepRequest explains a request connections refused, unsent, as nested
// too deep (deep): naming the argumentsFile when the depth is its
// contents', which is the part of the arguments the agent never wrote out
// and so cannot see the depth of. args are the arguments the call would
// have sent.
func tooDeepRequest(req Request, args json.RawMessage, err error, deep *connections.RequestTooDeepError) error {
	if deep.Member == "arguments" && req.ArgumentsFile != "" &&
		rawjson.NestingWithin(req.Arguments, connections.MaxParamsMemberNesting) {
		depth := JSONNesting(args)
		if req.ArgumentsKey != "" {
			depth-- // the object argumentsKey makes is not the file's
		}
		return argumentsFileTooDeep(req, depth)
	}
	return tooDeepUsage(err)
}

// tooDeepUsage returns err as a usage error when it is connections'
// refusal of a request nested too deep to send: bad input, for the caller
// to fix, not a failure of the server (and so exit 2, not 3).
func tooDeepUsage(err error) error {
	if deep := (*connections.RequestTooDeepError)(nil); errors.As(err, &deep) {
		return &UsageError{Msg: err.Error()} // its text says what to do
	}
	return err
}

// argumentsFileTooDeep refuses an argumentsFile whose JSON (or the part
// argumentsPath selects, or a TOON file's JSON) nests depth levels, too
// deep for the request that would carry it: the server could not read it.
func argumentsFileTooDeep(req Request, depth int) error {
	what := "argumentsFile " + req.ArgumentsFile
	if req.ArgumentsPath != "" {
		what = fmt.Sprintf("the part of argumentsFile %s that argumentsPath %q selects", req.ArgumentsFile, req.ArgumentsPath)
	}
	under := ""
	if req.ArgumentsKey != "" {
		under = fmt.Sprintf(" (%d under argumentsKey %q)", depth+1, req.ArgumentsKey)
	}
	return usagef(tooDeepHint,
		"%s nests arrays and objects %d levels deep%s, more than the %d a call's arguments may have: the request that carries them to the server adds %d levels, and a request may nest at most %d (the limit, MaxRequestNesting: encoding/json, with which servers built on mcp-go read requests, refuses more), so the call was not sent",
		what, depth, under, connections.MaxParamsMemberNesting, connections.RequestEnvelopeNesting, connections.MaxRequestNesting)
}
