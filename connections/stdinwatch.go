package connections

import (
	"fmt"
	"sync"
	"time"
)

// stdinTimeoutError is why a server whose stdin took no message within
// the stdin timeout was stopped.
func stdinTimeoutError(d time.Duration) error {
	return fmt.Errorf("the server stopped reading its stdin: a message could not be written to it within %s (--stdin-timeout), so it was treated as hung and stopped", d)
}

// watchWrite is --stdin-timeout for a pipe that has no write deadlines
// (Windows's anonymous pipes: a write there waits in the kernel until the
// server reads). Once deadline has passed it gives up on the server as a
// failed deadline would (stuck), killing its process group first: a
// write blocked on a pipe may not end when the pipe is closed, but it
// ends when the reader's process is gone. The returned stop ends the
// watch; after it returns the watch does nothing more.
func (t *stdioTransport) watchWrite(deadline func() time.Time) (stop func()) {
	var mu sync.Mutex
	stopped := false
	done := make(chan struct{})
	go func() {
		timer := time.NewTimer(time.Until(deadline()))
		defer timer.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.exited:
				return
			case <-timer.C:
			}
			// The deadline moves later while dispatch keeps the server
			// waiting (see writeAll).
			if wait := time.Until(deadline()); wait > 0 {
				timer.Reset(max(wait, minStdinWait))
				continue
			}
			mu.Lock()
			defer mu.Unlock()
			if !stopped {
				t.stuck(stdinTimeoutError(t.stdinTimeout)) //nolint:errcheck // the write that waits reports it
				if err := killGroup(t.group); err != nil {
					fmt.Fprintf(t.diag, "[dispatch] stop stuck server: %v\n", err)
				}
			}
			return
		}
	}()
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		close(done)
	}
}
