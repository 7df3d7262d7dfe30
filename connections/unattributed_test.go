package connections

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A long error answered to id null whose credential straddles the quote's
// cut is masked before the cut, in the server's diagnostics and in what a
// timed-out call will quote, and the quote says it was cut.
func TestUnattributedError_MaskedBeforeCut(t *testing.T) {
	const key = "k3y-0123456789abcdefghij"
	var diag bytes.Buffer
	tr := &stdioTransport{diag: &diag, log: discardLogger, alias: "c1",
		redactor: NewRedactor(ServerConfig{Env: map[string]string{"API_KEY": key}})}
	tr.unattributedError(&mcp.JSONRPCErrorDetails{Code: -32700, Message: strings.Repeat("x", MaxQuotedText-5) + key + strings.Repeat("y", 100_000)})
	quoteShows(t, "the diagnostic", diag.String(), key, "MaxQuotedText")
	u := tr.unattributed.Load()
	if u == nil {
		t.Fatal("the answer was not kept for a time-out to name")
	}
	quoteShows(t, "the kept message", u.message, key, "MaxQuotedText")
}
