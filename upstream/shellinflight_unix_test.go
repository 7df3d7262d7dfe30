//go:build unix

package upstream

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dispatch/dispatch"
	"dispatch/internal/testkit"
)

// A session that dies after it got the request (killed mid-call) is
// reported as ending with the call in flight, which may have run; one
// that was gone before anything was sent is reported as ended.
func TestShellClient_SessionDyingMidCallSaysInFlight(t *testing.T) {
	dir := filepath.Join(testkit.ShortTempDir(t), "s")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, ShellSocketName)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		// Take the whole request, then die as a killed session does.
		conn.Read(make([]byte, 64<<10))
		ln.Close()
		conn.Close()
	}()
	t.Cleanup(func() { ln.Close(); <-served })

	c := NewShellClient(socket)
	defer c.Close()
	_, err = c.Do(context.Background(), dispatch.Request{Action: "call", Tool: "slow"})
	var link *ShellLinkError
	if !errors.As(err, &link) {
		t.Fatalf("session died mid-call: %v (%T), want a *ShellLinkError", err, err)
	}
	for _, want := range []string{"ended while this request was in flight", "may have run", "dispatch session start"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("session died mid-call: %q lacks %q", err, want)
		}
	}

	// Nothing listens now: the next call was never sent.
	_, err = c.Do(context.Background(), dispatch.Request{Action: "call", Tool: "slow"})
	if err == nil || strings.Contains(err.Error(), "in flight") || !strings.Contains(err.Error(), "it has ended") {
		t.Errorf("call to an ended session: %v, want it has ended, not in flight", err)
	}
}
