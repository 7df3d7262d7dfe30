//go:build unix

package upstream

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"dispatch/connections"
	"dispatch/dispatch"
)

// BenchmarkHotCall serves sequential plain echo calls of proxy-dispatch
// to the fixture server through the hot path, in this process, over real
// pipes, so that a CPU profile (-cpuprofile) and -benchmem show
// dispatch's own per-call costs (the whole-process comparison with a
// direct call is BenchmarkCallOverhead in the root package).
func BenchmarkHotCall(b *testing.B) {
	conns, err := connections.NewSet([]connections.ServerConfig{
		{Transport: connections.TransportStdio, Command: fixtureServer.Path(b)},
	}, connections.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer conns.Close()
	svc := dispatch.New(conns, dispatch.Options{})
	agentIn, toDispatch, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	fromDispatch, agentOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	srv := server.NewMCPServer("dispatch", "bench", server.WithToolCapabilities(true))
	go func() {
		served <- ServeStdio(ctx, srv, agentIn, agentOut, StdioOptions{Direct: svc})
	}()
	answers := bufio.NewReader(fromDispatch)
	call := func(id int) {
		fmt.Fprintf(toDispatch, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"call","tool":"echo","arguments":{"message":"hi"}}}}`+"\n", id)
		line, err := answers.ReadString('\n')
		if err != nil || !strings.Contains(line, `"text":"hi"`) {
			b.Fatalf("answer %q: %v", line, err)
		}
	}
	call(0) // starts the server and lists its tools: the general path
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		call(i + 1)
	}
	b.StopTimer()
	toDispatch.Close()
	cancel()
	<-served
}
