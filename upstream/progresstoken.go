package upstream

import (
	"bytes"
	"io"
	"net/http"

	"dispatch/dispatch"
)

// withExactMeta is r, a POST whose body is body, with the agent's
// progress token where mcp-go keeps it as written
// (dispatch.ExactProgressToken), and its _meta as written in r's context
// (dispatch.WithAgentMeta), for what dispatch forwards of it.
func withExactMeta(r *http.Request, body []byte) (*http.Request, []byte) {
	ctx := dispatch.WithAgentMeta(r.Context(), body)
	swapped := dispatch.ExactProgressToken(body)
	if len(body) == 0 || &swapped[0] == &body[0] {
		if ctx != r.Context() {
			r = r.WithContext(ctx)
		}
		return r, body
	}
	r = r.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(swapped))
	r.ContentLength = int64(len(swapped))
	return r, swapped
}
