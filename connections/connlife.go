package connections

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// watchExit marks the connection failed as soon as the process of its
// live stdio session exits, so that list shows a server that died while
// idle (killed, OOM, crashed) with its exit status instead of "ready" until
// the next call. It ends when the process does.
func (c *Conn) watchExit(sess *session) {
	<-sess.stdio.done
	exit := sess.stdio.exitError()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != sess || c.status != StatusReady {
		return // stopped by dispatch, or a failed call already said why
	}
	c.status = StatusFailed
	c.lastErr = c.fail("session", fmt.Errorf("%w: %v", ErrServerGone, exit), true)
	c.lastFailure = time.Now()
	c.log.Warn("server exited", "error", c.lastErr.Error())
}

// sessionLost marks the connection failed when the long-lived stream of
// its live SSE session ends, so that list shows a server lost while idle
// instead of "ready" until the next call.
func (c *Conn) sessionLost(sess *session, err error) {
	sess.dead.Store(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != sess || c.status != StatusReady {
		return
	}
	if err == nil {
		err = errors.New("the server closed the connection")
	}
	c.status = StatusFailed
	c.lastErr = c.fail("session", fmt.Errorf("%w: %v", ErrServerGone, explainHTTPErr(c.Config, err)), false)
	c.lastFailure = time.Now()
	c.log.Warn("server connection lost", "error", c.lastErr.Error())
}

// ProbeTimeout bounds the ping Probe sends.
const ProbeTimeout = 5 * time.Second

// Probe pings a streamable HTTP or SSE server whose session is live, so
// that list shows one lost while idle as failed, with why, rather than
// "ready" until the next call. A server that restarted and forgot the
// session is reconnected. stdio servers need no probe: their exit is seen
// at once (watchExit).
func (c *Conn) Probe(ctx context.Context) {
	c.mu.Lock()
	sess, ready := c.sess, c.status == StatusReady
	c.mu.Unlock()
	if !ready || sess == nil || sess.stdio != nil {
		return
	}
	_, _, expired, err := c.send(ctx, sess, ProbeTimeout, "ping", nil)
	var rpc *RPCError
	switch {
	case err == nil, errors.As(err, &rpc), errors.As(err, new(serverAnswered)), ctx.Err() != nil:
		// Answered (an error answer too: the server is there), or the
		// caller went away, which says nothing about the server.
	case expired:
		c.markLost(fmt.Errorf("%w: no answer to ping within %s", ErrServerGone, ProbeTimeout))
	default:
		c.markLost(fmt.Errorf("%w: %v", ErrServerGone, explainHTTPErr(c.Config, err)))
	}
}

// markLost is markDead for a server found gone, which is worth a warning.
func (c *Conn) markLost(err error) {
	if c.markDead(err) {
		c.log.Warn("server connection lost", "error", err.Error())
	}
}

// markDead marks the live session dead and, if the connection was ready,
// failed; it says whether it did the latter, so that the caller may log
// the loss once (watchExit may have seen it first).
func (c *Conn) markDead(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		c.sess.dead.Store(true)
	}
	if c.status != StatusReady {
		return false
	}
	c.status = StatusFailed
	c.lastErr = c.fail("session", err, true)
	c.lastFailure = time.Now()
	return true
}

// markDeadIf is markDead for a failure on sess, which is marked dead
// (it is over), the connection failed only while sess is its live
// session; a nil sess is the live one.
func (c *Conn) markDeadIf(sess *session, err error) bool {
	if sess == nil {
		return c.markDead(err)
	}
	sess.dead.Store(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != sess || c.status != StatusReady {
		return false
	}
	c.status = StatusFailed
	c.lastErr = c.fail("session", err, true)
	c.lastFailure = time.Now()
	return true
}

// StderrTail returns the sanitized last lines the server wrote to stderr.
func (c *Conn) StderrTail(lines int) string {
	return c.opts.Redactor.String(c.stderr.Tail(lines, 8192))
}

// track records a session that dial just started, unless the connection
// was closed meanwhile.
func (c *Conn) track(sess *session) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status == StatusClosed {
		return false
	}
	c.sessions[sess] = struct{}{}
	c.everTracked = true
	return true
}

// closeSession stops sess (for stdio, its whole process group) and forgets
// it. A second call waits for the first to finish.
func (c *Conn) closeSession(sess *session) {
	sess.close(c.log)
	c.mu.Lock()
	delete(c.sessions, sess)
	c.mu.Unlock()
}

// closeWaitLimit bounds how long Close waits for a server to stop: closing
// its stdin and SIGTERM each get their grace, SIGKILL is all but immediate.
// Past it dispatch exits anyway rather than hang its agent, within the
// 1.5 s it promises (see the README).
const closeWaitLimit = stdinCloseGrace + termGrace + 300*time.Millisecond

// Close stops the server and its whole process group, including one still
// starting and dead ones still being reaped, and returns when they are
// gone (or after closeWaitLimit).
func (c *Conn) Close() {
	awaitClosed([]*Conn{c}, []<-chan struct{}{c.beginClose()})
}

// awaitClosed waits for each of stops, what beginClose returned for the
// connection of the same index, all within one closeWaitLimit, and warns
// of each connection still stopping past it.
func awaitClosed(conns []*Conn, stops []<-chan struct{}) {
	var (
		timer   *time.Timer
		expired bool
	)
	for i, stopped := range stops {
		if stopped == nil {
			continue
		}
		select {
		case <-stopped:
			continue
		default:
		}
		if !expired {
			if timer == nil {
				timer = time.NewTimer(closeWaitLimit)
				defer timer.Stop()
			}
			select {
			case <-stopped:
				continue
			case <-timer.C:
				expired = true
			}
		}
		conns[i].warnStillStopping()
	}
}

// beginClose marks c closed and starts stopping what it started; the
// channel returned is closed once that is done. It is nil for a
// connection that never started a server, as a one-shot command answered
// from the cache has sixteen of: nothing to stop or wait for (background
// work needs a session, see background).
func (c *Conn) beginClose() <-chan struct{} {
	c.mu.Lock()
	c.status = StatusClosed
	c.sess = nil
	sessions := make([]*session, 0, len(c.sessions))
	for sess := range c.sessions {
		sessions = append(sessions, sess)
	}
	starting := c.connecting
	idle := !c.everTracked && starting == nil
	c.mu.Unlock()
	if idle {
		return nil
	}

	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var wg sync.WaitGroup
		for _, sess := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.closeSession(sess)
			}()
		}
		wg.Wait()
		// A start under way when the connection closed stops the process
		// it started itself, before it ends (see ensure and dial).
		if starting != nil {
			<-starting
		}
		c.background.Wait()
	}()
	return stopped
}

func (c *Conn) warnStillStopping() {
	c.log.Warn("server still stopping; not waiting any longer", "waited", closeWaitLimit.String())
}
