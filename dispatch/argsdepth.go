package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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

// tokenCheckEvery is how many tokens validDeepJSON reads between looks
// at its context.
const tokenCheckEvery = 1 << 16

// validDeepJSON reports whether data is one JSON value, however deep it
// nests. json.Valid and gjson cannot say: the first refuses past 10,000
// levels, the second recurses once per level (millions of brackets would
// exhaust the stack). A decoder's tokens keep their nesting in a slice, not
// on the stack, and have no depth limit. For the few files json.Valid
// refuses that nest past MaxRequestNesting only: it is slow, and stops
// when ctx ends.
func validDeepJSON(ctx context.Context, data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth := 0
	for n := 1; ; n++ {
		if n%tokenCheckEvery == 0 && ctx.Err() != nil {
			return false
		}
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			// One value, then nothing: the decoder would take a second.
			_, err := dec.Token()
			return errors.Is(err, io.EOF)
		}
	}
}
