//go:build unix

package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"dispatch/connections"
	"dispatch/dispatch"
	"dispatch/internal/testkit"
	"dispatch/spill"
)

// fixtureServer is the Go fixture MCP server: the shell session serves a
// real server over a real pipe.
var fixtureServer = &testkit.Binary{Package: testkit.FixturePackage}

// explainForTest stands in for the command line's wording: it marks what
// it words, so a test sees that the session used it.
func explainForTest(err error) *ShellError {
	exit := 4
	if dispatch.IsUsage(err) {
		exit = 2
	}
	return &ShellError{Message: "worded: " + err.Error(), Exit: exit}
}

type shellUnderTest struct {
	client *ShellClient
	socket string
	log    *testkit.SyncBuffer
	done   chan error
	cancel context.CancelFunc
}

// startShell serves a shell session in front of the fixture server on a
// socket in a fresh private directory, as session daemon does.
func startShell(t *testing.T, adjust func(*ShellOptions)) *shellUnderTest {
	t.Helper()
	conns, err := connections.NewSet([]connections.ServerConfig{
		{Transport: connections.TransportStdio, Command: fixtureServer.Path(t)},
	}, connections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conns.Close)
	store, err := spill.Open(spill.Options{Dir: t.TempDir(), MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc := dispatch.New(conns, dispatch.Options{Spill: store, TrustPaths: true})
	socket := filepath.Join(testkit.ShortTempDir(t), "s", ShellSocketName)
	ln, err := Listen(UnixPrefix + socket)
	if err != nil {
		t.Fatal(err)
	}
	log := &testkit.SyncBuffer{}
	opts := ShellOptions{Socket: socket, Idle: time.Hour, MaxRequestBytes: 1 << 20, MaxInFlight: 8,
		Conns: conns, Store: store, Log: slog.New(slog.NewTextHandler(log, nil)), Explain: explainForTest}
	if adjust != nil {
		adjust(&opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &shellUnderTest{client: NewShellClient(socket), socket: socket, log: log, done: make(chan error, 1), cancel: cancel}
	go func() { s.done <- ServeShell(ctx, svc, ln, opts) }()
	t.Cleanup(func() {
		s.client.Close()
		cancel()
		s.wait(t)
	})
	return s
}

// wait is the session's end; a session that does not end fails the test
// rather than hanging it.
func (s *shellUnderTest) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the next wait
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the session did not end")
		return nil
	}
}

// One command's whole conversation with a session over a real socket:
// each kind of request, its answer decoded into the type the command
// renders, errors worded by the caller's Explain with its exit code,
// relative paths made the caller's, and stop.
func TestShell_ClientAndServerRoundTrip(t *testing.T) {
	s := startShell(t, nil)
	ctx := context.Background()
	c := s.client

	resp, err := c.Do(ctx, dispatch.Request{Action: "list"})
	list, ok := resp.(*dispatch.ListResponse)
	if err != nil || !ok || len(list.Connections) != 1 || list.Connections[0].Alias != "c1" {
		t.Fatalf("list: %#v, %v", resp, err)
	}

	resp, err = c.Do(ctx, dispatch.Request{Action: "call", Tool: "echo", Arguments: json.RawMessage(`{"message":"over the socket"}`)})
	call, ok := resp.(*dispatch.CallResponse)
	if err != nil || !ok || len(call.Content) != 1 || !strings.Contains(string(call.Content[0]), "over the socket") {
		t.Fatalf("call: %#v, %v", resp, err)
	}

	// Arguments that are not JSON travel as text; the service refuses them.
	_, err = c.Do(ctx, dispatch.Request{Action: "call", Tool: "echo", Arguments: json.RawMessage(`{"message": 5`)})
	var shellErr *ShellError
	if !errors.As(err, &shellErr) || shellErr.Exit != 2 || !strings.HasPrefix(shellErr.Message, "worded: ") {
		t.Fatalf("bad arguments: %v (%T), want a usage error worded by Explain", err, err)
	}

	// A relative -o is the caller's directory, named as the user gave it.
	work := t.TempDir()
	t.Chdir(work)
	saved, err := c.SavePayload(ctx, call, "answer.txt")
	if err != nil || saved.Path != "answer.txt" {
		t.Fatalf("save: %#v, %v", saved, err)
	}
	if data, err := os.ReadFile(filepath.Join(work, "answer.txt")); err != nil || !strings.Contains(string(data), "over the socket") {
		t.Fatalf("saved file: %q, %v", data, err)
	}

	var lines []string
	steps := []json.RawMessage{
		json.RawMessage(`{"action":"call","tool":"echo","arguments":{"message":"one"}}`),
		json.RawMessage(`{"action":"call","tool":"echo","arguments":{"message":"two"}}`),
	}
	if err := c.Run(ctx, steps, nil, func(line json.RawMessage) error {
		lines = append(lines, string(line))
		return nil
	}); err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(lines) != 2 || !strings.Contains(strings.Join(lines, "\n"), `"one"`) || !strings.Contains(strings.Join(lines, "\n"), `"two"`) {
		t.Fatalf("run lines: %q", lines)
	}
	// A failing step is printed, then ends the pipeline with its error.
	lines = nil
	err = c.Run(ctx, []json.RawMessage{json.RawMessage(`{"action":"call","tool":"no_such_tool"}`)}, nil, func(line json.RawMessage) error {
		lines = append(lines, string(line))
		return nil
	})
	if !errors.As(err, &shellErr) || !strings.HasPrefix(shellErr.Message, "worded: step 1") || len(lines) != 1 || !strings.Contains(lines[0], "no_such_tool") {
		t.Fatalf("failing run: %v (%T), lines %q; want the step's line, then its error worded by Explain", err, err, lines)
	}

	st, err := c.Status(ctx)
	if err != nil || st.PID != os.Getpid() || st.Socket != s.socket || len(st.Servers) != 1 || st.Servers[0].Alias != "c1" || st.Servers[0].Status == "" {
		t.Fatalf("status: %#v, %v", st, err)
	}

	pid, err := c.Stop(ctx)
	if err != nil || pid != os.Getpid() {
		t.Fatalf("stop: %d, %v", pid, err)
	}
	if err := s.wait(t); err != nil {
		t.Fatalf("serve after stop: %v", err)
	}
	// The session is gone: the next command says so, as a link failure.
	_, err = c.Do(ctx, dispatch.Request{Action: "list"})
	var link *ShellLinkError
	if !errors.As(err, &link) || !strings.Contains(err.Error(), "dispatch session start") {
		t.Fatalf("after stop: %v (%T), want a stale-session error naming session start", err, err)
	}
}

// What reaches the socket is bounded: a body past MaxRequestBytes (413),
// one that is not JSON (400), one past MaxInFlight (503); each is a clear
// error, and the session goes on serving.
func TestShell_RefusalsLeaveTheSessionServing(t *testing.T) {
	s := startShell(t, func(o *ShellOptions) { o.MaxRequestBytes = 1024; o.MaxInFlight = 1 })
	ctx := context.Background()
	echo := func(message string) error {
		_, err := s.client.Do(ctx, dispatch.Request{Action: "call", Tool: "echo", Arguments: json.RawMessage(`{"message":"` + message + `"}`)})
		return err
	}
	var link *ShellLinkError
	if err := echo(strings.Repeat("x", 4096)); !errors.As(err, &link) || !strings.Contains(err.Error(), "413") || !strings.Contains(err.Error(), "--max-request") {
		t.Fatalf("large body: %v (%T)", err, err)
	}

	raw := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", s.socket)
	}}}
	defer raw.CloseIdleConnections()
	resp, err := raw.Post("http://session"+shellDoPath, "application/json", strings.NewReader(`{"request": `))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "not the JSON") {
		t.Fatalf("not JSON: %d %s", resp.StatusCode, body)
	}

	// A call that holds the only slot until it is cancelled.
	hangCtx, cancelHang := context.WithCancel(ctx)
	hung := make(chan error, 1)
	startHang := func() {
		go func() {
			_, err := s.client.Do(hangCtx, dispatch.Request{Action: "call", Tool: "hang", Arguments: json.RawMessage(`{}`)})
			hung <- err
		}()
	}
	startHang()
	busy := testkit.Eventually(20*time.Second, func() bool {
		select {
		case <-hung:
			// It came while a probe held the slot and was refused busy
			// itself: try again to have it hold the slot.
			startHang()
			return false
		default:
		}
		err := echo("busy?")
		return errors.As(err, &link) && strings.Contains(err.Error(), "503") && strings.Contains(err.Error(), "--max-in-flight")
	})
	cancelHang()
	<-hung
	if !busy {
		t.Fatal("a request past MaxInFlight was never answered busy")
	}
	if !testkit.Eventually(20*time.Second, func() bool { return echo("free again") == nil }) {
		t.Fatalf("the slot was not freed: %v", echo("free again"))
	}
}

// A forgotten session ends by itself after Idle without a request, and
// one whose socket was deleted ends too, since nothing can reach it (found
// at the first check, long before its Idle).
func TestShell_EndsIdleOrUnreachable(t *testing.T) {
	idle := startShell(t, func(o *ShellOptions) { o.Idle = 200 * time.Millisecond })
	if err := idle.wait(t); err != nil || !strings.Contains(idle.log.String(), "session idle") {
		t.Fatalf("idle session: %v, log %q", err, idle.log.String())
	}

	orphan := startShell(t, func(o *ShellOptions) { o.Idle = 10 * time.Second })
	if err := os.Remove(orphan.socket); err != nil {
		t.Fatal(err)
	}
	if err := orphan.wait(t); err != nil || !strings.Contains(orphan.log.String(), "socket deleted") {
		t.Fatalf("session without its socket: %v, log %q", err, orphan.log.String())
	}
}

// A session that ends while a request is on the way (a kept-alive
// connection it closes, a request it drops as it goes) is reported as an
// ended session naming session start, not as the transport's EOF.
func TestShellClient_SessionEndingMidRequestIsStale(t *testing.T) {
	socket := filepath.Join(testkit.ShortTempDir(t), ShellSocketName)
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
		// Read the request, then end as a stopping session does: the
		// socket goes first, then the connection, unanswered.
		conn.Read(make([]byte, 4096))
		ln.Close()
		conn.Close()
	}()
	t.Cleanup(func() { ln.Close(); <-served })

	c := NewShellClient(socket)
	defer c.Close()
	_, err = c.Do(context.Background(), dispatch.Request{Action: "list"})
	var link *ShellLinkError
	if !errors.As(err, &link) || !strings.Contains(err.Error(), "dispatch session start") {
		t.Fatalf("session ended mid-request: %v (%T), want a stale-session error naming session start", err, err)
	}
}

// Both sides read one table of answer kinds: every kind comes back as
// the type it left as, with PastEnd, which its JSON leaves out.
func TestShellWire_EveryKindRoundTrips(t *testing.T) {
	for _, k := range answerKinds {
		resp := k.new()
		if k.pastEnd != nil {
			*k.pastEnd(resp) = true
		}
		ans, err := encodeAnswer(resp)
		if err != nil || ans.Kind != k.name {
			t.Fatalf("%s: encode: %+v, %v", k.name, ans, err)
		}
		data, err := json.Marshal(ans)
		if err != nil {
			t.Fatal(err)
		}
		var back shellAnswer
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		got, err := decodeAnswer(back)
		if err != nil || k.typ != reflect.TypeOf(got) {
			t.Fatalf("%s: decode: %T, %v", k.name, got, err)
		}
		if k.pastEnd != nil && !*k.pastEnd(got) {
			t.Errorf("%s: PastEnd lost on the wire", k.name)
		}
	}
	if _, err := encodeAnswer(&dispatch.Request{}); err == nil {
		t.Error("a type with no wire form was encoded")
	}
	if _, err := decodeAnswer(shellAnswer{Kind: "format-disk"}); err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("unknown kind: %v", err)
	}
	failed := &ShellError{Message: "no", Exit: 3}
	if _, err := decodeAnswer(shellAnswer{Error: failed}); err != failed {
		t.Errorf("an answered failure: %v, want %v", err, failed)
	}
}

// A session's directory is swept only when its process is gone: its lock
// is free. A live session's directory, and a start still under way (no
// lock yet), are left alone.
func TestShellDir_SweepRemovesOnlyTheDead(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	base, err := ShellBaseDir()
	if err != nil {
		t.Fatal(err)
	}
	live, liveLock, err := NewShellDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer liveLock.Close()
	dead, deadLock, err := NewShellDir(base)
	if err != nil {
		t.Fatal(err)
	}
	deadLock.Close() // as the kernel does when the process dies
	starting := filepath.Join(base, shellDirPrefix+"starting")
	if err := os.Mkdir(starting, 0o700); err != nil {
		t.Fatal(err)
	}
	swept, err := SweepShellDirs(base)
	if err != nil || len(swept) != 1 || swept[0] != dead {
		t.Fatalf("swept %v, %v; want only %s", swept, err, dead)
	}
	for _, dir := range []string{live, starting} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}

	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ShellBaseDir(); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("a base directory open to others: %v", err)
	}
}
