package connections

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTextStart(t *testing.T) {
	tests := []struct {
		name string
		s    string
		max  int
		want string
	}{
		{name: "shorter", s: "abc", max: 5, want: "abc"},
		{name: "exact", s: "abcde", max: 5, want: "abcde"},
		{name: "ascii", s: "abcdef", max: 3, want: "abc"},
		{name: "before a two-byte character", s: "abé", max: 2, want: "ab"},
		{name: "inside a two-byte character", s: "abé", max: 3, want: "ab"},
		{name: "inside a three-byte character", s: "a€b", max: 3, want: "a"},
		{name: "after a three-byte character", s: "a€b", max: 4, want: "a€"},
		{name: "inside a four-byte character", s: "a😀b", max: 4, want: "a"},
		{name: "invalid bytes are characters of one", s: "a\xff\xfeb", max: 2, want: "a\xff"},
		{name: "stray continuation bytes", s: "\x80\x80\x80\x80\x80", max: 4, want: "\x80\x80\x80\x80"},
		{name: "zero", s: "abc", max: 0, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textStart(tt.s, tt.max); got != tt.want {
				t.Errorf("textStart(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
			}
		})
	}
}

// hugeErrorSet is a Set of one fixture server serving huge_error, whose
// env holds FIXTURE_ROOT=root: a value dispatch masks in its own text
// but not in answers (it names no credential).
func hugeErrorSet(t *testing.T, root string, flags ...string) *Conn {
	t.Helper()
	cfg := stdio("fx", fixtureServer.Path(t), append([]string{"--huge-errors"}, flags...)...)
	cfg.Env = map[string]string{"FIXTURE_ROOT": root}
	set, err := NewSet([]ServerConfig{cfg}, Options{Redactor: NewRedactor(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return set.Conns()[0]
}

// checkBoundedError fails t unless err is a server's JSON-RPC error whose
// message kept its first MaxServerErrorMessage bytes at most, starting
// with start, and says that total bytes were cut to kept.
func checkBoundedError(t *testing.T, what string, err error, start, kept, total string) *RPCError {
	t.Helper()
	var rpc *RPCError
	if !errors.As(err, &rpc) {
		t.Fatalf("%s: want the server's JSON-RPC error, got %.300v", what, err)
	}
	for name, text := range map[string]string{"message": rpc.Message, "error": err.Error()} {
		if len(text) > MaxServerErrorMessage+300 {
			t.Errorf("%s: the %s is %d bytes, not bounded by MaxServerErrorMessage (%d): %.300s…", what, name, len(text), MaxServerErrorMessage, text)
		}
		if !utf8.ValidString(text) {
			t.Errorf("%s: the %s is not valid UTF-8 after the cut: …%q", what, name, text[max(0, len(text)-300):])
		}
		note := "…[dispatch cut this error message at " + kept + " of its " + total + " bytes (MaxServerErrorMessage)"
		if !strings.Contains(text, note) {
			t.Errorf("%s: the %s does not say what was cut (%q): …%s", what, name, note, text[max(0, len(text)-300):])
		}
	}
	if !strings.HasPrefix(rpc.Message, start) {
		t.Errorf("%s: the message lost its start %q: %.100s", what, start, rpc.Message)
	}
	return rpc
}

// A server's JSON-RPC error message of 2 MB reaches dispatch's callers
// cut to MaxServerErrorMessage, with a note, through Call and StartCall;
// a cut never splits a character, and never leaves the start of a secret
// that dispatch masks in its own text.
func TestConn_ServerErrorMessageBounded(t *testing.T) {
	const root = "/srv/errbound-project-root"
	conn := hugeErrorSet(t, root)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call := func(args string) error {
		_, err := conn.Call(ctx, CallRequest{Tool: "huge_error", Arguments: json.RawMessage(args), Timeout: 30 * time.Second})
		return err
	}

	err := call(`{"bytes":2000000}`)
	checkBoundedError(t, "Call", err, strings.Repeat("E", 100), "4,096", "2,000,000")
	if !strings.Contains(err.Error(), "1,995,904 bytes not shown") {
		t.Errorf("the note does not say how much was cut: …%s", err.Error()[max(0, len(err.Error())-200):])
	}

	_, answers := startCall(t, conn, CallRequest{Tool: "huge_error", Arguments: json.RawMessage(`{"bytes":2000000}`)})
	checkBoundedError(t, "StartCall", waitOutcome(t, answers).err, strings.Repeat("E", 100), "4,096", "2,000,000")

	// 4096 is not a multiple of 3: the last € that fits ends at 4095.
	rpc := checkBoundedError(t, "three-byte characters", call(`{"bytes":2000000,"fill":"€"}`), "€€€", "4,095", "1,999,998")
	if kept, _, _ := strings.Cut(rpc.Message, "…["); kept != strings.Repeat("€", 1365) {
		t.Errorf("kept %d bytes of €, want 1365 whole ones", len(kept))
	}

	// root straddles the cut: masked before it, it shows as *** and not
	// as its first bytes.
	at := MaxServerErrorMessage - 10
	err = call(`{"bytes":2000000,"env":"FIXTURE_ROOT","at":` + strconv.Itoa(at) + `}`)
	rpc = checkBoundedError(t, "a secret across the cut", err, strings.Repeat("E", 100), "4,096", "2,000,003")
	for _, text := range []string{rpc.Message, err.Error()} {
		if strings.Contains(text, root[:6]) {
			t.Errorf("the start of the masked value shows where the cut went through it: …%s", text[at-20:at+30])
		}
		if !strings.Contains(text, strings.Repeat("E", 10)+Mask+"EEE") {
			t.Errorf("the value is not masked where it stood: …%s", text[at-20:at+30])
		}
	}

	// A message within the limit comes whole, and is only masked as an
	// answer is: root is no credential.
	err = call(`{"bytes":100,"env":"FIXTURE_ROOT","at":50}`)
	if !errors.As(err, &rpc) || rpc.Message != strings.Repeat("E", 50)+root+strings.Repeat("E", 50) {
		t.Errorf("a short message was changed: %v", err)
	}
}

// A server's error data larger than MaxServerErrorData is left out, and
// the message says so; smaller data is kept.
func TestConn_ServerErrorDataBounded(t *testing.T) {
	conn := hugeErrorSet(t, "/srv/errbound-data-root")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := conn.GetPrompt(ctx, PromptRequest{Name: "huge-error", Arguments: map[string]string{"dataBytes": "1000000"}, Timeout: 30 * time.Second})
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32042 {
		t.Fatalf("want the server's -32042, got %.300v", err)
	}
	if rpc.Data != nil {
		t.Errorf("data of a million bytes passed on (%d bytes)", len(rpc.Data))
	}
	if !strings.Contains(rpc.Message, "dispatch left out this error's data") || !strings.Contains(rpc.Message, "MaxServerErrorData") {
		t.Errorf("the message does not say the data was left out: %.500s", rpc.Message)
	}
	if len(err.Error()) > MaxServerErrorMessage {
		t.Errorf("the error is %d bytes", len(err.Error()))
	}

	_, err = conn.GetPrompt(ctx, PromptRequest{Name: "huge-error", Arguments: map[string]string{"dataBytes": "100"}, Timeout: 30 * time.Second})
	if !errors.As(err, &rpc) || !strings.Contains(string(rpc.Data), strings.Repeat("D", 100)) || strings.Contains(rpc.Message, "left out") {
		t.Errorf("small data was not passed on whole: %v, data %s", err, rpc.Data)
	}
}

// A huge error answering initialize, or a list, is bounded too.
func TestConn_ServerErrorBoundedAtStartAndList(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, method := range []string{"initialize", "tools/list"} {
		conn := hugeErrorSet(t, "/srv/errbound-start-root", "--error-on", method+"=2000000")
		_, err := conn.Tools(ctx, false)
		if err == nil {
			t.Fatalf("%s refused: Tools succeeded", method)
		}
		msg := err.Error()
		if len(msg) > MaxServerErrorMessage+2048+300 { // the stderr tail of a failed start comes after it
			t.Errorf("%s refused: the error is %d bytes: %.300s…", method, len(msg), msg)
		}
		if !strings.Contains(msg, "refused "+method+": EEEE") || !strings.Contains(msg, "of its 2,000,") || !strings.Contains(msg, "(MaxServerErrorMessage)") {
			t.Errorf("%s refused: the error lacks the message's start or the note of the cut: %.200s … %s", method, msg, msg[max(0, len(msg)-400):])
		}
	}
}
