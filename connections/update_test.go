package connections

import (
	"context"
	"dispatch/internal/testkit"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixtureServer is the Go fixture MCP server (testdata/fixture).
var fixtureServer = &testkit.Binary{Package: testkit.FixturePackage}

func aliases(s *Set) string {
	var out []string
	for _, c := range s.Conns() {
		out = append(out, label(c))
	}
	return strings.Join(out, " ")
}

func TestSet_Update(t *testing.T) {
	a, b, c := stdio("a", "srv-a"), stdio("b", "srv-b"), stdio("c", "srv-c")
	set, err := NewSet([]ServerConfig{a, b, c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	connA, connB := set.Conns()[0], set.Conns()[1]

	aFiltered := a
	aFiltered.Tools = ToolFilter{Deny: []string{"x*"}, Entry: "servers.a.tools"}
	bChanged := stdio("b", "srv-b", "--new-flag")
	changes, err := set.Update([]ServerConfig{aFiltered, bChanged, stdio("d", "srv-d")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changes.String(), "added c4 (d); removed c3 (c); restarted c2 (b); refiltered c1 (a)"; got != want {
		t.Errorf("changes = %q, want %q", got, want)
	}
	if got, want := aliases(set), "c1 (a) c2 (b) c4 (d)"; got != want {
		t.Errorf("after update: %s, want %s", got, want)
	}
	if got, _ := set.Lookup("a"); got != connA {
		t.Error("the unchanged server a is a new connection: it must keep running as it was")
	}
	if err := connA.ToolAllowed("xray"); err == nil {
		t.Error("a's new filter is not applied")
	}
	if got, _ := set.Lookup("c2"); got == connB || got.Config.Args[0] != "--new-flag" {
		t.Error("the changed server b was not replaced under its alias c2")
	}
	for _, gone := range []string{"c", "c3"} {
		if _, err := set.Lookup(gone); !errors.Is(err, ErrUnknownConnection) {
			t.Errorf("Lookup(%q) after removal = %v", gone, err)
		}
	}
	testkit.WaitFor(t, "the replaced connection to close", 20*time.Second, func() bool { return connB.State().Status == StatusClosed })

	// Removed aliases are never given again: c3 stays unknown.
	if changes, err = set.Update([]ServerConfig{aFiltered, bChanged, stdio("d", "srv-d"), stdio("e", "srv-e")}); err != nil {
		t.Fatal(err)
	}
	if got, want := changes.String(), "added c5 (e)"; got != want {
		t.Errorf("changes = %q, want %q", got, want)
	}

	// An invalid config changes nothing.
	before := aliases(set)
	if _, err := set.Update([]ServerConfig{aFiltered, {Name: "broken", Transport: TransportStdio}}); err == nil || !strings.Contains(err.Error(), `server "broken": stdio server has no command`) {
		t.Errorf("Update with an invalid config = %v", err)
	}
	if _, err := set.Update([]ServerConfig{stdio("x", "one"), stdio("x", "two")}); err == nil {
		t.Error("Update accepted two servers with one name")
	}
	if after := aliases(set); after != before {
		t.Errorf("a refused config changed the set: %s, was %s", after, before)
	}

	set.Close()
	if _, err := set.Update([]ServerConfig{a}); !errors.Is(err, ErrSetClosed) {
		t.Errorf("Update after Close = %v, want ErrSetClosed", err)
	}
}

// A server a new config removes finishes the call in flight on it, then
// stops; one whose filter alone changed keeps its process. Run with -race:
// lookups, listings and calls go on while the config changes.
func TestSet_Update_LiveServers(t *testing.T) {
	fx := fixtureServer.Path(t)
	keep, drop := stdio("keep", fx), stdio("drop", fx, "--name", "drop")
	set, err := NewSet([]ServerConfig{keep, drop}, Options{ConnectTimeout: 20 * time.Second, RetireGrace: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	set.ConnectAll(ctx)
	kept, dropped := set.Conns()[0], set.Conns()[1]
	if kept.State().Status != StatusReady || dropped.State().Status != StatusReady {
		t.Fatalf("servers not ready: %v / %v", kept.State(), dropped.State())
	}
	sess := kept.liveSession()

	inFlight := make(chan error, 1)
	go func() {
		raw, err := dropped.Call(ctx, CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"seconds":1.5}`), Timeout: 20 * time.Second})
		if err == nil && !strings.Contains(string(raw), "slept 1.5s") {
			err = errors.New("unexpected result " + string(raw))
		}
		inFlight <- err
	}()
	testkit.WaitFor(t, "the call to be in flight", 20*time.Second, func() bool {
		dropped.mu.Lock()
		defer dropped.mu.Unlock()
		return dropped.calls == 1
	})

	// Readers race the update.
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, c := range set.Conns() {
					if _, err := c.Tools(ctx, false); err != nil && c == kept {
						t.Errorf("tools of kept server: %v", err)
					}
				}
				if _, err := set.Lookup("keep"); err != nil {
					t.Errorf("Lookup(keep): %v", err)
				}
			}
		})
	}

	keepFiltered := keep
	keepFiltered.Tools = ToolFilter{Allow: []string{"echo"}, Entry: "servers.keep.tools"}
	changes, err := set.Update([]ServerConfig{keepFiltered})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changes.String(), "removed c2 (drop); refiltered c1 (keep)"; got != want {
		t.Errorf("changes = %q, want %q", got, want)
	}
	if err := <-inFlight; err != nil {
		t.Errorf("the call in flight on the removed server failed: %v", err)
	}
	close(stop)
	readers.Wait()
	testkit.WaitFor(t, "the removed server to stop", 20*time.Second, func() bool { return dropped.State().Status == StatusClosed })

	tools, err := kept.Tools(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || toolName(tools[0]) != "echo" {
		t.Errorf("kept server's tools after the new filter: %d, want echo alone", len(tools))
	}
	if kept.State().Status != StatusReady || kept.liveSession() != sess {
		t.Error("the kept server was restarted for a filter change")
	}
}

func (c *Conn) liveSession() *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}
