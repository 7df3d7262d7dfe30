package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"dispatch/connections"
	"dispatch/dispatch"
)

// A call is answered once, whatever mix of Answer and Panic reaches it: a
// second answer would reach the agent, and would free the call's slot and
// end its handler a second time (a negative WaitGroup is a crash).
func TestHotStart_AnswersOnce(t *testing.T) {
	for _, order := range []string{"answer,panic", "panic,answer", "answer,answer"} {
		t.Run(order, func(t *testing.T) {
			var out bytes.Buffer
			s := &stdioServer{
				out:      newGroupWriter(&out, slog.New(slog.DiscardHandler)),
				log:      slog.New(slog.DiscardHandler),
				slots:    make(chan struct{}, 2),
				inFlight: map[string]canceller{},
			}
			// This call's slot and handler, and another call's.
			s.slots <- struct{}{}
			s.slots <- struct{}{}
			s.handlers.Add(2)
			h := &hotStart{s: s, id: []byte(`7`), key: "7", tool: "listed"}
			for _, step := range strings.Split(order, ",") {
				if step == "answer" {
					h.Answer([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}`))
				} else {
					h.Panic(errors.New("boom"))
				}
			}
			if lines := strings.Count(out.String(), "\n"); lines != 1 {
				t.Errorf("%d answers written; want 1:\n%s", lines, out.String())
			}
			if strings.HasPrefix(order, "panic") && !strings.Contains(out.String(), `"panic recovered in listed tool handler: boom"`) {
				t.Errorf("a panic answered %s; want it to name the tool called, as mcp-go's recovery does", out.String())
			}
			if len(s.slots) != 1 {
				t.Errorf("%d slots taken after the call's end; want 1, the other call's", len(s.slots))
			}
		})
	}
}

// panicOnCall is a log handler that panics on the Service's line for a
// call: a way to make the code answering a call panic.
type panicOnCall struct{ slog.Handler }

func (panicOnCall) Enabled(context.Context, slog.Level) bool { return true }
func (panicOnCall) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "call" {
		panic("log handler failed")
	}
	return nil
}

// A panic serving a hot call is answered as mcp-go's recovery answers
// the same call's, which names the tool the agent called: for a tool
// listed beside proxy-dispatch, that tool (it said proxy-dispatch).
func TestServeStdio_HotPathPanicNamesTheToolCalled(t *testing.T) {
	conns, err := connections.NewSet([]connections.ServerConfig{{Transport: connections.TransportStdio, Command: "unused-server"}}, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conns.Close()
	svc := dispatch.New(conns, dispatch.Options{Logger: slog.New(panicOnCall{})})
	exposed := func(name string) (dispatch.SurfaceTool, bool) {
		return dispatch.SurfaceTool{Name: name, Connection: "c1", Tool: "server_name"}, name == "listed"
	}
	agentIn, toDispatch, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromDispatch, agentOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	srv := server.NewMCPServer("dispatch", "test", server.WithToolCapabilities(true))
	go func() {
		served <- ServeStdio(ctx, srv, agentIn, agentOut, StdioOptions{Direct: svc, Exposed: exposed})
	}()
	defer func() {
		toDispatch.Close()
		cancel()
		<-served
	}()
	answers := bufio.NewReader(fromDispatch)
	for _, c := range []struct{ tool, arguments string }{
		{"listed", `{"a":1}`},
		{dispatch.ToolName, `{"action":"call","tool":"t"}`},
	} {
		fmt.Fprintf(toDispatch, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", c.tool, c.arguments)
		line, err := answers.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			Error *struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal([]byte(line), &answer); err != nil || answer.Error == nil {
			t.Fatalf("%s: answer %s (%v); want a panic's error", c.tool, line, err)
		}
		want := "panic recovered in " + c.tool + " tool handler: log handler failed"
		if answer.Error.Code != mcp.INTERNAL_ERROR || answer.Error.Message != want {
			t.Errorf("%s: error %d %q; want %d %q, as mcp-go's recovery answers", c.tool, answer.Error.Code, answer.Error.Message, mcp.INTERNAL_ERROR, want)
		}
	}
}
