package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// requestDrainTimeout bounds how long serve mode waits, once stdin closed
// or a signal came, for the requests still running: their contexts are
// cancelled, so they normally end at once, but one stuck where no context
// reaches (a write to an agent that stopped reading stdout, a long scan of
// a large file) must not keep dispatch from stopping its servers and
// deleting its result files. Such a request is abandoned.
const requestDrainTimeout = time.Second

// listenBounded runs stdio.Listen and returns when it does, or at most
// requestDrainTimeout after stdin reached its end or ctx was cancelled.
func listenBounded(ctx context.Context, stdio *server.StdioServer, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	in := &eofReader{r: stdin, eof: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- stdio.Listen(ctx, in, stdout) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	case <-in.eof:
	}
	timer := time.NewTimer(requestDrainTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		log.Warn("requests still running after shutdown began; abandoning them", "waited", requestDrainTimeout.String())
		return nil
	}
}

// eofReader reports, by closing eof, that a read of r failed: the agent
// closed stdin (or it broke), so shutdown has begun.
type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}
