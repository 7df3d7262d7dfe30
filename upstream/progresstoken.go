package upstream

import (
	"bytes"
	"io"
	"net/http"

	"dispatch/dispatch"
)

// withExactProgressToken is r, a POST whose body is body, with the
// agent's progress token where mcp-go keeps it as written
// (dispatch.ExactProgressToken): r and body themselves when it is.
func withExactProgressToken(r *http.Request, body []byte) (*http.Request, []byte) {
	swapped := dispatch.ExactProgressToken(body)
	if len(body) == 0 || &swapped[0] == &body[0] {
		return r, body
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(swapped))
	r.ContentLength = int64(len(swapped))
	return r, swapped
}
