package connections

import (
	"sync"
	"time"
)

// expiryClock ends the calls StartCall began whose time limits ran out,
// with one runtime timer for all of a connection's calls, left armed when
// a call is answered instead of being stopped. A timer per call, stopped
// at its answer, meant adding a timer to an empty timer heap on every
// call, and that wakes the runtime's network poller (an eventfd write, a
// thread woken) on the agent's reader, between reading the call and
// writing it to its server. With one timer, a call whose deadline is
// after the one armed touches no timer: sequential calls with the same
// limit arm it once per limit. The zero value is ready to use.
type expiryClock struct {
	mu    sync.Mutex
	timer *time.Timer              // nil until the first call with a limit
	at    time.Time                // when timer fires; zero while it is not armed
	calls map[*asyncCall]time.Time // the deadline of each call waiting
}

// add ends a with a.expire once limit has passed, unless remove comes
// first.
func (c *expiryClock) add(a *asyncCall, limit time.Duration) {
	deadline := time.Now().Add(limit)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = make(map[*asyncCall]time.Time)
	}
	c.calls[a] = deadline
	switch {
	case c.timer == nil:
		c.timer = time.AfterFunc(limit, c.fire)
	case c.at.IsZero() || deadline.Before(c.at):
		c.timer.Reset(limit)
	default:
		return // the armed timer fires first and re-arms for this one
	}
	c.at = deadline
}

// remove forgets a, answered or abandoned; the timer stays armed.
func (c *expiryClock) remove(a *asyncCall) {
	c.mu.Lock()
	delete(c.calls, a)
	c.mu.Unlock()
}

// fire expires the calls past their deadlines and arms the timer for the
// earliest of the others, if any.
func (c *expiryClock) fire() {
	now := time.Now()
	var expired []*asyncCall
	var next time.Time
	c.mu.Lock()
	for a, deadline := range c.calls {
		switch {
		case !deadline.After(now):
			expired = append(expired, a)
			delete(c.calls, a)
		case next.IsZero() || deadline.Before(next):
			next = deadline
		}
	}
	c.at = next
	if !next.IsZero() {
		c.timer.Reset(next.Sub(now))
	}
	c.mu.Unlock()
	for _, a := range expired {
		a.expire() // takes a.mu, which add and remove are called under: not under c.mu
	}
}
