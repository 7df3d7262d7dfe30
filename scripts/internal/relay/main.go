// Command relay is the bare relay the benchmarks put beside dispatch: the
// least a stdio proxy hop can cost. It starts the server command given as
// its arguments and copies the agent's stdin to the server's stdin and the
// server's stdout to its own stdout, each line as it arrives, without
// parsing; it exits when either side ends. Standard library only, so that
// its cost is the pipe hop and nothing else.
//
//	relay SERVER [ARGS...]
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// lineBuffer is the read buffer of each direction; a longer line is
// forwarded in pieces of this size, never truncated.
const lineBuffer = 64 << 10

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: relay SERVER [ARGS...] (the stdio MCP server to relay to)")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "relay: %v\n", err)
		os.Exit(1)
	}
}

func run(name string, args []string) error {
	server := exec.Command(name, args...)
	server.Stderr = os.Stderr
	toServer, err := server.StdinPipe()
	if err != nil {
		return fmt.Errorf("server stdin: %w", err)
	}
	fromServer, err := server.StdoutPipe()
	if err != nil {
		return fmt.Errorf("server stdout: %w", err)
	}
	if err := server.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	ended := make(chan error, 2)
	go func() { ended <- forwardLines(toServer, os.Stdin) }()
	go func() { ended <- forwardLines(os.Stdout, fromServer) }()
	copyErr := <-ended
	// Either side ended: close the server's stdin (a server ends on EOF)
	// and stop it if the agent is gone, then reap it.
	closeErr := toServer.Close()
	killErr := server.Process.Kill()
	if errors.Is(killErr, os.ErrProcessDone) {
		killErr = nil
	}
	waitErr := server.Wait()
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		waitErr = nil // killed by us, or the server's own exit: not the relay's failure
	}
	return errors.Join(copyErr, closeErr, killErr, waitErr)
}

// forwardLines writes each line read from src to dst as soon as it is
// read, until src ends; EOF is the normal end and returns nil.
func forwardLines(dst io.Writer, src io.Reader) error {
	r := bufio.NewReaderSize(src, lineBuffer)
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			if _, werr := dst.Write(line); werr != nil {
				return fmt.Errorf("write: %w", werr)
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return fmt.Errorf("read: %w", err)
		}
	}
}
