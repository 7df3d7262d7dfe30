package connections

import "time"

// ToolAllowed returns nil when the connection's filter lets tool through,
// else a *ToolDeniedError naming the config entry that hides it.
func (c *Conn) ToolAllowed(tool string) error {
	c.mu.Lock()
	denied := c.filter.Check(tool)
	c.mu.Unlock()
	if denied == nil {
		return nil
	}
	denied.Alias = c.Alias
	return denied
}

// Filter returns the connection's tool filter as it is now: a new config
// may have changed it since Config was read.
func (c *Conn) Filter() ToolFilter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.filter
}

// Publishes reports whether the server's last known catalog, before the
// filter, has a tool named tool: a filtered one is then refused as
// filtered, not as unknown.
func (c *Conn) Publishes(tool string) bool {
	c.mu.Lock()
	tools := c.tools
	c.mu.Unlock()
	for _, raw := range tools {
		if toolName(raw) == tool {
			return true
		}
	}
	return false
}

// setFilter applies a new filter to the catalog already known: no
// restart, no tools/list.
func (c *Conn) setFilter(f ToolFilter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.filter = f
	c.visible = f.apply(c.tools)
	c.nextGenerationLocked()
}

func (c *Conn) beginCall() {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
}

func (c *Conn) endCall() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls--
	if c.calls == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// retire closes a connection a new config removed or changed, once the
// calls in flight on it have ended, grace has passed or stop is closed,
// whichever is first; calls still running then fail as the server stops.
func (c *Conn) retire(grace time.Duration, stop <-chan struct{}) {
	c.mu.Lock()
	if c.calls == 0 {
		c.mu.Unlock()
		c.Close()
		return
	}
	if c.drained == nil {
		c.drained = make(chan struct{})
	}
	drained := c.drained
	calls := c.calls
	c.mu.Unlock()
	c.log.Info("server removed or changed by the config; waiting for its calls in flight", "calls", calls, "grace", grace.String())
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-drained:
	case <-stop:
	case <-timer.C:
		c.log.Warn("calls still running on a removed server; stopping it", "waited", grace.String())
	}
	c.Close()
}
