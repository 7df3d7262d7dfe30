package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// sseEvent is an SSE event as mcp-go's writeSSEEvent writes it.
func sseEvent(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Appendf(nil, "event: message\ndata: %s\n\n", data)
}

// TestRequestID_MCPGoEvents: the requests mcp-go writes to the agent are
// noted with their ids; pings, results and notifications are not.
func TestRequestID_MCPGoEvents(t *testing.T) {
	sampling := mcp.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(41)),
		Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)},
		Params:  mcp.CreateMessageParams{Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(`"id":7,"method":"x"`)}}}}
	roots := mcp.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(42)), Request: mcp.Request{Method: string(mcp.MethodListRoots)}}
	ping := mcp.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(43)), Request: mcp.Request{Method: string(mcp.MethodPing)}}
	result := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(44)), mcp.NewToolResultText(`,"method":"sampling/createMessage"}`))
	note := mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/message"}}
	tests := []struct {
		name string
		v    any
		id   int64
		ok   bool
	}{
		{"sampling", sampling, 41, true},
		{"roots", roots, 42, true},
		{"ping", ping, 0, false},
		{"result", result, 0, false},
		{"notification", note, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			event := sseEvent(t, tt.v)
			id, ok := requestID(event)
			if id != tt.id || ok != tt.ok {
				t.Errorf("requestID(%q) = %d, %v; want %d, %v", event, id, ok, tt.id, tt.ok)
			}
		})
	}
}

// TestPendingAnswers_Bounded: an id is taken once; past
// maxPendingAnswers the oldest is forgotten.
func TestPendingAnswers_Bounded(t *testing.T) {
	var p pendingAnswers
	for id := range int64(maxPendingAnswers + 1) {
		p.add(id)
	}
	if p.take(0) {
		t.Error("the oldest id is still awaited past the bound")
	}
	if !p.take(1) || p.take(1) {
		t.Error("id 1 is not taken exactly once")
	}
	if len(p.ids) != maxPendingAnswers-1 || len(p.order) != len(p.ids) {
		t.Errorf("%d ids, %d in order; want %d", len(p.ids), len(p.order), maxPendingAnswers-1)
	}
}

// BenchmarkAnswerWatch_Write: what noting pending requests adds to each
// write of a stream, against the bare writer, for a 1 MiB result event
// and a small request event.
func BenchmarkAnswerWatch_Write(b *testing.B) {
	big := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), mcp.NewToolResultText(string(bytes.Repeat([]byte("x"), 1<<20))))
	small := mcp.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2)), Request: mcp.Request{Method: string(mcp.MethodListRoots)}}
	for _, ev := range []struct {
		name string
		v    any
	}{{"result1MiB", big}, {"request", small}} {
		event := sseEvent(b, ev.v)
		bare := discardResponse{header: http.Header{}}
		for _, w := range []struct {
			name string
			w    http.ResponseWriter
		}{{"bare", bare}, {"watched", answerWatch{ResponseWriter: bare, pending: &pendingAnswers{}}}} {
			b.Run(ev.name+"/"+w.name, func(b *testing.B) {
				b.SetBytes(int64(len(event)))
				for b.Loop() {
					if _, err := w.w.Write(event); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestPendingAnswers_RelayLearnsItsID: the relay whose turn it is gets the
// id of the request of its method mcp-go writes next; a request of a
// relay that ended before it was written (left queued in mcp-go) is
// skipped when it is written late, not taken for the next relay's.
func TestPendingAnswers_RelayLearnsItsID(t *testing.T) {
	sampling := func(id int64) []byte {
		return sseEvent(t, mcp.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id),
			Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)}, Params: mcp.CreateMessageParams{MaxTokens: 5}})
	}
	roots := func(id int64) []byte {
		return sseEvent(t, mcp.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	}
	var p pendingAnswers
	w := answerWatch{ResponseWriter: discardResponse{header: http.Header{}}, pending: &p}
	write := func(event []byte) {
		if _, err := w.Write(event); err != nil {
			t.Fatal(err)
		}
	}
	ctx := t.Context()

	first, ok := p.awaitTurn(ctx, string(mcp.MethodSamplingCreateMessage))
	if !ok {
		t.Fatal("no turn for the first relay")
	}
	write(roots(1)) // another method's: not this relay's
	write(sampling(2))
	if id, sent := p.settle(first, false); !sent || id != 2 {
		t.Errorf("the first relay learnt id %d (written %v), want 2", id, sent)
	}

	// A relay that ends before its request is written leaves it queued.
	lost, _ := p.awaitTurn(ctx, string(mcp.MethodSamplingCreateMessage))
	if _, sent := p.settle(lost, true); sent {
		t.Error("a relay whose request was never written learnt an id")
	}
	next, ok := p.awaitTurn(ctx, string(mcp.MethodSamplingCreateMessage))
	if !ok {
		t.Fatal("the turn was not given back by the relay that ended")
	}
	write(sampling(3)) // the ended relay's, written late
	write(sampling(4))
	if id, sent := p.settle(next, false); !sent || id != 4 {
		t.Errorf("the relay after one that ended learnt id %d (written %v), want 4", id, sent)
	}

	// The turn is one relay's at a time.
	held, _ := p.awaitTurn(ctx, string(mcp.MethodListRoots))
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, ok := p.awaitTurn(short, string(mcp.MethodListRoots)); ok {
		t.Error("a second relay got the turn while the first's request was not written")
	}
	write(roots(5))
	if id, sent := p.settle(held, false); !sent || id != 5 {
		t.Errorf("the roots relay learnt id %d (written %v), want 5", id, sent)
	}
}
