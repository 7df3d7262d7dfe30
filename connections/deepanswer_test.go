package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A server message nested past MaxAnswerNesting fails the call it
// answers at once, whatever the order of its members, and the server
// stays in use. Before, a message whose id came after its deep result
// was matched to no call, which waited out its time limit.
func TestCall_AnswerTooDeep(t *testing.T) {
	set, err := NewSet([]ServerConfig{stdio("serial", fixtureServer.Path(t), "--serial")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	conn := set.Conns()[0]
	// Far longer than the test's own wait: a call that waits it out is
	// one the refusal did not reach.
	const timeout = time.Hour
	for _, idLast := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		args := fmt.Sprintf(`{"depth":%d,"idLast":%v}`, MaxAnswerNesting+10, idLast)
		raw, err := conn.Call(ctx, CallRequest{Tool: "deep", Arguments: json.RawMessage(args), Timeout: timeout})
		cancel()
		var tooDeep *MessageTooDeepError
		if !errors.As(err, &tooDeep) || tooDeep.Limit != MaxAnswerNesting {
			t.Errorf("idLast %v: answer %.80s, error %v; want a MessageTooDeepError", idLast, raw, err)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
		raw, err = conn.Call(ctx, CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"message":"next"}`), Timeout: timeout})
		cancel()
		if err != nil || !json.Valid(raw) {
			t.Fatalf("idLast %v: the next call: %s, %v", idLast, raw, err)
		}
	}
}
