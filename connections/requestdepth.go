package connections

import (
	"fmt"

	"dispatch/rawjson"
)

// MaxRequestNesting is the deepest nesting of arrays and objects a
// JSON-RPC request may have, an agent's to dispatch or dispatch's to a
// server: encoding/json, which decodes every message dispatch reads and
// every request a server built on mcp-go reads, refuses more. Such a
// server answers a deeper request with a parse error to id null, which
// answers no request, so the call would wait out its time limit.
const MaxRequestNesting = 10_000

// RequestEnvelopeNesting is how many levels a request adds around a
// member of its params (arguments, _meta): the message's own object and
// the params object.
const RequestEnvelopeNesting = 2

// MaxParamsMemberNesting is the deepest a request's arguments or _meta
// may nest, counting their own object, for the request to fit
// MaxRequestNesting.
const MaxParamsMemberNesting = MaxRequestNesting - RequestEnvelopeNesting

// RequestTooDeepError refuses a request whose arguments or _meta nest past
// MaxParamsMemberNesting, before anything is sent or a server started.
type RequestTooDeepError struct {
	Member string // "arguments" or "_meta"
}

func (e *RequestTooDeepError) Error() string {
	verb := "nest"
	if e.Member == "_meta" {
		verb = "nests"
	}
	return fmt.Sprintf("the request's %s %s arrays and objects more than %d levels deep; with the %d levels of the request around them that is more than the %d a request may have (the limit, MaxRequestNesting: encoding/json, with which servers built on mcp-go read requests, refuses more), so it was not sent. Flatten the data: JSON nested this deep is refused everywhere, inline and in arguments files",
		e.Member, verb, MaxParamsMemberNesting, RequestEnvelopeNesting, MaxRequestNesting)
}

// checkParamsNesting refuses arguments or meta that would nest the request
// carrying them past MaxRequestNesting. The server could not read such a
// request: refused here, the caller hears why at once instead of waiting
// out its time limit. Both are raw JSON, meta as the caller wrote it.
func checkParamsNesting(arguments, meta []byte) error {
	if !rawjson.NestingWithin(arguments, MaxParamsMemberNesting) {
		return &RequestTooDeepError{Member: "arguments"}
	}
	if !rawjson.NestingWithin(meta, MaxParamsMemberNesting) {
		return &RequestTooDeepError{Member: "_meta"}
	}
	return nil
}
