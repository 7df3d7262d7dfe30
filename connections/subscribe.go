package connections

import (
	"context"
	"fmt"
	"time"
)

// SubscribeTimeout bounds one resources/subscribe or unsubscribe passed
// to a server.
const SubscribeTimeout = 30 * time.Second

// Subscribe sends resources/subscribe for uri (resources/unsubscribe when
// on is false), starting the server if need be. The server's
// notifications/resources/updated then reach Options.OnResourceUpdated.
func (c *Conn) Subscribe(ctx context.Context, uri string, on bool) error {
	method, op := "resources/subscribe", "subscribe "+uri
	if !on {
		method, op = "resources/unsubscribe", "unsubscribe "+uri
	}
	sess, err := c.ensure(ctx)
	if err != nil {
		return err
	}
	_, _, expired, err := c.send(ctx, sess, SubscribeTimeout, method, map[string]any{"uri": uri})
	if err != nil {
		timedOut := fmt.Errorf("%w: no %s answer within %s", ErrCallTimeout, method, SubscribeTimeout)
		return c.wrapRequestErr(op, ctx, expired, timedOut, err)
	}
	c.recordSubscription(uri, on)
	return nil
}

// MaxSubscriptionsPerServer bounds the subscriptions dispatch remembers
// for one server, to subscribe again when the server starts again. One
// past it is still passed to the server, but not renewed after a restart
// (a WARN says so).
const MaxSubscriptionsPerServer = 1024

// recordSubscription remembers what the agents subscribed to on this
// server: a server that starts again (after a crash, or restarted by a
// new config) has a new session that knows none of it, while the agents,
// whose own session with dispatch went on, have no reason to subscribe
// again.
func (c *Conn) recordSubscription(uri string, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !on {
		delete(c.subscribed, uri)
		return
	}
	if len(c.subscribed) >= MaxSubscriptionsPerServer {
		c.log.Warn("resources/subscribe: too many subscriptions to renew after a restart", "uri", uri, "limit", MaxSubscriptionsPerServer)
		return
	}
	if c.subscribed == nil {
		c.subscribed = map[string]bool{}
	}
	c.subscribed[uri] = true
}

// subscriptionsLocked lists the remembered subscriptions.
func (c *Conn) subscriptionsLocked() []string {
	uris := make([]string, 0, len(c.subscribed))
	for uri := range c.subscribed {
		uris = append(uris, uri)
	}
	return uris
}

// inheritSubscriptions takes the subscriptions of old, the connection c
// replaces under the same alias (a new config restarted the server), and
// says whether there were any.
func (c *Conn) inheritSubscriptions(old *Conn) bool {
	old.mu.Lock()
	uris := old.subscriptionsLocked()
	old.mu.Unlock()
	if len(uris) == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subscribed = make(map[string]bool, len(uris))
	for _, uri := range uris {
		c.subscribed[uri] = true
	}
	return true
}

// startForSubscriptions starts the server, which then subscribes again
// (resubscribeLocked): the agents wait for updates that only a running
// server sends. Called once the connection it replaced is retired, so
// that the two never run at once.
func (c *Conn) startForSubscriptions() {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.ConnectTimeout)
	defer cancel()
	if _, err := c.ensure(ctx); err != nil {
		c.log.Warn("resources/subscribe: the restarted server did not start; its subscriptions are renewed when it next does", "error", err.Error())
	}
}

// resubscribeLocked sends the remembered subscriptions to sess, a new
// session, off the caller's path.
func (c *Conn) resubscribeLocked(sess *session) {
	uris := c.subscriptionsLocked()
	if len(uris) == 0 {
		return
	}
	c.background.Add(1)
	go func() {
		defer c.background.Done()
		for _, uri := range uris {
			ctx, cancel := context.WithTimeout(context.Background(), SubscribeTimeout)
			_, _, _, err := c.send(ctx, sess, SubscribeTimeout, "resources/subscribe", map[string]any{"uri": uri})
			cancel()
			if err != nil {
				c.log.Warn("resources/subscribe: could not subscribe again after the server started again", "uri", uri, "error", err.Error())
			}
		}
	}()
}

// resourceUpdated passes a server's notifications/resources/updated on.
func (c *Conn) resourceUpdated(params map[string]any) {
	uri, ok := params["uri"].(string)
	if !ok || uri == "" || len(uri) > maxUpdatedURIBytes || c.opts.OnResourceUpdated == nil {
		return
	}
	// Masked as the server's resource list is (catalog text), so that the
	// URI matches the one the agent was shown and subscribed to.
	c.opts.OnResourceUpdated(c, c.opts.Redactor.String(uri))
}

// maxUpdatedURIBytes bounds the URI of a resources/updated passed on: a
// hostile server's megabyte "URI" is dropped, not relayed.
const maxUpdatedURIBytes = 8 << 10
