//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"dispatch/internal/testkit"
	"dispatch/upstream"
)

// sessionEnv is an environment whose sessions live in a private runtime
// directory, and with dispatch first on PATH, as a user's shell has it.
func sessionEnv(t *testing.T) []string {
	t.Helper()
	runtime := t.TempDir()
	env := withoutEnv(withoutEnv(withoutEnv(os.Environ(), "DISPATCH_SESSION"), "XDG_RUNTIME_DIR"), "PATH")
	return append(env, "XDG_RUNTIME_DIR="+runtime, "PATH="+filepath.Dir(dispatchBin)+":"+os.Getenv("PATH"))
}

// runIn runs a program with env in dir: stdout, stderr and exit code.
func runIn(t *testing.T, env []string, dir, name string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %v: %v", name, args, err)
	}
	return stdout.String(), stderr.String(), code
}

// markedProcesses are the pids whose command line holds marker: the
// fixture servers a test started with --name marker.
func markedProcesses(t *testing.T, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to look for leftover processes")
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(marker)) && !zombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name's closing parenthesis.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}

// sessionStatusOf reads dispatch session status --json.
func sessionStatusOf(t *testing.T, env []string, socket string) upstream.ShellStatus {
	t.Helper()
	out, errOut, code := runIn(t, env, "", dispatchBin, "--session", socket, "--json", "session", "status")
	if code != 0 {
		t.Fatalf("session status: exit %d: %s", code, errOut)
	}
	var st upstream.ShellStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("session status --json: %v\n%s", err, out)
	}
	return st
}

// A shell user's whole session: start, a saved result chained into the
// next command's -f (relative to the shell's directory, not the
// session's), readresult on it, and stop, after which no process and no
// file of the session is left.
func TestSession_ShellScript(t *testing.T) {
	env := sessionEnv(t)
	marker := "sess-script-" + strconv.Itoa(os.Getpid())
	work := t.TempDir()
	script := fmt.Sprintf(`set -e
trap 'dispatch session stop >/dev/null 2>&1 || true' EXIT
eval "$(dispatch --mcp '%s --demo --name %s' --threshold 2KiB session start)"
echo "socket=$DISPATCH_SESSION"
dispatch call list_files count=200 --json > answer.json
file=$(dispatch readresult answer.json --op query --path spill.resultFile 2>/dev/null | tr -d '"')
echo "file=$file"
cp "$file" files.json
mkdir sub && cd sub
dispatch call echo -f ../files.json --arguments-path 0.path --arguments-key message
dispatch call echo -f "$file" --arguments-path 1.path --arguments-key message
dispatch readresult "$file" --op head -n 2
eval "$(dispatch session stop)"
echo "after=${DISPATCH_SESSION-unset}"
`, fixtureBin, marker)
	out, errOut, code := runIn(t, env, work, "bash", "-c", script)
	if code != 0 {
		t.Fatalf("script exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	values := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && (k == "socket" || k == "file" || k == "after") {
			values[k] = v
		}
	}
	dir := filepath.Dir(values["socket"])
	if values["socket"] == "" || !strings.HasPrefix(values["file"], dir+"/") {
		t.Fatalf("the result file %q is not in the session directory %q\n%s", values["file"], dir, out)
	}
	for _, want := range []string{"./internal/api/file_0001_test.go\n", "./internal/auth/file_0002.md\n", "1:[\n2:  {\n", "after=unset"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("session directory %s still there after stop (%v)", dir, err)
	}
	base := filepath.Dir(dir)
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("session base directory still holds %v", left)
	}
	if pids := markedProcesses(t, marker); len(pids) != 0 {
		t.Errorf("servers of the stopped session still run: %v", pids)
	}
}

// A session killed with SIGKILL cleans nothing up; the next session start
// removes what it left, and a command still pointing at it is a clear
// error naming session start (exit 3).
func TestSession_SigkillThenStartSweeps(t *testing.T) {
	env := sessionEnv(t)
	marker := "sess-kill-" + strconv.Itoa(os.Getpid())
	server := fmt.Sprintf("%s --demo --name %s", fixtureBin, marker)
	socket := startSession(t, env, "--mcp", server, "--threshold", "2KiB")
	dir := filepath.Dir(socket)
	out, errOut, code := runIn(t, env, "", dispatchBin, "--session", socket, "--json", "call", "list_files", "count=200")
	if code != 0 || !strings.Contains(out, dir) {
		t.Fatalf("call: exit %d, result not saved in %s:\n%s%s", code, dir, out, errOut)
	}
	pid := sessionStatusOf(t, env, socket).PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the killed session to be gone", 10*time.Second, func() bool { return !processAlive(pid) })

	_, errOut, code = runIn(t, env, "", dispatchBin, "--session", socket, "list")
	if code != exitServer || !strings.Contains(errOut, "dispatch session start") || !strings.Contains(errOut, "unset DISPATCH_SESSION") {
		t.Errorf("stale session: exit %d, want %d and a message naming session start and unset:\n%s", code, exitServer, errOut)
	}
	if _, err := os.Lstat(dir); err != nil {
		t.Fatalf("SIGKILL should have left the directory for the sweep to find: %v", err)
	}
	next := startSession(t, env, "--mcp", server)
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the dead session's directory %s is still there after the next start (%v)", dir, err)
	}
	testkit.WaitFor(t, "the dead session's servers to end", 10*time.Second, func() bool { return len(markedProcesses(t, marker)) == 0 })
	stopSession(t, env, next)
}

// The same command prints the same and exits the same with a session as
// without one, text and --json, successes and failures.
func TestSession_OutputSameAsWithout(t *testing.T) {
	env := sessionEnv(t)
	servers := []string{"--no-cache", "--mcp", fixture("--demo"), "--mcp", fixture("--readables"), "--mcp", fixture("--resources")}
	socket := startSession(t, env, servers...)
	defer stopSession(t, env, socket)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "args.json"), []byte(`{"message": "from a file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"list"},
		{"list", "--tools"},
		{"list", "-C", "c2", "--schema"},
		{"search", "weather", "forecast"},
		{"search", "nothing", "matches", "zzzq"},
		{"info", "get_weather"},
		{"info", "no_such_tool"},
		{"call", "add", "a=2", "b=3"},
		{"call", "echo", "-f", "args.json"},
		{"call", "-C", "c1", "echo", "-f", "args.json"},
		{"call", "-C", "c1", "echo", "-f", "missing.json"},
		{"call", "list_files", "count=200", "-o", "files.json"},
		{"call", "-C", "c2", "fail", "-o", "failed.json", `{"message": "no"}`},
		{"read", "fixture://read/hello.txt"},
		{"read", "fixture://read/pixel.png", "-o", "pixel.png"},
		{"read", "fixture://read/nothing-here"},
		{"prompt", "-C", "c3", "greet", "name=Ada"},
		{"prompt", "-C", "c3", "greet", "name=Ada", "-o", "greet.json"},
		{"prompt", "-C", "c3", "greet"},
		{"list", "--type", "resource"},
		{"call", "echo", `{"message": 5`},
		{"call", "-C", "c2", "fail", `{}`},
		{"call", "get_weather", "city=Paris"},
	}
	for _, args := range commands {
		for _, asJSON := range []bool{false, true} {
			full := args
			if asJSON {
				full = append([]string{"--json"}, args...)
			}
			t.Run(strings.Join(full, " "), func(t *testing.T) {
				alone := append(append([]string{}, servers...), full...)
				wantOut, wantErr, wantCode := runIn(t, env, work, dispatchBin, alone...)
				inSession := append([]string{"--session", socket}, full...)
				gotOut, gotErr, gotCode := runIn(t, env, work, dispatchBin, inSession...)
				if gotCode != wantCode || gotOut != wantOut || gotErr != wantErr {
					t.Errorf("in a session: exit %d\n%s\n%s\nwithout: exit %d\n%s\n%s", gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
				}
			})
		}
	}
}

// A global flag a session cannot apply to one command is a usage error,
// not silently ignored; --no-session runs the command on its own.
func TestSession_ConflictingGlobalFlag(t *testing.T) {
	env := sessionEnv(t)
	socket := startSession(t, env, "--mcp", fixture("--demo"))
	defer stopSession(t, env, socket)
	env = append(env, "DISPATCH_SESSION="+socket)
	_, errOut, code := runIn(t, env, "", dispatchBin, "--mcp", fixture(), "list")
	if code != exitUsage || !strings.Contains(errOut, "--mcp cannot be given") || !strings.Contains(errOut, "--no-session") {
		t.Errorf("--mcp in a session: exit %d: %s", code, errOut)
	}
	out, errOut, code := runIn(t, env, "", dispatchBin, "--no-session", "--mcp", fixture(), "call", "fail", "{}")
	if code != exitToolError {
		t.Errorf("--no-session call: exit %d, want %d (the fixture's own fail tool):\n%s%s", code, exitToolError, out, errOut)
	}
}

func startSession(t *testing.T, env []string, flags ...string) string {
	t.Helper()
	return startSessionIdle(t, env, "30m", flags...)
}

func stopSession(t *testing.T, env []string, socket string) {
	t.Helper()
	out, errOut, code := runIn(t, env, "", dispatchBin, "--session", socket, "session", "stop", "--sh")
	if code != 0 || !strings.HasPrefix(out, "unset DISPATCH_SESSION;\n") {
		t.Errorf("session stop: exit %d: %s%s", code, out, errOut)
	}
}

// A forgotten session ends by itself after --idle without a command, and
// deletes its directory and result files.
func TestSession_IdleEnds(t *testing.T) {
	env := sessionEnv(t)
	socket := startSession(t, env, "--mcp", fixture("--demo"), "--threshold", "1KiB")
	// The session's flags are fixed at start; --idle is start's own.
	out, errOut, code := runIn(t, env, "", dispatchBin, "--session", socket, "call", "list_files", "count=50")
	if code != 0 || !strings.Contains(out, filepath.Dir(socket)) {
		t.Fatalf("call: exit %d:\n%s%s", code, out, errOut)
	}
	stopSession(t, env, socket)

	socket = startSessionIdle(t, env, "300ms", "--mcp", fixture("--demo"))
	testkit.WaitFor(t, "the idle session to end and delete its directory", 20*time.Second, func() bool {
		_, err := os.Lstat(filepath.Dir(socket))
		return os.IsNotExist(err)
	})
}

// What reaches the socket is checked like any request: a body past
// --max-request and one that is not JSON are refused with a clear HTTP
// error, and the session goes on serving.
func TestSession_HostileRequests(t *testing.T) {
	env := sessionEnv(t)
	socket := startSession(t, env, "--mcp", fixture("--demo"), "--max-request", "1KiB")
	defer stopSession(t, env, socket)
	// A raw client, as a hostile peer would write one: the wire's path
	// is spelled out rather than borrowed from the package that serves it.
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}}
	defer client.CloseIdleConnections()
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"too large", `{"request": {"action": "call", "tool": "echo", "arguments": {"message": "` + strings.Repeat("x", 4096) + `"}}}`, 413, "--max-request"},
		{"not JSON", `{"request": `, 400, "not the JSON"},
		{"unknown action", `{"request": {"action": "format-disk"}}`, 200, "action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, "http://session/dispatch/v1/do", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.says) {
				t.Errorf("status %d, want %d saying %q: %s", resp.StatusCode, tc.status, tc.says, body)
			}
		})
	}
	out, errOut, code := runIn(t, env, "", dispatchBin, "--session", socket, "call", "echo", "message=still here")
	if code != 0 || out != "still here\n" {
		t.Errorf("after hostile requests: exit %d: %q %s", code, out, errOut)
	}
}

func startSessionIdle(t *testing.T, env []string, idle string, flags ...string) string {
	t.Helper()
	out, errOut, code := runIn(t, env, "", dispatchBin, append(flags, "session", "start", "--sh", "--idle", idle)...)
	if code != 0 {
		t.Fatalf("session start: exit %d: %s", code, errOut)
	}
	line, _, _ := strings.Cut(out, "\n")
	socket, ok := strings.CutPrefix(line, "export DISPATCH_SESSION='")
	if !ok {
		t.Fatalf("session start printed %q", out)
	}
	socket = strings.TrimSuffix(socket, "';")
	// A test that fails half-way must not leave its session running.
	t.Cleanup(func() {
		if _, err := os.Lstat(socket); err == nil {
			exec.Command(dispatchBin, "--session", socket, "session", "stop").Run()
		}
	})
	return socket
}

// Another user cannot use a session even if its socket's mode were
// loosened: the session reads its peer's credentials, as ssh-agent does.
// Needs root, to run the client as nobody.
func TestSession_OtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 || runtime.GOOS != "linux" {
		t.Skip("needs root on linux to run a client as another user")
	}
	env := sessionEnv(t)
	socket := startSession(t, env, "--mcp", fixture("--demo"))
	defer stopSession(t, env, socket)
	// Open the way to the socket, as a careless chmod would.
	for dir := filepath.Dir(socket); dir != "/" && dir != os.TempDir(); dir = filepath.Dir(dir) {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(socket, 0o666); err != nil {
		t.Fatal(err)
	}
	// A copy of dispatch that nobody may run.
	binDir := t.TempDir()
	for _, dir := range []string{binDir, filepath.Dir(binDir)} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(dispatchBin)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(binDir, "dispatch")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--session", socket, "list")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	exitErr, ok := err.(*exec.ExitError)
	if !ok || exitErr.ExitCode() != exitServer {
		t.Fatalf("another user's list: %v, want exit %d: %s", err, exitServer, stderr.String())
	}
	out, errOut, code := runIn(t, env, "", dispatchBin, "--session", socket, "call", "echo", "message=mine")
	if code != 0 || out != "mine\n" {
		t.Errorf("the owner after the refusal: exit %d: %q %s", code, out, errOut)
	}
}

// The session's servers (and whatever they start) do not inherit its lock
// file: a server holding it would keep a SIGKILLed session's directory
// from being swept, and one that unlocked it would get a live session's
// directory deleted by the next session start.
func TestSession_ServersDoNotHoldTheLock(t *testing.T) {
	env := sessionEnv(t)
	marker := "sess-lock-" + strconv.Itoa(os.Getpid())
	socket := startSession(t, env, "--mcp", fmt.Sprintf("%s --demo --name %s", fixtureBin, marker))
	defer stopSession(t, env, socket)
	if _, errOut, code := runIn(t, env, "", dispatchBin, "--session", socket, "call", "echo", "message=hi"); code != 0 {
		t.Fatalf("call: exit %d: %s", code, errOut)
	}
	pids := markedProcesses(t, marker)
	if len(pids) == 0 {
		t.Fatal("the session's server is not running")
	}
	dir := filepath.Dir(socket)
	for _, pid := range pids {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range fds {
			target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if err == nil && strings.HasPrefix(target, dir) {
				t.Errorf("server %d holds the session's %s as fd %s", pid, target, fd.Name())
			}
		}
	}
}
