package connections

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// refuserFor answers, on the stream resp, a request of the server that
// is refused as no surrogate id is free (maxServerIDSwaps), with the id
// as the server wrote it: a legacy SSE server's at its message endpoint,
// a streamable HTTP server's with a POST like mcp-go's (the URL and
// headers, session included, of the request that opened the stream). At
// most MaxServerRequests such answers are posted at once; the stream's
// reader waits for one to end, as for a legacy SSE server's refusals.
func (rt *httpRoundTripper) refuserFor(resp *http.Response) func(answer []byte) {
	if rt.sseRequests != nil {
		return rt.sseRequests.refuseRaw
	}
	stream := resp.Request
	if stream == nil {
		return nil // the request is then dropped
	}
	return func(answer []byte) {
		select {
		case rt.refusalSlots <- struct{}{}:
		case <-stream.Context().Done():
			return
		}
		go func() {
			defer func() { <-rt.refusalSlots }()
			rt.postRefusal(stream, answer)
		}()
	}
}

// postRefusal posts answer where stream was sent, within sseAnswerTimeout.
// Its failure is not reported: the server waits for no other answer, and
// ends its request by its own timeout.
func (rt *httpRoundTripper) postRefusal(stream *http.Request, answer []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), sseAnswerTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, stream.URL.String(), bytes.NewReader(answer))
	if err != nil {
		return
	}
	req.Header = stream.Header.Clone()
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: rt, CheckRedirect: redirectsStayHome}
	resp, err := client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, MaxHTTPErrorBody)); err != nil {
		return // the answer was sent; only its acknowledgement broke off
	}
}
