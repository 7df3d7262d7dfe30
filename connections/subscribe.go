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
	return nil
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
