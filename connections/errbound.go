package connections

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/dustin/go-humanize"
	"github.com/mark3labs/mcp-go/mcp"
)

// MaxServerErrorMessage bounds how much of a server's JSON-RPC error
// message dispatch passes on: in a call's error, a run step's, a list's,
// a passed-through resources/read or prompts/get, the command line's
// output and the logs. A server puts what matters first; a longer message
// would only flood the agent's context, which results that large never
// reach (they go to a file) and HTTP error bodies neither
// (MaxHTTPErrorBody).
const MaxServerErrorMessage = 4096

// MaxQuotedText bounds a server's words that an error of dispatch's own
// quotes: an HTTP error answer's body, an OAuth refusal, a repeated
// cursor. Enough to recognize what the server meant; a server's JSON-RPC
// error message, which is all it has to say, gets MaxServerErrorMessage.
const MaxQuotedText = 200

// MaxServerErrorData bounds the data of a server's JSON-RPC error, which
// only a passed-through request's error carries to the agent. JSON cannot
// be cut and stay what the server meant, so larger data is left out, and
// the message says so. Room for what data holds in practice (the
// elicitations a -32042 asks for, the versions a server supports).
const MaxServerErrorData = 16 << 10

// serverError is a server's JSON-RPC error as dispatch passes it on:
// masked as an answer is (the agent may get it as the server sent it, see
// upstream's passServerError), and bounded.
func (c *Conn) serverError(e *mcp.JSONRPCErrorDetails) *RPCError {
	r := c.opts.Redactor
	msg := r.boundMessage(r.MaskAnswerText(e.Message))
	var data json.RawMessage
	if raw := rawData(e.Data); raw != nil {
		// Measured cleaned: repairing invalid UTF-8 may lengthen it.
		if data = c.cleanAnswer(raw); len(data) > MaxServerErrorData {
			msg += fmt.Sprintf(" [dispatch left out this error's data: %s bytes, more than %s (MaxServerErrorData)]",
				humanize.Comma(int64(len(data))), humanize.Comma(MaxServerErrorData))
			data = nil
		}
	}
	return &RPCError{Code: e.Code, Message: msg, Data: data}
}

// boundMessage bounds s, text of a server's that an error carries, to
// MaxServerErrorMessage bytes and a note of the cut. What is cut is
// masked first as dispatch's own text is (String): a cut through a
// secret would leave its start, which no later masking recognizes as
// the secret, nor a token's shape once too short to match.
func (r *Redactor) boundMessage(s string) string { return r.boundText(s, "error message") }

// boundText bounds s as boundMessage does; what names s in the note.
func (r *Redactor) boundText(s, what string) string {
	if len(s) <= MaxServerErrorMessage {
		return s
	}
	if s = r.String(s); len(s) <= MaxServerErrorMessage {
		return s
	}
	kept := textStart(s, MaxServerErrorMessage)
	return kept + fmt.Sprintf("…[dispatch cut this %s at %s of its %s bytes (MaxServerErrorMessage): %s bytes not shown]",
		what, humanize.Comma(int64(len(kept))), humanize.Comma(int64(len(s))), humanize.Comma(int64(len(s)-len(kept))))
}

// boundErr is err with its text bounded by boundMessage, for an error
// whose text is a server's message (mcp-go gives a JSON-RPC error to
// initialize as its message alone). errors.Is and errors.As still see err.
func (r *Redactor) boundErr(err error) error {
	if err == nil || len(err.Error()) <= MaxServerErrorMessage {
		return err
	}
	return &boundedError{msg: r.boundMessage(err.Error()), err: err}
}

type boundedError struct {
	msg string
	err error
}

func (e *boundedError) Error() string { return e.msg }
func (e *boundedError) Unwrap() error { return e.err }

// textStart is the start of s of at most max bytes, ending where a UTF-8
// character starts: a cut never leaves part of one. Bytes that are not
// UTF-8 count as characters of one byte.
func textStart(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); back++ {
		cut--
	}
	if !utf8.RuneStart(s[cut]) {
		// Continuation bytes that belong to no character: any cut
		// between them splits nothing.
		cut = max
	}
	return s[:cut]
}

// quote is text, a server's, quoted for an error of dispatch's own:
// masked as dispatch's own text by r (nil: the shapes of credentials
// only) before it is cut to MaxQuotedText bytes, so that a cut through a
// secret cannot leave its start.
func quote(r *Redactor, text string) string {
	return quoteMasked(r.String(text), false)
}

// quoteMasked quotes text, masked already, cut to MaxQuotedText bytes
// where a UTF-8 character starts and followed by a note of the cut: a
// quote is never shortened silently. unread says that the text went on
// past what dispatch read of it (MaxHTTPErrorBody).
func quoteMasked(text string, unread bool) string {
	kept, note := cutQuote(text, unread)
	return strconv.Quote(kept) + note
}

// cutQuote is text, masked already, cut as quoteMasked cuts it: what is
// kept, and the note of the cut ("" if nothing was).
func cutQuote(text string, unread bool) (kept, note string) {
	kept = textStart(text, MaxQuotedText)
	switch cut := humanize.Comma(int64(len(text) - len(kept))); {
	case len(kept) < len(text) && unread:
		note = "…[cut: " + cut + " more bytes (MaxQuotedText), and more unread (MaxHTTPErrorBody)]"
	case len(kept) < len(text):
		note = "…[cut: " + cut + " more bytes (MaxQuotedText)]"
	case unread:
		note = "…[cut: more unread (MaxHTTPErrorBody)]"
	}
	return kept, note
}
